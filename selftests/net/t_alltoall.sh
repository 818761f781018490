#!/bin/bash
# Barrier and alltoall on 8 hosts behind one switch, every byte verified,
# sizes from 1 B to 1 MiB per peer, MTU multiples and not.
T_NAME=alltoall
source "$(dirname "$0")/lib.sh"

SIZES=1,2,7,64,1443,1444,1445,1500,2888,4096,10000,65536,65537,262144,1048576

cluster_star 8 >/dev/null || { t_fail "cluster up"; t_done; exit 1; }
nc_load || { t_fail "insmod"; t_done; exit 1; }
t_check "attach + comm add on 8 hosts" nc_comm_up 1

t_check "barrier x20" nc_check_all barrier --comm 1 --op barrier --iters 20
t_check "alltoall sizes $SIZES" nc_check_all a2a --comm 1 --op alltoall --bytes-list $SIZES
t_check "alltoall 4 KiB x50 (sequence numbers, early frames)" \
	nc_check_all a2a_iter --comm 1 --op alltoall --bytes 4096 --iters 50
t_check "alltoall linear order explicitly" \
	nc_check_all a2a_lin --comm 1 --op alltoall --bytes 3000 --algo linear
t_check "alltoall count 0" nc_check_all a2a0 --comm 1 --op alltoall --bytes 0

# The order is the kernel's, seen on the wire: the peers h2 (rank 1) sends
# its first DATA frame to, in turn (nc_wire_order.py), for each built-in
# order and for none named, which without an installed schedule is ring.
# Timing cannot tell the orders apart in a test; this can.
NC_WIRE_ORDER=$NC_TOP/selftests/net/nc_wire_order.py
wire_order() {
	local algo=$1 want=$2 pid got i
	on h2 python3 "$NC_WIRE_ORDER" eth0 1 7 >"$T_LOG/order_$algo.out" \
		2>"$T_LOG/order_$algo.err" &
	pid=$!
	for i in $(seq 400); do
		grep -q ready "$T_LOG/order_$algo.err" && break
		sleep 0.05
	done
	grep -q ready "$T_LOG/order_$algo.err" ||
		{ echo "capture not ready after 20 s"; kill $pid; return 1; }
	nc_check_all "order_$algo" --comm 1 --op alltoall --bytes 2000 --algo "$algo" ||
		{ kill $pid; return 1; }
	wait $pid
	got=$(cat "$T_LOG/order_$algo.out")
	echo "rank 1, $algo: sends to $got"
	[ "$got" = "$want" ]
}
t_check "no order named: rank 1 sends to 2 3 4 5 6 7 0 (ring)" \
	wire_order default "2 3 4 5 6 7 0"
t_check "ring: the same" wire_order ring "2 3 4 5 6 7 0"
t_check "linear: rank 1 sends to 0 2 3 4 5 6 7" wire_order linear "0 2 3 4 5 6 7"
t_check "pairwise (8 ranks): rank 1 sends to 0 3 2 5 4 7 6" wire_order pairwise "0 3 2 5 4 7 6"
# (nc_clean_drops: a repeated repair request refused by the barrier's
# aggregation tree, drop_ratelimit, is the guest's timing, not a loss)
drops=$(nc_clean_drops h1)
# A receiver's process that falls behind holds its acks (acks_held) so the
# senders wait: frames are never sent only to be dropped for memory.
held=$(on h1 "$NCTL" -j stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["acks_held"])')
t_check "no frame dropped on a clean network (h1: $drops; acks held: $held)" \
	test "$drops" = none

# A rank's fragments for one peer in one skb (transport.c, nck_push_frags;
# lib.sh, nc_gso_whole), cut before h3, or one an skb: every byte verified.
gso_run() { nc_check_all "$1" --comm 1 --op alltoall --bytes-list 10000,65537 --iters 3; }
t_check "alltoall with several frames an skb through veth and bridge: received whole" \
	nc_gso_whole gso_run gso_whole
t_check "... cut into frames before h3's port (gso_max_segs 1): h3 got single frames" \
	nc_gso_cut gso_run gso_cut h3
t_check "... and one frame an skb where eth0 takes one segment (gso_max_segs 1)" \
	nc_gso_off gso_run gso_off

# A receiver whose process gets 10 % of a CPU (cgroup cpu.max: throttled,
# never signalled) while three senders stream 1 MiB each to it.
# Communicator 2 holds 2 MiB on receive, so acks are held from 1 MiB on,
# the senders wait, and nothing is dropped for memory.  The receiver's
# process also sends its 3 MiB at 10 % of a CPU: each alltoall gets 30 s,
# not the default 5 (a slow CI host's runs timed out in their 2nd-3rd
# alltoall: the test is about bytes and memory, not time).
SLOW_CG=/sys/fs/cgroup/nc-slow-receiver
slow_receiver() {
	local h members="" drops0 held0 pid p="" i rc=0
	for h in h1 h2 h3 h4; do members+="${members:+,}$(cluster_mac "$h")"; done
	i=0
	for h in h1 h2 h3 h4; do
		on $h "$NCTL" comm add id 2 dev eth0 rank $i members "$members" \
			rx-mem 2097152 || return 1
		i=$((i + 1))
	done
	echo +cpu >/sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p $SLOW_CG && echo "10000 100000" >$SLOW_CG/cpu.max || return 1
	drops0=$(nc_stat h1 drop_memory) held0=$(nc_stat h1 acks_held)
	nc_ranks slow "h1 h2 h3 h4" "$NC_CHECK" --comm 2 --op alltoall \
		--bytes 1048576 --iters 10 --algo linear --timeout 30000 &
	pid=$!
	for i in $(seq 100); do
		p=$(pgrep -f -- "--rank 0 --size 4 --comm 2 ") && break
		sleep 0.02
	done
	echo "$p" >$SLOW_CG/cgroup.procs || rc=1
	wait $pid || rc=1
	SLOW_DROPS=$(($(nc_stat h1 drop_memory) - drops0))
	SLOW_HELD=$(($(nc_stat h1 acks_held) - held0))
	for h in h1 h2 h3 h4; do on $h "$NCTL" comm del id 2 || rc=1; done
	rmdir $SLOW_CG
	echo "h1: drop_memory +$SLOW_DROPS, acks_held +$SLOW_HELD"
	return $rc
}
t_check "a receiver at 10 % of a CPU during 10 alltoalls of 1 MiB: every byte verified" \
	slow_receiver
t_check "... none of its frames dropped for memory ($SLOW_DROPS), its acks held instead ($SLOW_HELD)" \
	test "$SLOW_DROPS" = 0 -a "$SLOW_HELD" -gt 0

# Early books (rel.h): a rank whose process starts each of 5 alltoalls of
# 64 KiB 300 ms late keeps what the others send it meanwhile and acks it,
# so they do not resend it on their timeouts, and a copy that comes anyway
# is dropped, not kept: it may keep each fragment once (MTU 1500:
# 1440-byte fragments, 46 per block, 3 senders, 690 in all).  Before the
# books it kept 770-806 (and dropped 80-116 copies afterwards), and each
# sender resent 24-64 fragments.
late_receiver() {
	local h members="" i=0 early0 rc
	for h in h1 h2 h3 h4; do members+="${members:+,}$(cluster_mac "$h")"; done
	for h in h1 h2 h3 h4; do
		on $h "$NCTL" comm add id 3 dev eth0 rank $i members "$members" || return 1
		i=$((i + 1))
	done
	early0=$(nc_stat h4 rx_early)
	nc_ranks late "h1 h2 h3 h4" "$NC_CHECK" --comm 3 --op alltoall --bytes 65536 \
		--iters 5 --late-ms 300 --late-rank 3 --timeout 20000
	rc=$?
	LATE_EARLY=$(($(nc_stat h4 rx_early) - early0))
	for h in h1 h2 h3 h4; do on $h "$NCTL" comm del id 3 || rc=1; done
	echo "h4 kept $LATE_EARLY fragments early"
	[ $rc = 0 ] && [ "$LATE_EARLY" -gt 0 ] && [ "$LATE_EARLY" -le 690 ]
}
t_check "a rank 300 ms late into 5 alltoalls of 64 KiB: every byte verified, each fragment sent to it kept once" \
	late_receiver

t_check "rmmod with devices attached and communicators alive" nc_unload
cluster_down
t_done
