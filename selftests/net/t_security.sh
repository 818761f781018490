#!/bin/bash
# The hostile local user and the hostile frame: every attack of the
# security issue, each asserting the safe outcome.  Owned communicators
# (EACCES, EPERM), handles that belong to their endpoint (EBADF, EBUSY),
# bounded memory given back on close (ENOBUFS, EAGAIN, /proc/meminfo), a
# failed operation breaking the communicator instead of mixing calls
# (ENOTRECOVERABLE, never wrong data), authenticated frames (drop_auth,
# drop_replay), bounded repair and join answers (drop_ratelimit), and
# epochs against replays into a re-created communicator (drop_epoch).
T_NAME=security
source "$(dirname "$0")/lib.sh"

HOSTILE=$NC_BUILD/selftests/net/nc_hostile
OWNER=1000		# the job's user
NOBODY=65534		# anybody else

# "on HOST" runs commands, not functions: these prefixes change the user.
as_owner=(setpriv --reuid=$OWNER --regid=$OWNER --clear-groups)
as_nobody=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups)
as_member=(setpriv --reuid=1001 --regid=1001 --groups=2000)
as_other=(setpriv --reuid=1001 --regid=1001 --clear-groups)

# tally_n N FILE : FILE's result lines, which must be N in all.
tally_n() {
	local n
	n=$(grep -cE '^(not )?ok - ' "$2")
	t_tally <"$2"
	[ "$n" -eq "$1" ] || t_fail "$(basename "$2"): $n results, expected $1 ($(tail -n 2 "$2" | tr '\n' ' '))"
}

# comm_up ID HOSTS NCTL_ARGS... : communicator ID over HOSTS (rank order).
comm_up() {
	local id=$1 hosts=($2) h r=0 members=""
	shift 2
	for h in "${hosts[@]}"; do members+="${members:+,}$(cluster_mac "$h")"; done
	for h in "${hosts[@]}"; do
		on "$h" "$NCTL" comm add id "$id" dev eth0 rank $r members "$members" "$@" ||
			return 1
		r=$((r + 1))
	done
}

comm_del() {
	local id=$1 h
	for h in $ALL4; do on "$h" "$NCTL" comm del id "$id" 2>/dev/null; done
	return 0
}

# red_all LOG ID nc_red_check args : on every host at once; all must pass.
red_all() {
	local name=$1 id=$2 h r=0 pids=() rc=0 i
	shift 2
	for h in $ALL4; do
		on "$h" "$NC_RED_CHECK" --comm "$id" --rank $r --size 4 "$@" \
			>"$T_LOG/$name.$h.log" 2>&1 &
		pids+=($!)
		r=$((r + 1))
	done
	i=0
	for h in $ALL4; do
		wait "${pids[$i]}" || { rc=1; echo "$h: $(grep -m2 "^not ok" "$T_LOG/$name.$h.log")"; }
		i=$((i + 1))
	done
	return $rc
}

# Counter deltas: snap HOST, then delta HOST COUNTER.
snap() { nc_stats_save "$1" "$T_LOG/snap.$1.json"; }
delta() { nc_stats_since "$T_LOG/snap.$1.json" "$1" "$2"; }

# Replays: record_start NAME captures h2's outgoing frames into
# $T_LOG/NAME.frames until record_wait; replay_to_h1 NAME TIMES snapshots
# h1's counters, sends the capture TIMES times to h1 and lets it count them.
record_start() { nc_record_start h2 "$T_LOG/$1.frames" 400; }
record_wait() { nc_record_stop; }
replay_to_h1() {
	snap h1
	on h2 "$NC_REPLAY" replay --dev eth0 --in "$T_LOG/$1.frames" --to "$H1MAC" --times "$2" \
		>"$T_LOG/replay-$1-$2.log" 2>&1
	sleep 0.5
}
drops_delta() {
	echo $(( $(nc_drops "$1") - $(nc_stats_sum "$T_LOG/snap.$1.json" 'drop_*') ))
}

cluster_star 4 >/dev/null || { t_fail "cluster up"; t_done; exit 1; }
nc_load || { t_fail "insmod"; t_done; exit 1; }
ALL4=$(cluster_hosts | tr '\n' ' ')
H1MAC=$(cluster_mac h1)
for h in $ALL4; do on "$h" "$NCTL" dev attach dev eth0; done

# --- 2. only the owner, its group or the admin may bind -------------------
t_check "comm 1 (root's) on 4 hosts" comm_up 1 "$ALL4"
on h1 "$NCTL" comm add id 2 dev eth0 rank 0 members "$H1MAC" owner $OWNER group $OWNER
on h1 "$NCTL" comm add id 3 dev eth0 rank 0 members "$H1MAC" owner $OWNER group 2000
{
	on h1 "${as_nobody[@]}" "$HOSTILE" bind-denied 1 0
	on h1 "${as_owner[@]}" "$HOSTILE" bind-denied 1 0
	on h1 "${as_nobody[@]}" "$HOSTILE" bind-denied 2 0
	on h1 "${as_owner[@]}" "$HOSTILE" bind 2 0
	on h1 "${as_member[@]}" "$HOSTILE" bind 3 0
	on h1 "${as_other[@]}" "$HOSTILE" bind-denied 3 0
	on h1 "$HOSTILE" bind 2 0		# root is the admin
	# ... but not on a file nobody opened and handed it (2 results)
	on h1 "$HOSTILE" bind-deputy 2 0 $NOBODY
} >"$T_LOG/bind.log" 2>&1
tally_n 9 "$T_LOG/bind.log"
# No group named: nobody binds by group, not even in the creator's
# primary group (the default before; where users share one, gid 100
# "users", that was all of them).  Here the creator is root: group 0.
on h1 "$NCTL" comm add id 12 dev eth0 rank 0 members "$H1MAC" owner $OWNER
t_check "no group named: a user in the creator's primary group may not bind (EACCES), none shown" \
	eval 'on h1 setpriv --reuid=1001 --regid=0 --clear-groups "$HOSTILE" bind-denied 12 0 &&
	      nc_json h1 "\"group\" not in d[0]" comm show id 12'
on h1 "$NCTL" comm del id 12
secrets_shown() {
	on h1 "${as_owner[@]}" "$NCTL" -j comm show id 2 | grep -q epoch &&
		! on h1 "${as_nobody[@]}" "$NCTL" -j comm show id 2 | grep -q epoch
}
t_check "the owner sees its cookie and epoch; nobody else does" secrets_shown
# /proc/net/netcoll_ops shows every user's operations: the namespace's
# root reads it, nobody else (mode 0400).
t_expect_fail "only root reads /proc/net/netcoll_ops (EACCES)" "Permission denied" \
	on h1 "${as_owner[@]}" cat /proc/net/netcoll_ops
ops_listed() { on h1 cat /proc/net/netcoll_ops | grep -q '^comm 2 rank 0/1: '; }
t_check "... root does: the owner's comm 2 is listed" ops_listed
t_expect_fail "nobody may delete the owner's communicator (EPERM)" "owner or an admin" \
	on h1 "${as_nobody[@]}" "$NCTL" comm del id 3
# The requester is its effective uid, as at BIND: a process whose real
# uid is the owner's and effective uid is not (a daemon acting for
# another user with seteuid()) is not the owner; before, the real uid on
# the request's credentials was taken.
t_expect_fail "real uid the owner's, effective uid nobody's: not the owner (EPERM)" "owner or an admin" \
	on h1 setpriv --ruid=$OWNER --euid=$NOBODY --regid=$NOBODY --clear-groups "$NCTL" comm del id 3
owner_changes() {
	on h1 setpriv --ruid=$NOBODY --euid=$OWNER --regid=$OWNER --clear-groups "$NCTL" sched del id 3 &&
		on h1 "${as_owner[@]}" "$NCTL" comm del id 3
}
t_check "the owner (its effective uid) may reconfigure and delete its own" owner_changes
# A communicator the admin makes without naming an owner has none: root
# without CAP_NET_ADMIN (a container's root on the host's network) is
# not the admin, and may neither delete it nor see its cookie.  Before,
# it was owned by uid 0.
no_net_admin=(setpriv --bounding-set=-net_admin --inh-caps=-net_admin)
t_check "the admin's comm 1 has no owner" nc_json h1 '"owner" not in d[0]' comm show id 1
t_expect_fail "... root without CAP_NET_ADMIN may not delete it (EPERM)" "owner or an admin" \
	on h1 "${no_net_admin[@]}" "$NCTL" comm del id 1
t_check "... nor see its cookie" \
	eval '! on h1 "${no_net_admin[@]}" "$NCTL" -j comm show id 1 | grep -q cookie'
# The events group tells of every communicator's failures, other users'
# too: only the admin may subscribe.  Before, anybody could.
t_expect_fail "a user may not subscribe to the events group (EPERM)" \
	"cannot subscribe to events: Operation not permitted" \
	on h1 "${as_nobody[@]}" "$NCTL" monitor -n 1 --timeout 100
t_expect_fail "... nor root without CAP_NET_ADMIN" \
	"cannot subscribe to events: Operation not permitted" \
	on h1 "${no_net_admin[@]}" "$NCTL" monitor -n 1 --timeout 100

# --- 1, 3. handles belong to their endpoint; no double free ---------------
{
	on h1 "${as_owner[@]}" "$HOSTILE" handles 2
	on h1 "${as_owner[@]}" "$HOSTILE" race-wait 2 200
	on h1 "${as_owner[@]}" "$HOSTILE" wait-close 2 200
} >"$T_LOG/handles.log" 2>&1
tally_n 12 "$T_LOG/handles.log"
echo 16 >/sys/module/netcoll/parameters/ep_ops_max
on h1 "${as_owner[@]}" "$HOSTILE" ops-limit 2 16 >"$T_LOG/ops-limit.log" 2>&1
echo 1024 >/sys/module/netcoll/parameters/ep_ops_max
tally_n 3 "$T_LOG/ops-limit.log"

# --- 4. bounded memory, back on close -------------------------------------
# Two members, the second never joins in: what rank 0 posts stays posted.
on h1 "$NCTL" comm add id 4 dev eth0 rank 0 members "$H1MAC,$(cluster_mac h2)" owner $OWNER
snap h1
on h1 "${as_owner[@]}" "$HOSTILE" memory 4 0 16 72 >"$T_LOG/memory.log" 2>&1
tally_n 3 "$T_LOG/memory.log"
t_check "closing cancelled the posted operations (ops_cancelled +$(delta h1 ops_cancelled))" \
	test "$(delta h1 ops_cancelled)" -ge 3
t_check "... which leaves the communicator broken (its peers may have started them)" \
	nc_json h1 'd[0]["state"] == "broken"' comm show id 4
on h1 "$NCTL" comm del id 4
# Deleted while its file stays open: what the operations held goes with
# their WAITs, not at close.
on h1 "$NCTL" comm add id 4 dev eth0 rank 0 members "$H1MAC,$(cluster_mac h2)" owner $OWNER
on h1 "${as_owner[@]}" "$HOSTILE" memory-del 4 0 16 72 "$NCTL comm del id 4" \
	>"$T_LOG/memory-del.log" 2>&1
tally_n 5 "$T_LOG/memory-del.log"

# --- 3b. an operation only some ranks ran: errors, never another's data ----
t_check "comm 5 (the owner's) on 4 hosts" comm_up 5 "$ALL4" owner $OWNER
t_check "h1 alone runs an allreduce: ETIMEDOUT" \
	on h1 "${as_owner[@]}" "$NC_RED_CHECK" --comm 5 --rank 0 --size 4 --all --ops sum \
	--dtypes int64 --count-list 4 --timeout 300 --expect-error ETIMEDOUT
t_check "h1 is broken (ENOTRECOVERABLE), the others time out on it; no result is another call's" \
	red_all drift 5 --all --ops sum --dtypes int64 --count-list 4 --iters 24 \
	--timeout 1500 --expect-error ANY
t_check "... h1's error is ENOTRECOVERABLE at once" \
	grep -q "got State not recoverable (iteration 0)" "$T_LOG/drift.h1.log"
t_check "comm 6 on 4 hosts" comm_up 6 "$ALL4"
t_check "h1 alone runs an alltoall: ETIMEDOUT" \
	on h1 "$NC_CHECK" --comm 6 --rank 0 --size 4 --op alltoall --bytes 1000 \
	--timeout 300 --expect-error ETIMEDOUT
drift_a2a() {
	local h r=0 pids=() rc=0 p
	for h in $ALL4; do
		on "$h" "$NC_CHECK" --comm 6 --rank $r --size 4 --op alltoall --bytes 1000 \
			--iters 24 --timeout 1500 --expect-error ANY >"$T_LOG/drift-a2a.$h.log" 2>&1 &
		pids+=($!)
		r=$((r + 1))
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	return $rc
}
t_check "alltoall after it: every rank fails, every block before a failure verified" drift_a2a

# --- 5. forged frames on a keyed communicator ------------------------------
head -c 32 /dev/urandom >"$T_LOG/key"
t_check "comm 7 with a key on 4 hosts" comm_up 7 "$ALL4" key "$T_LOG/key" cookie 0x77
t_check "... authenticated" nc_json h1 'd[0]["auth"] and "key" not in d[0]' comm show id 7
epoch7=$(nc_epoch h1 7)
snap h1
for k in agg-wrongop agg-length agg-seq; do
	on h2 "$NC_INJECT" --dev eth0 --dst "$H1MAC" --comm 7 --cookie 0x77 --epoch "$epoch7" \
		--src-rank 1 --dst-rank 0 --case $k --count 50 >/dev/null
done
on h2 "$NC_INJECT" --dev eth0 --dst "$H1MAC" --comm 7 --cookie 0x77 --epoch "$epoch7" \
	--src-rank 1 --dst-rank 0 --case state --count 50 >/dev/null
sleep 0.3
t_check "200 forged frames from rank 1's address, valid but for the tag: all drop_auth ($(delta h1 drop_auth))" \
	test "$(delta h1 drop_auth)" -eq 200
t_check "the allreduce those forged contributions aimed at: bit-exact" \
	red_all keyed 7 --all --ops sum,minloc --dtypes double,int32 --count-list 2,5000
t_check "alltoall on the keyed communicator: verified" \
	nc_check_all keyed-a2a --comm 7 --op alltoall --bytes-list 1,1420,100000

# --- 6. repair and join requests are not amplified -------------------------
# A multicast result is repaired on request (a tree's large result goes
# in a window its children ack: below).
t_check "allreduce of 100000 doubles on comm 1, multicast (op 0: rank 0 keeps its result)" \
	red_all big 1 --all --ops sum --dtypes double --count-list 100000 --split 1 \
	--dist mcast --timeout 60000
epoch1=$(nc_epoch h1 1)
snap h1
t0=${EPOCHREALTIME/./}
on h2 "$NC_INJECT" --dev eth0 --dst "$H1MAC" --comm 1 --cookie 0 --epoch "$epoch1" \
	--src-rank 1 --dst-rank 0 --case agg-nack --seq 0 --count 500 >/dev/null
inject_ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 + 1 ))
sleep 0.5
sent=$(delta h1 tx_frames)
refused=$(delta h1 drop_ratelimit)
repaired=$(delta h1 agg_repairs)
# One asker is answered once per interval, and the interval doubles from
# rto_min_ms on each answer: over T ms at most 1 + log2(T / rto_min + 1)
# answers of up to 64 fragments, however many requests came (a slow guest
# takes longer to inject them, so the bound follows the time they took).
# A refused request is answered with one ack (the asker may be alive and
# slow): one small frame for one, no amplification.
rto_min=$(cat /sys/module/netcoll/parameters/rto_min_ms)
answers=$(awk -v t="$inject_ms" -v r="$rto_min" 'BEGIN { print 1 + int(log(t / r + 1) / log(2)) }')
t_check "500 forged repair requests (35 KB, sent in $inject_ms ms): rank 0 resent $repaired fragments, not 32000, at most 64 x $answers answers ($refused refused, $sent frames in all)" \
	test "$repaired" -gt 0 -a "$repaired" -le $((64 * answers)) -a \
	"$refused" -gt 400 -a "$sent" -le $((500 + 64 * answers))
# A request for holes seen (wire 3) bypasses the interval, not the rule:
# each hole once per asker, so 500 copies get one answer of at most 64
# fragments, and what rank 1 already had (above) is not counted again.
snap h1
on h2 "$NC_INJECT" --dev eth0 --dst "$H1MAC" --comm 1 --cookie 0 --epoch "$epoch1" \
	--src-rank 1 --dst-rank 0 --case agg-holes --seq 0 --count 500 >/dev/null
sleep 0.5
repaired=$(delta h1 agg_repairs)
refused=$(delta h1 drop_ratelimit)
t_check "500 forged requests for holes: $repaired fragments resent (at most 64, once), $refused refused" \
	test "$repaired" -le 64 -a "$refused" -ge 499
# A large result down the tree is a windowed message: what a child asks
# for is answered from what it acked.  Rank 1 acked all of op 1, so its
# 500 forged requests get no fragment, only "alive": one frame for one.
t_check "allreduce of 100000 doubles on comm 1 down the tree (op 1: windowed)" \
	red_all big2 1 --all --ops sum --dtypes double --count-list 100000 --split 1 \
	--timeout 60000
snap h1
on h2 "$NC_INJECT" --dev eth0 --dst "$H1MAC" --comm 1 --cookie 0 --epoch "$epoch1" \
	--src-rank 1 --dst-rank 0 --case agg-nack --seq 1 --count 500 >/dev/null
sleep 0.5
sent=$(delta h1 tx_frames)
repaired=$(delta h1 agg_repairs)
t_check "500 forged requests for a windowed result rank 1 acked: $repaired fragments resent, $sent frames in all" \
	test "$repaired" = 0 -a "$sent" -le 510
snap h1
on h2 "$NC_INJECT" --dev eth0 --dst "$H1MAC" --comm 1 --cookie 0 --epoch 0 \
	--src-rank 1 --dst-rank 0 --case join --count 500 >/dev/null
sleep 0.5
sent=$(delta h1 tx_frames)
refused=$(delta h1 drop_ratelimit)
t_check "500 forged joins: rank 0 answered $sent ($refused refused)" \
	test "$sent" -le 8 -a "$refused" -ge 490
# A JOIN with another nonce is challenged first: a request that cannot
# echo the challenge (it went to the member) changes nothing.
t_check "... challenged, not believed: the communicator is still ready" \
	nc_json h1 'd[0]["state"] == "ready"' comm show id 1
snap h1
on h2 "$NC_INJECT" --dev eth0 --dst "$H1MAC" --comm 7 --cookie 0x77 --epoch 0 \
	--src-rank 1 --dst-rank 0 --case join --count 500 >/dev/null
sleep 0.5
t_check "500 forged joins on the keyed comm 7: all drop_auth, nothing answered, still ready" \
	test "$(delta h1 drop_auth)" -eq 500 -a "$(delta h1 tx_frames)" -eq 0 -a \
	"$(nc_json h1 'd[0]["state"] == "ready"' comm show id 7 && echo y)" = y

# --- 7. replays into a re-created communicator; re-created on one host -----
t_check "comm 8 on 4 hosts" comm_up 8 "$ALL4" cookie 0x88
run8() {
	red_all "$1" 8 --all --ops sum --dtypes double --count-list 1,3000 --iters 3 &&
		nc_check_all "$1-a2a" --comm 8 --op alltoall --bytes-list 100,5000
}
record_start run8
t_check "a run to capture: allreduce and alltoall on comm 8" run8 run8
record_wait
comm_del 8
t_check "comm 8 deleted and created again, same id and cookie" comm_up 8 "$ALL4" cookie 0x88
replay_to_h1 run8 3
t_check "the old run's frames, replayed 3 times into the new one: dropped (drop_epoch +$(delta h1 drop_epoch), drop_rank +$(delta h1 drop_rank))" \
	test "$(delta h1 drop_epoch)" -gt 0 -a "$(delta h1 rx_frames)" -eq 0
t_check "the new incarnation's allreduce and alltoall: verified" run8 new8

record_start run7
t_check "a run to capture on the keyed comm 7" \
	red_all run7 7 --all --ops sum --dtypes double --count-list 1,3000 --iters 3
record_wait
replay_to_h1 run7 1
t_check "replayed into the same keyed incarnation: dropped (drop_replay +$(delta h1 drop_replay), drop_rank +$(delta h1 drop_rank))" \
	test "$(delta h1 drop_replay)" -gt 0 -a "$(delta h1 rx_frames)" -eq 0
t_check "... and the next allreduce: bit-exact" \
	red_all after7 7 --all --ops sum --dtypes double --count-list 3000
# Jumbo frames come back in pages: nc_replay sends a frame longer than a
# page from an AF_PACKET socket with only its Ethernet header linear
# (packet_alloc_skb), and veth hands the skb over as it is.  h1 checks
# the tag of such a frame where its bytes lie, before it copies anything
# (nck_auth_open): every one of h2's frames to h1 passes it and is then
# dropped as a replay; none fails it.
jumbo_run() {
	cluster_mtu 9000 && comm_up 11 "$ALL4" key "$T_LOG/key" cookie 0x11 || return 1
	record_start jumbo11
	nc_check_all jumbo11 --comm 11 --op alltoall --bytes-list 100000
	local rc=$?
	record_wait
	return $rc
}
# paged_to_h1 FILE: the captured frames to h1 longer than a page
paged_to_h1() {
	python3 - "$1" "$H1MAC" <<'PY'
import struct, sys
data, mac = open(sys.argv[1], "rb").read(), bytes.fromhex(sys.argv[2].replace(":", ""))
n = off = 0
while off + 2 <= len(data):
    (length,) = struct.unpack_from("<H", data, off)
    frame = data[off + 2:off + 2 + length]
    n += length > 4096 and frame[:6] == mac
    off += 2 + length
print(n)
PY
}
t_check "a run to capture on keyed comm 11 at MTU 9000: alltoall verified" jumbo_run
replay_to_h1 jumbo11 1
paged=$(paged_to_h1 "$T_LOG/jumbo11.frames")
t_check "its $paged frames of more than a page to h1, replayed: authenticated in pages, dropped as replays (drop_replay +$(delta h1 drop_replay), drop_auth +$(delta h1 drop_auth))" \
	test "${paged:-0}" -gt 0 -a "$(delta h1 drop_replay)" -ge "${paged:-0}" \
	-a "$(delta h1 drop_auth)" -eq 0 -a "$(delta h1 rx_frames)" -eq 0
comm_del 11
t_check "MTU back to 1500" cluster_mtu 1500

comm_del 7
t_check "keyed comm 7 deleted and created again, same key" \
	comm_up 7 "$ALL4" key "$T_LOG/key" cookie 0x77
replay_to_h1 run7 2
t_check "the old incarnation's authentic frames: dropped by epoch (drop_epoch +$(delta h1 drop_epoch)), before they touch the replay window" \
	test "$(delta h1 drop_epoch)" -gt 0 -a "$(delta h1 rx_frames)" -eq 0
t_check "... the new incarnation's allreduce: bit-exact" \
	red_all new7 7 --all --ops sum --dtypes double --count-list 1,3000 --iters 3
on h3 "$NCTL" comm del id 7
on h3 "$NCTL" comm add id 7 dev eth0 rank 2 members "$(cluster_members)" \
	key "$T_LOG/key" cookie 0x77
t_check "keyed comm 7 re-created on h3 alone: every rank fails, none with another call's data" \
	red_all once7 7 --all --ops sum --dtypes int64 --count-list 10 --iters 8 \
	--timeout 1500 --expect-error ANY

first9() {
	comm_up 9 "$ALL4" && red_all first9 9 --all --ops sum --dtypes int64 --count-list 10
}
t_check "comm 9 on 4 hosts, one verified allreduce" first9
on h3 "$NCTL" comm del id 9
on h3 "$NCTL" comm add id 9 dev eth0 rank 2 members "$(cluster_members)"
t_check "re-created on h3 alone: every rank fails, no result is another call's" \
	red_all once9 9 --all --ops sum --dtypes int64 --count-list 10 --iters 8 \
	--timeout 1500 --expect-error ANY

# A result forged ahead of the children's fragments.  Rank 2 of 4 (h3;
# degree 2: parent 0, child 3) takes a result "from the root" for its
# next allreduce, then its child's fragment.  The result completes the
# piece, and the process copies a complete result without the lock: the
# fragment that follows is dropped (drop_state), not reduced into it
# (agg_reduced) -- which tore the result being copied.  An unkeyed
# communicator's result is the forger's (nc_red_check says so); a keyed
# one's forger has no key (drop_auth above).
forged_result_first() {
	local ep s0 r0 s1 r1 h3mac
	comm_up 10 "$ALL4" degree 2 cookie 0x1010 || return 1
	ep=$(nc_epoch h3 10)
	h3mac=$(cluster_mac h3)
	s0=$(nc_stat h3 drop_state)
	r0=$(nc_stat h3 agg_reduced)
	on h1 "$NC_INJECT" --dev eth0 --dst "$h3mac" --comm 10 --cookie 0x1010 \
		--epoch "$ep" --src-rank 0 --dst-rank 2 --case agg-result --count 1 &&
	on h4 "$NC_INJECT" --dev eth0 --dst "$h3mac" --comm 10 --cookie 0x1010 \
		--epoch "$ep" --src-rank 3 --dst-rank 2 --case agg-up --count 1 ||
		return 1
	sleep 0.3
	on h3 "$NC_RED_CHECK" --comm 10 --rank 2 --size 4 --all --ops sum \
		--dtypes double --degree 2 --count-list 2 --iters 1 --timeout 3000 \
		>"$T_LOG/forged_first.log" 2>&1
	s1=$(nc_stat h3 drop_state)
	r1=$(nc_stat h3 agg_reduced)
	echo "h3: drop_state $s0 -> $s1, agg_reduced $r0 -> $r1; $(tail -n 1 "$T_LOG/forged_first.log")"
	[ $((s1 - s0)) -eq 1 ] && [ "$r1" = "$r0" ] &&
		grep -q "^not ok - " "$T_LOG/forged_first.log"
}
t_check "a forged result, then a child's fragment: the fragment is dropped, not reduced into the result being copied" \
	forged_result_first

for i in 1 2 4 5 6 7 8 9 10; do comm_del $i; done
t_check "rmmod" nc_unload
cluster_down
t_done
