#!/bin/bash
# Several ranks of one communicator on one host: members that share an
# address, each rank its own process and its own side in the kernel.
# Two ranks on each of 4 hosts run alltoalls, allreduces, reduces and
# broadcasts (tree and multicast) with every byte checked; two ranks alone
# on one host exchange 4 MiB while the host's cable carries none of it;
# another communicator's id, a rank twice, another owner and a rank not
# named are refused with their errno; one rank leaves while its sibling
# stays; nothing left behind.  (t_bootstrap.sh bootstraps 16 ranks on 8
# hosts.)
T_NAME=ranks_per_host
source "$(dirname "$0")/lib.sh"

cluster_star 8 >/dev/null || { t_fail "cluster up"; t_done; exit 1; }
nc_load || { t_fail "insmod"; t_done; exit 1; }
ALL8=$(cluster_hosts | tr '\n' ' ')
attach_all() { local h; for h in $ALL8; do on "$h" "$NCTL" dev attach dev eth0 || return 1; done; }
t_check "attach eth0 on 8 hosts" attach_all
# Slab caches grow on first use and keep their pages: one round of every
# kind of operation on a communicator deleted again before the count.
warm_up() {
	nc_comm_on 9 h6 h6 h7 &&
		nc_ranks wa "h6 h6 h7" "$NC_CHECK" --comm 9 --op alltoall --bytes 100000 &&
		nc_ranks wr "h6 h6 h7" "$NC_RED_CHECK" --comm 9 --all --count-list 20000 \
			--ops sum --dtypes double &&
		nc_ranks wb "h6 h6 h7" "$NC_BCAST_CHECK" --comm 9 --bytes-list 100000 &&
		on h6 "$NCTL" comm del id 9 rank 0 && on h6 "$NCTL" comm del id 9 &&
		on h7 "$NCTL" comm del id 9
}
t_check "warm-up: 3 ranks on h6 and h7, every kind of operation, deleted" warm_up
sleep 1
mem0=$(kmem_kb)

# ranks 0-3 on h1-h4, ranks 4-7 on h1-h4 again: a host's two ranks apart
# in rank order, so trees and schedules pair them with remote ranks too
TWO="h1 h2 h3 h4 h1 h2 h3 h4"
t_check "communicator 1: 8 ranks, 2 on each of h1-h4" nc_comm_on 1 $TWO
t_check "... each host lists its two ranks" \
	eval 'nc_json h1 "sorted(c[\"rank\"] for c in d if c[\"id\"] == 1) == [0, 4]" comm list &&
	      nc_json h4 "sorted(c[\"rank\"] for c in d if c[\"id\"] == 1) == [3, 7]" comm list'
# Trees over hosts: host i holds ranks i and i + 4; its lowest rank (or
# the root) stands for it in the f-nomial tree of degree 4 over the 4
# hosts, and the host's other rank hangs off it.
tree_is() { # HOST RANK PARENT "CHILDREN" nctl tree show args...
	local h=$1 r=$2 p=$3 ch=$4
	shift 4
	nc_json "$h" "d[0]['parent'] == $p and d[0]['children'] == [${ch// /, }]" \
		tree show comm 1 rank "$r" "$@"
}
t_check "reduction tree 0 (root 0): rank 0 has the other hosts' leads 1-3 and its own rank 4" \
	eval 'tree_is h1 0 0 "1 2 3 4" index 0 && tree_is h1 4 0 "" index 0 &&
	      tree_is h2 1 0 "5" index 0 && tree_is h2 5 1 "" index 0'
t_check "broadcast from 5: it stands for h2 (rank 1 below it), 0, 2, 3 for the others" \
	eval 'tree_is h2 5 5 "0 1 2 3" bcast root 5 && tree_is h2 1 5 "" bcast root 5 &&
	      tree_is h1 0 5 "4" bcast root 5'
t_check "alltoall 1, 1500, 65537 B, 3 times: every byte verified" \
	nc_ranks a2a "$TWO" "$NC_CHECK" --comm 1 --op alltoall --bytes-list 1,1500,65537 --iters 3
t_check "barrier" nc_ranks bar "$TWO" "$NC_CHECK" --comm 1 --op barrier --iters 5
t_check "allreduce 1, 1000, 100000 elements, sum and max, int32 and double: every bit as the trees over hosts give it, and the kernel's 8 trees those" \
	nc_ranks ar "$TWO" "$NC_RED_CHECK" --comm 1 --all --count-list 1,1000,100000 \
	--ops sum,max --dtypes int32,double --check-trees
t_check "reduce to rank 5 (h2's second rank), 3000 doubles" \
	nc_ranks red "$TWO" "$NC_RED_CHECK" --comm 1 --root 5 --count-list 3000 \
	--ops sum --dtypes double
t_check "allreduce with the result multicast (the group reaches both ranks of a host)" \
	nc_ranks arm "$TWO" "$NC_RED_CHECK" --comm 1 --all --dist mcast --count-list 1,5000 \
	--ops sum --dtypes int64
t_check "broadcast from every root, 0, 1, 3000, 100000 B, down the tree" \
	nc_ranks bc "$TWO" "$NC_BCAST_CHECK" --comm 1 --bytes-list 0,1,3000,100000
t_check "... and by multicast" \
	nc_ranks bcm "$TWO" "$NC_BCAST_CHECK" --comm 1 --dist mcast --bytes-list 1,3000

# Two ranks alone on h5: what they exchange never reaches the cable.
tx_bytes() { on "$1" cat /sys/class/net/eth0/statistics/tx_bytes; }
local_only() {
	local wire0 wire1 nc0 nc1
	nc_comm_on 2 h5 h5 || return 1
	wire0=$(tx_bytes h5)
	nc0=$(nc_stat h5 tx_bytes)
	nc_ranks loc "h5 h5" "$NC_CHECK" --comm 2 --op alltoall --bytes 1048576 --iters 4 ||
		return 1
	nc_ranks locr "h5 h5" "$NC_RED_CHECK" --comm 2 --all --count-list 100000 \
		--ops sum --dtypes double || return 1
	wire1=$(tx_bytes h5)
	nc1=$(nc_stat h5 tx_bytes)
	echo "netcoll sent $((nc1 - nc0)) B, eth0 $((wire1 - wire0)) B"
	# 4 MiB of alltoall alone went through netcoll; the cable carried at
	# most the group frames of the allreduce and the host's own chatter
	[ $((nc1 - nc0)) -gt 4194304 ] && [ $((wire1 - wire0)) -lt 1048576 ]
}
t_check "2 ranks on h5 alone: 4 MiB alltoall and an allreduce checked, and off the wire" local_only

# Refusals, each with its errno, on h5 (ranks 0 and 1 of communicator 2).
t_expect_fail "a rank h5 has already: EEXIST, saying so" "that rank.*File exists|File exists.*that rank" \
	on h5 "$NCTL" comm add id 2 dev eth0 rank 1 members "$(cluster_mac h5),$(cluster_mac h5)"
m3="$(cluster_mac h5),$(cluster_mac h5),$(cluster_mac h6)"
t_expect_fail "the id of another communicator (other members): EEXIST" "File exists" \
	on h5 "$NCTL" comm add id 2 dev eth0 rank 0 members "$m3"
t_check "communicator 3 rank 0 on h5, cookie 7" \
	on h5 "$NCTL" comm add id 3 dev eth0 rank 0 members "$m3" cookie 7
t_expect_fail "its rank 1 with another cookie: EEXIST" "File exists" \
	on h5 "$NCTL" comm add id 3 dev eth0 rank 1 members "$m3" cookie 8
t_expect_fail "its rank 1 for another owner: EEXIST" "File exists" \
	on h5 "$NCTL" comm add id 3 dev eth0 rank 1 members "$m3" cookie 7 owner 1000
t_expect_fail "its rank 1 with another tree degree (trees would differ): EEXIST" "File exists" \
	on h5 "$NCTL" comm add id 3 dev eth0 rank 1 members "$m3" cookie 7 degree 2
t_expect_fail "comm show without a rank while h5 has two: EINVAL, saying why" \
	"several ranks.*Invalid argument|Invalid argument.*several ranks" on h5 "$NCTL" comm show id 2
t_check "comm show id 2 rank 1 shows that rank" nc_json h5 "d[0]['rank'] == 1" comm show id 2 rank 1
t_expect_fail "comm del of a rank h5 does not have: ENOENT" "No such" \
	on h5 "$NCTL" comm del id 2 rank 5

# One rank leaves; its sibling stays and is found without a rank.
one_leaves() {
	on h5 "$NCTL" comm del id 2 rank 0 || return 1
	nc_json h5 "d[0]['rank'] == 1 and d[0]['state'] == 'ready'" comm show id 2 || return 1
	! on h5 "$NCTL" comm show id 2 rank 0 2>/dev/null
}
t_check "comm del id 2 rank 0: rank 1 stays, ready, and is the one comm show finds" one_leaves

# Nothing left: every communicator deleted, the module's memory back.
del_all() {
	local h
	for h in h1 h2 h3 h4; do
		on "$h" "$NCTL" comm del id 1 rank "$(( ${h#h} - 1 ))" &&
			on "$h" "$NCTL" comm del id 1 || return 1
	done
	on h5 "$NCTL" comm del id 2 && on h5 "$NCTL" comm del id 3
}
t_check "every rank deleted (h1-h4 by rank, then the last without)" del_all
t_check "no communicator left on any host" no_comms "$ALL8"
sleep 1		# the last frees run after a grace period
mem1=$(kmem_kb)
t_check "kernel memory back within 2 MiB (now $((mem1 - mem0)) KiB)" test $((mem1 - mem0)) -lt 2048

t_done
