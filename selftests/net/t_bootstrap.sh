#!/bin/bash
# Communicators without member lists (nc_comm_bootstrap, `nctl comm add
# bootstrap`, nc_open_bootstrap): the ranks meet over TCP at rank 0's
# address and rank 0 hands out the table, id, cookie and key.  A whole
# cluster with rank 0 last, ranks placed against the host order, everything
# from the environment, a program that needs nothing but that call; then a
# rank that never comes, a rank launched twice, a fixed id already in use,
# no rank 0, a device not attached.  Every communicator made is used with
# every byte checked, and none is left behind by a failure.
T_NAME=bootstrap
source "$(dirname "$0")/lib.sh"

cluster_star 8 >/dev/null || { t_fail "cluster up"; t_done; exit 1; }
nc_load || { t_fail "insmod"; t_done; exit 1; }
ALL8=$(cluster_hosts | tr '\n' ' ')
STORE=$(cluster_ip h1)	# where rank 0 runs, unless said otherwise
port=7100
BOOT_AS=()		# boot's ranks run as root, unless set to a setpriv prefix
USER1=(setpriv --reuid=1000 --regid=1000 --clear-groups)
USER2=(setpriv --reuid=1001 --regid=1001 --clear-groups)

attach_all() { local h; for h in $ALL8; do on "$h" "$NCTL" dev attach dev eth0 || return 1; done; }
t_check "attach eth0 on 8 hosts" attach_all

# boot NAME "HOSTS" [nctl comm add args]: `nctl -j comm add bootstrap` on
# each host, rank = its place in HOSTS, the store at rank 0's address, rank
# 0 a second after the others (they retry until it listens).  Outputs in
# $T_LOG/NAME.RANK.out.
boot() {
	local name=$1 r=0 h pids=() rc=0 hosts store
	read -r -a hosts <<<"$2"
	shift 2
	port=$((port + 1))
	store=$(cluster_ip "${hosts[0]}"):$port
	for h in "${hosts[@]}"; do
		( [ $r = 0 ] && sleep 1
		  on "$h" "${BOOT_AS[@]}" "$NCTL" -j comm add bootstrap "$store" rank $r \
			size ${#hosts[@]} "$@" ) >"$T_LOG/$name.$r.out" 2>&1 &
		pids+=($!)
		r=$((r + 1))
	done
	for r in "${!pids[@]}"; do
		wait "${pids[$r]}" || { rc=1; echo "rank $r: $(cat "$T_LOG/$name.$r.out")"; }
	done
	return $rc
}

# The one id every rank of job NAME printed (nothing if they differ).
boot_id() {
	cat "$T_LOG/$1".*.out | python3 -c '
import json, sys
ids = {json.loads(l)["id"] for l in sys.stdin if l.startswith("{")}
print(ids.pop() if len(ids) == 1 else "")'
}

# members_are ID HOST "HOSTS": HOST's table of ID lists HOSTS' addresses in order.
members_are() {
	local id=$1 h=$2 want="" x
	for x in $3; do want+="${want:+,}$(cluster_mac "$x")"; done
	nc_json "$h" "','.join(m['address'] for m in d[0]['members']) == '$want'" comm show id "$id"
}

del_everywhere() { local h; for h in $ALL8; do on "$h" "$NCTL" comm del id "$1" || return 1; done; }

# --- whole jobs ---------------------------------------------------------------
t_check "8 ranks, the store at h1 (rank 0 started last): each made its side" boot b1 "$ALL8"
id=$(boot_id b1)
t_check "... all of the same communicator ($id)" test -n "$id"
t_check "... whose table is the hosts' addresses in rank order (h1, h8 see it)" \
	eval 'members_are "$id" h1 "$ALL8" && members_are "$id" h8 "$ALL8"'
t_check "alltoall 1, 1500, 65537 B and a barrier on it: every byte verified" \
	eval 'nc_check_all b1a --comm "$id" --op alltoall --bytes-list 1,1500,65537 &&
	      nc_check_all b1b --comm "$id" --op barrier'
t_check "comm del on every host" del_everywhere "$id"

REV=$(tr ' ' '\n' <<<"$ALL8" | grep . | tac | tr '\n' ' ')
t_check "ranks against the host order (rank 0 and the store on h8)" boot b2 "$REV"
id=$(boot_id b2)
t_check "... the table follows the ranks (rank 0 is h8's address)" members_are "$id" h1 "$REV"
t_check "... alltoall 4097 B, 3 times: every byte verified" \
	nc_ranks b2a "$REV" "$NC_CHECK" --comm "$id" --op alltoall --bytes 4097 --iters 3
t_check "... comm del" del_everywhere "$id"

# everything from the environment (what a launcher sets), and a key
env_boot() {
	local r=0 h pids=() rc=0
	port=$((port + 1))
	for h in $ALL8; do
		on "$h" env NETCOLL_STORE="$STORE:$port" NETCOLL_RANK=$r NETCOLL_SIZE=8 \
			NETCOLL_DEV=eth0 "$NCTL" -j comm add bootstrap "$STORE:$port" auth \
			>"$T_LOG/b3.$r.out" 2>&1 &
		pids+=($!)
		r=$((r + 1))
	done
	for r in "${!pids[@]}"; do wait "${pids[$r]}" || rc=1; done
	return $rc
}
t_check "rank and size from NETCOLL_RANK/NETCOLL_SIZE, auth" env_boot
id=$(boot_id b3)
t_check "... frames authenticated on every host" \
	eval 'for h in $ALL8; do nc_json $h "d[0][\"auth\"] is True" comm show id "$id" || exit 1; done'
t_check "... alltoall 9000 B: every byte verified" \
	nc_check_all b3a --comm "$id" --op alltoall --bytes 9000
t_check "... comm del" del_everywhere "$id"

# a program that only calls nc_open_bootstrap(): nothing but the
# environment.  app_boot NAME "HOSTS": rank r on the r-th of HOSTS.
app_boot() {
	local name=$1 hosts r pids=() rc=0
	read -r -a hosts <<<"$2"
	port=$((port + 1))
	for r in "${!hosts[@]}"; do
		on "${hosts[$r]}" env NETCOLL_STORE="$STORE:$port" NETCOLL_RANK="$r" \
			NETCOLL_SIZE=${#hosts[@]} NETCOLL_VERBOSE=1 "$NC_CHECK" --bootstrap \
			--op alltoall --bytes-list 1,3000,70000 >"$T_LOG/$name.$r.out" 2>&1 &
		pids+=($!)
	done
	for r in "${!pids[@]}"; do
		wait "${pids[$r]}" || { rc=1; echo "rank $r: $(tail -n 2 "$T_LOG/$name.$r.out")"; }
	done
	return $rc
}
t_check "nc_open_bootstrap() from the environment: alltoall 1, 3000, 70000 B verified" \
	app_boot b4 "$ALL8"
t_check "... and its communicator gone with the program, on every host" no_comms "$ALL8"
t_check "16 ranks, 2 on each host (rank r on host r % 8): alltoall 1, 3000, 70000 B verified" \
	app_boot b16 "$ALL8 $ALL8"
t_check "... and their communicators gone with the programs" no_comms "$ALL8"

# Killed in the middle: the kernel deletes the transient communicator with
# the file, no nc_close() needed.
app_killed() {
	local r h pids=() n=0
	port=$((port + 1))
	for r in 0 1; do
		h=h$((r + 1))
		on "$h" env NETCOLL_STORE="$STORE:$port" NETCOLL_RANK=$r NETCOLL_SIZE=2 \
			"$NC_CHECK" --bootstrap --op barrier --iters 100000000 \
			>"$T_LOG/b4k.$r.out" 2>&1 &
		pids+=($!)
	done
	# until both hosts have it (at most 20 s)
	while [ $n -lt 200 ]; do
		on h1 "$NCTL" -j comm list | grep -q '"id"' &&
			on h2 "$NCTL" -j comm list | grep -q '"id"' && break
		sleep 0.1
		n=$((n + 1))
	done
	# one PID namespace: this kills both ranks
	pkill -9 -f "nc_check --bootstrap --op barrier --iters 100000000"
	[ $n -lt 200 ] || { echo "no communicator after 20 s"; return 1; }
	wait "${pids[@]}" 2>/dev/null
	no_comms "h1 h2"
}
t_check "nc_open_bootstrap(): SIGKILLed mid-run, its communicator is gone on both hosts" app_killed

# --- failures -----------------------------------------------------------------
# launch NAME RANK HOST DELAY_S nctl-comm-add-args...: one rank in the
# background, its output in $T_LOG/NAME.RANK.out, its pid in PIDS[RANK].
declare -A PIDS=()
launch() {
	local name=$1 r=$2 h=$3 delay=$4
	shift 4
	( sleep "$delay"; on "$h" "$NCTL" -j comm add bootstrap "$STORE:$port" "$@" ) \
		>"$T_LOG/$name.$r.out" 2>&1 &
	PIDS[$r]=$!
}
# finish: wait for every launched rank (in this shell: they are its
# children); FINISHED gets "rank R: EXIT" lines, in rank order.
finish() {
	local r out=""
	for r in "${!PIDS[@]}"; do
		wait "${PIDS[$r]}"
		out+="rank $r: $?"$'\n'
	done
	PIDS=()
	FINISHED=$(sort <<<"${out%$'\n'}")
	echo "$FINISHED"
}
# said NAME RANK PATTERN: that rank's output matches.
said() { grep -qE -- "$3" "$T_LOG/$1.$2.out" || { echo "rank $2: $(cat "$T_LOG/$1.$2.out")"; return 1; }; }

missing_rank() {
	local r out
	port=$((port + 1))
	for r in 0 1 2 3; do launch b5 $r "h$((r + 1))" 0 rank $r size 5 wait 2000; done
	finish
	out=$FINISHED
	[ "$(grep -c ': 1$' <<<"$out")" = 4 ] || return 1
	for r in 0 1 2 3; do said b5 $r "rank 4 never arrived" || return 1; done
}
t_check "4 ranks of 5: every one fails after the wait, naming rank 4" missing_rank
t_check "... and none left a communicator" no_comms "h1 h2 h3 h4"

twice() {
	local out
	port=$((port + 1))
	launch b6 0 h1 0 rank 0 size 4
	launch b6 1 h2 0 rank 1 size 4
	launch b6 9 h6 1 rank 1 size 4		# rank 1 again, from h6
	launch b6 2 h3 0 rank 2 size 4
	launch b6 3 h4 3 rank 3 size 4		# rank 0 is still waiting for it
	finish
	out=$FINISHED
	[ "$out" = $'rank 0: 0\nrank 1: 0\nrank 2: 0\nrank 3: 0\nrank 9: 1' ] &&
		said b6 9 "rank 1 has arrived already"
}
t_check "rank 1 launched twice: the second refused (EADDRINUSE), the job made" twice
id=$(cat "$T_LOG"/b6.[0-3].out | python3 -c 'import json,sys; print({json.loads(l)["id"] for l in sys.stdin}.pop())')
t_check "... and works: barrier and alltoall 100 B" \
	eval 'nc_ranks b6a "h1 h2 h3 h4" "$NC_CHECK" --comm "$id" --op barrier &&
	      nc_ranks b6b "h1 h2 h3 h4" "$NC_CHECK" --comm "$id" --op alltoall --bytes 100'
t_check "... comm del" eval 'for h in h1 h2 h3 h4; do on $h "$NCTL" comm del id "$id" || exit 1; done'

id_taken() {
	local r out
	on h3 "$NCTL" comm add id 77 dev eth0 rank 0 members "$(cluster_mac h3)" || return 1
	port=$((port + 1))
	for r in 0 1 2 3; do launch b7 $r "h$((r + 1))" 0 rank $r size 4 id 77; done
	finish
	out=$FINISHED
	[ "$(grep -c ': 1$' <<<"$out")" = 4 ] || return 1
	for r in 0 1 2 3; do said b7 $r "rank 2 could not create communicator 77: File exists" || return 1; done
}
t_check "id 77 in use on h3: every rank fails, saying so" id_taken
t_check "... no half-made communicator: h3 has only its own 77, the others none" \
	eval 'nc_json h3 "len(d) == 1 and d[0][\"size\"] == 1" comm list && no_comms "h1 h2 h4"'
on h3 "$NCTL" comm del id 77

t_expect_fail "no rank 0 at the store: fails after the wait" "no rank 0 at $STORE:7099 within 1500 ms" \
	on h2 "$NCTL" comm add bootstrap "$STORE:7099" rank 1 size 2 wait 1500
t_expect_fail "a device not attached: says so" "device lo is not attached" \
	on h2 "$NCTL" comm add bootstrap "$STORE:7099" rank 1 size 2 dev lo
# A job token (NETCOLL_STORE_TOKEN): the ranks that have rank 0's meet;
# one with another token is refused (EACCES) and told nothing of the job.
token_ok() {
	local id BOOT_AS=(env NETCOLL_STORE_TOKEN=job-4711-secret-token)	# seen by boot
	boot tokok "h1 h2" || return 1
	id=$(boot_id tokok)
	on h1 "$NCTL" comm del id "$id" && on h2 "$NCTL" comm del id "$id"
}
t_check "the same job token on both ranks: they meet" token_ok
token_other() {
	local p0 rc=0
	on h1 env NETCOLL_STORE_TOKEN=job-4711-secret-token "$NCTL" -j comm add bootstrap "$STORE:7096" \
		rank 0 size 2 wait 3000 >"$T_LOG/tok.0.out" 2>&1 &
	p0=$!
	sleep 1
	on h2 env NETCOLL_STORE_TOKEN=job-4712-secret-token "$NCTL" -j comm add bootstrap "$STORE:7096" \
		rank 1 size 2 wait 3000 >"$T_LOG/tok.1.out" 2>&1 && rc=1
	wait "$p0" && rc=1
	said tok 1 "job token .* is not rank 0's" || rc=1
	grep -q "counts" "$T_LOG/tok.1.out" && rc=1
	return $rc
}
t_check "another token: EACCES, nothing of the job told; rank 0 times out" token_other
t_expect_fail "a token of 15 bytes: refused before anything is sent" "NETCOLL_STORE_TOKEN must have 16 to 64 bytes" \
	on h2 env NETCOLL_STORE_TOKEN=job-4711-secre "$NCTL" comm add bootstrap "$STORE:7099" rank 1 size 2 wait 1500
t_expect_fail "... and an empty one" "NETCOLL_STORE_TOKEN must have 16 to 64 bytes" \
	on h2 env NETCOLL_STORE_TOKEN= "$NCTL" comm add bootstrap "$STORE:7099" rank 1 size 2 wait 1500
t_check "nothing left anywhere" no_comms "$ALL8"

# --- users' communicators ------------------------------------------------------
H4="h1 h2 h3 h4"
t_check "a user's bootstrap on a device not opened to users: EPERM on every rank" \
	eval 'BOOT_AS=("${USER1[@]}"); ! boot u0 "$H4" wait 5000 &&
	      for r in 0 1 2 3; do said u0 $r "only the admin may make communicators on this device" || exit 1; done'
BOOT_AS=()
t_check "the admin opens eth0 to users on h1..h4: at most 2 communicators each" \
	eval 'for h in $H4; do on $h "$NCTL" dev set dev eth0 user-comms on user-comms-max 2 || exit 1; done'
t_check "... dev show says so" nc_json h3 'd[0]["user_comms"] is True and d[0]["user_comms_max"] == 2' dev show
# In a user namespace of its own one user could be 65536 (its /etc/subuid
# range, with setuid() there), each with a quota: refused, even as "root"
# there (unshare -r; here it maps only uid 1000 itself, which the module
# before this check let make a communicator).
userns_refused() {
	local out
	if out=$(on h1 "${USER1[@]}" unshare -U -r "$NCTL" comm add id 0x10000906 dev eth0 \
		rank 0 members "$(cluster_mac h1)" 2>&1); then
		echo "made: $out"
		on h1 "$NCTL" comm del id 0x10000906
		return 1
	fi
	echo "$out"
	grep -q "in a user namespace may not make communicators" <<<"$out"
}
t_check "user 1000 in a user namespace of its own: EPERM, quotas are per user of the host" \
	userns_refused
# Ids below 0x10000000 are the admin's (as ports below 1024 are root's):
# a user taking 901 first would leave the admin's script that makes it EEXIST.
t_expect_fail "a user's communicator with an id below 0x10000000 (the admin's): EPERM" \
	"Operation not permitted: ids below 0x10000000 are the admin's" \
	on h1 "${USER1[@]}" "$NCTL" comm add id 901 dev eth0 rank 0 members "$(cluster_mac h1)"
t_check "... the admin makes 901 there" \
	eval 'on h1 "$NCTL" comm add id 901 dev eth0 rank 0 members "$(cluster_mac h1)" &&
	      on h1 "$NCTL" comm del id 901'
t_check "user 1000 bootstraps a communicator on h1..h4" eval 'BOOT_AS=("${USER1[@]}"); boot u1 "$H4"'
uid1=$(boot_id u1)
t_check "... with an id from the users' range ($uid1)" eval '[ "$uid1" -ge $((0x10000000)) ]'
t_check "... it is theirs (owner 1000 on every host)" \
	eval 'for h in $H4; do nc_json $h "d[0][\"owner\"] == 1000" comm show id "$uid1" || exit 1; done'
t_check "... and they run an alltoall on it, every byte verified" \
	eval 'NC_RANKS_AS=("${USER1[@]}")
	      nc_ranks u1a "$H4" "$NC_CHECK" --comm "$uid1" --op alltoall --bytes 3000'
NC_RANKS_AS=()
t_check "user 1000's second communicator" eval 'BOOT_AS=("${USER1[@]}"); boot u2 "$H4"'
t_check "... the third: EDQUOT, 2 is the device's limit" \
	eval 'BOOT_AS=("${USER1[@]}"); ! boot u3 "$H4" &&
	      said u3 0 "Disk quota exceeded: .*as many communicators as the device allows"'
t_check "... while user 1001 still has its own 2" eval 'BOOT_AS=("${USER2[@]}"); boot u4 "$H4"'
t_expect_fail "a user's communicator for another owner: EPERM" "is its own" \
	on h1 "${USER1[@]}" "$NCTL" comm add id 0x10000901 dev eth0 rank 0 members "$(cluster_mac h1)" owner 0
t_expect_fail "... or with more memory than the module's default: EPERM" "above the module's defaults" \
	on h1 "${USER2[@]}" "$NCTL" comm add id 0x10000902 dev eth0 rank 0 members "$(cluster_mac h1)" mem 2000000000
t_expect_fail "user 1001 may not delete user 1000's communicator" "owner or an admin" \
	on h1 "${USER2[@]}" "$NCTL" comm del id "$uid1"
t_expect_fail "a user's communicator with a reserved group address (01:80:c2:00:00:0e, LLDP's): EPERM" \
	"a user's group address is one of netcoll's own" \
	on h2 "${USER2[@]}" "$NCTL" comm add id 0x10000907 dev eth0 rank 0 members "$(cluster_mac h2)" \
		mcast 01:80:c2:00:00:0e
t_check "... one of netcoll's own (03:6e:63:00:09:07): made" \
	eval 'on h2 "${USER2[@]}" "$NCTL" comm add id 0x10000907 dev eth0 rank 0 members "$(cluster_mac h2)" \
		mcast 03:6e:63:00:09:07 && on h2 "${USER2[@]}" "$NCTL" comm del id 0x10000907'
t_check "user 1000 deletes one: its quota has room again" \
	eval 'for h in $H4; do on $h "${USER1[@]}" "$NCTL" comm del id "$uid1" || exit 1; done &&
	      BOOT_AS=("${USER1[@]}"); boot u5 "$H4"'
t_check "user-mem 100 MiB on h1: user 1001's one default communicator (72 MiB) leaves no room" \
	on h1 "$NCTL" dev set dev eth0 user-mem 104857600
t_expect_fail "... for its second: EDQUOT, though its count (1 of 2) allows it" "memory limit for users" \
	on h1 "${USER2[@]}" "$NCTL" comm add id 0x10000903 dev eth0 rank 0 members "$(cluster_mac h1)"
# What a user installs on its communicators (an alltoall schedule, trees, a
# broadcast order) is kernel memory for as long as they live: it counts
# against the owner's quota with their memory limits.  On h4 user 1001
# gives back its side of u4 and makes 0x10000908 (limits 100000 + 100000 bytes)
# under a user-mem of 331072: room for one more of 65536 + 65536, exactly,
# only while nothing is installed on 0x10000908.
H4MACS=$(for h in $H4; do cluster_mac "$h"; done | paste -sd,)
u2_comm() { # ID MEM : user 1001's communicator ID on h4 (rank 3 of H4)
	on h4 "${USER2[@]}" "$NCTL" comm add id "$1" dev eth0 rank 3 members "$H4MACS" \
		mem "$2" rx-mem "$2"
}
room_on_h4() {
	local i
	on h4 "${USER2[@]}" "$NCTL" comm del id "$(boot_id u4)" &&
		on h4 "$NCTL" dev set dev eth0 user-mem 331072 || return 1
	for i in $(seq 50); do	# u4 is freed after a grace period, by a worker
		u2_comm 0x10000908 100000 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
t_check "user 1001 on h4: 0x10000908 with 200000 bytes of limits under a user-mem of 331072" room_on_h4
t_check "... installs an alltoall schedule on it" \
	on h4 "${USER2[@]}" "$NCTL" sched install id 0x10000908 topology star:4
# comm show counts those bytes (and what operations hold: nothing here)
installed_908() {
	on h4 "$NCTL" -j comm show id 0x10000908 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["installed"])'
}
t_check "... which comm show counts, for its owner too: installed $(installed_908) bytes, nothing posted or received" \
	eval 'on h4 "${USER2[@]}" "$NCTL" -j comm show id 0x10000908 | python3 -c "
import json, sys
c = json.load(sys.stdin)[0]
sys.exit(not (0 < c[\"installed\"] <= 331072 - 200000 and c[\"mem_used\"] == 0 and c[\"rx_mem_used\"] == 0))"'
t_expect_fail "... then 0x10000909 (131072 bytes, the room left without the schedule): EDQUOT" \
	"Disk quota exceeded: .*memory limit for users" u2_comm 0x10000909 65536
t_check "... deletes the schedule: 0x10000909 fits, to the byte" \
	eval 'on h4 "${USER2[@]}" "$NCTL" sched del id 0x10000908 && u2_comm 0x10000909 65536'
t_check "... and comm show counts 0 installed bytes" nc_json h4 'd[0]["installed"] == 0' comm show id 0x10000908
t_expect_fail "... and now may not install the schedule: EDQUOT" \
	"Disk quota exceeded: .*what is installed on them would exceed" \
	on h4 "${USER2[@]}" "$NCTL" sched install id 0x10000908 topology star:4
t_expect_fail "... nor a broadcast order: EDQUOT" \
	"Disk quota exceeded: .*what is installed on them would exceed" \
	on h4 "${USER2[@]}" "$NCTL" tree bcast topology star:4 install 0x10000908 order dft
t_expect_fail "... nor a reduction tree: EDQUOT" \
	"Disk quota exceeded: .*what is installed on them would exceed" \
	on h4 "${USER2[@]}" "$NCTL" tree install comm 0x10000908 degree 2 topology star:4
# 0x10000909 deleted still counts (as the second of 2) until a worker frees it;
# then the admin's schedule on 0x10000908 is what leaves no room.
admin_counts() {
	local i
	on h4 "$NCTL" sched install id 0x10000908 topology star:4 &&
		on h4 "${USER2[@]}" "$NCTL" comm del id 0x10000909 || return 1
	for i in $(seq 50); do
		if u2_comm 0x10000909 65536 >"$T_LOG/inst.err" 2>&1; then
			echo "0x10000909 made: the admin's schedule on 0x10000908 was not counted"
			return 1
		fi
		grep -q "memory limit for users" "$T_LOG/inst.err" && return 0
		sleep 0.1
	done
	cat "$T_LOG/inst.err"
	return 1
}
t_check "... the admin may, and it counts: 0x10000909 made again is EDQUOT" admin_counts
back_with_908() {
	local i
	on h4 "${USER2[@]}" "$NCTL" comm del id 0x10000908 || return 1
	for i in $(seq 50); do	# once a worker has freed 0x10000908
		u2_comm 0x10000909 65536 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
t_check "... 0x10000908 deleted, its schedule's bytes come back with it: 0x10000909 made" back_with_908
t_check "... and deleted" on h4 "${USER2[@]}" "$NCTL" comm del id 0x10000909
# A deleted communicator an endpoint still holds (with what its operations
# posted) counts against its owner until the endpoint lets it go: user
# 1001 on h3 (u4 and 0x10000905: 2 of 2) binds a process to 0x10000905 and deletes it;
# a new one is EDQUOT until that process exits.  Counted only while in
# the table, a user could delete a bound one, make another, and so hold
# any number of times the device's limits.
gone_counts() {
	local gate=$T_LOG/gone.gate pid i rc=0 made=0 mac
	mac=$(cluster_mac h3)
	rm -f "$gate"
	on h3 "${USER2[@]}" "$NCTL" comm add id 0x10000905 dev eth0 rank 0 members "$mac" || return 1
	on h3 "${USER2[@]}" "$NC_BCAST_CHECK" --comm 0x10000905 --rank 0 --size 1 --roots 0 \
		--bytes-list 10 --post-file "$gate" >"$T_LOG/gone.log" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		nc_json h3 'd[0]["bound"]' comm show id 0x10000905 2>/dev/null && break
		sleep 0.1
	done
	on h3 "${USER2[@]}" "$NCTL" comm del id 0x10000905 || rc=1
	if on h3 "${USER2[@]}" "$NCTL" comm add id 0x10000906 dev eth0 rank 0 members "$mac" \
		>"$T_LOG/gone.add" 2>&1; then
		echo "0x10000906 made while 0x10000905 is still held"
		rc=1
	fi
	cat "$T_LOG/gone.add"
	grep -q "as many communicators as the device allows" "$T_LOG/gone.add" || rc=1
	touch "$gate"
	wait "$pid"
	# freed after a grace period, by a worker
	for i in $(seq 50); do
		on h3 "${USER2[@]}" "$NCTL" comm add id 0x10000906 dev eth0 rank 0 members "$mac" \
			2>/dev/null && { made=1; break; }
		sleep 0.1
	done
	echo "0x10000906 made once the endpoint closed: $made"
	on h3 "$NCTL" comm del id 0x10000906
	[ $rc = 0 ] && [ $made = 1 ]
}
t_check "a user's deleted communicator still bound counts against its quota until its endpoint closes" \
	gone_counts
t_check "user-comms off: those made stay (3 on h2), new ones are refused" \
	eval 'on h2 "$NCTL" dev set dev eth0 user-comms off &&
	      nc_json h2 "len(d) == 3" comm list &&
	      ! on h2 "${USER1[@]}" "$NCTL" comm add id 0x10000904 dev eth0 rank 0 members "$(cluster_mac h2)"'
BOOT_AS=()
# del_all HOSTS: the admin deletes every communicator there.
del_all() {
	local h id
	for h in $1; do
		for id in $(on "$h" "$NCTL" -j comm list | python3 -c \
			'import json,sys; print(*[c["id"] for c in json.load(sys.stdin)])'); do
			on "$h" "$NCTL" comm del id "$id" || return 1
		done
	done
}
t_check "the admin deletes the users' communicators" del_all "$H4"
t_check "nothing left anywhere" no_comms "$ALL8"

t_check "rmmod" nc_unload
t_done
