#!/bin/bash
# Fuzzing at volume, every run: mutated frames of every type into a running
# cluster, and random netlink messages of every command, as root and as
# nobody, while bystanders run verified collectives.
#
#   frames, keyed communicator: NC_FUZZ_FRAMES (default 100000) mutations of
#     frames rank 1 really sent (bit flips, every header field at 0/1/max,
#     truncation at every length, huge lengths and offsets, every type,
#     exact replays) into rank 0 while every rank runs verified
#     allreduces and alltoalls.  Every one is dropped and counted; every
#     result is bit-exact.
#   frames, no key: as many again into an unkeyed communicator.  Without a
#     key a member's frames can be forged, so results are not asserted
#     there: operations end (a result or an errno), nothing leaks, and a
#     new communicator afterwards works.
#   netlink: NC_FUZZ_NETLINK (default 10000) random messages per command,
#     as root and unprivileged, in a namespace of its own.
# NC_SOAK=1 multiplies the volumes by 10 (a soak, not for every run).
T_NAME=fuzz
source "$(dirname "$0")/lib.sh"

SCALE=1
[ "${NC_SOAK:-0}" = 1 ] && SCALE=10
FRAMES=$(( ${NC_FUZZ_FRAMES:-100000} * SCALE ))
NLMSGS=$(( ${NC_FUZZ_NETLINK:-10000} * SCALE ))
REPLAY=$NC_BUILD/selftests/net/nc_replay

# comm_up ID NCTL_ARGS... : communicator ID over h1..h4 (rank order).
comm_up() {
	local id=$1 h r=0
	shift
	for h in h1 h2 h3 h4; do
		on "$h" "$NCTL" comm add id "$id" dev eth0 rank $r \
			members "$MEMBERS4" "$@" || return 1
		r=$((r + 1))
	done
}

# workload ID ITERS EXPECT... : allreduces and alltoalls on every rank of
# ID in the background; PIDS gets their pids.
workload() {
	local id=$1 iters=$2 h r=0
	shift 2
	PIDS=()
	for h in h1 h2 h3 h4; do
		on "$h" "$NC_RED_CHECK" --comm "$id" --rank $r --size 4 --all \
			--ops sum,maxloc --dtypes double,int32 --count-list 7,3000 \
			--iters "$iters" --timeout 30000 "$@" >"$T_LOG/red$id.$h.log" 2>&1 &
		PIDS+=($!)
		r=$((r + 1))
	done
}

a2a4() {
	local name=$1 h r=0 pids=() rc=0 p
	shift
	for h in h1 h2 h3 h4; do
		on "$h" "$NC_CHECK" --rank $r --size 4 "$@" >"$T_LOG/$name.$h.log" 2>&1 &
		pids+=($!)
		r=$((r + 1))
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	return $rc
}

finished() {
	local p rc=0
	for p in "${PIDS[@]}"; do wait "$p" || rc=1; done
	return $rc
}

cluster_star 5 >/dev/null || { t_fail "cluster up"; t_done; exit 1; }
nc_load || { t_fail "insmod"; t_done; exit 1; }
for h in $(cluster_hosts); do on "$h" "$NCTL" dev attach dev eth0; done
MEMBERS4=$(for h in h1 h2 h3 h4; do cluster_mac "$h"; done | paste -sd,)
H1MAC=$(cluster_mac h1)
# the receivers' backlog must hold what the fuzzer sends faster than
# they can take it, so that every frame reaches netcoll to be counted
sysctl -qw net.core.netdev_max_backlog=200000
head -c 48 /dev/urandom >"$T_LOG/key"

# --- frames into a keyed communicator, results verified --------------------
on h2 "$REPLAY" record --dev eth0 --outgoing --seconds 120 --count 3000 \
	--out "$T_LOG/keyed.frames" >"$T_LOG/record.log" 2>&1 &
rec=$!
sleep 0.3
t_check "keyed communicator 1 on h1..h4 (rank 1's frames recorded from its join on)" \
	comm_up 1 key "$T_LOG/key"
workload 1 5
t_check "... a recorded run: allreduces verified" finished
t_check "... and alltoalls" a2a4 rec-a2a --comm 1 --op alltoall --bytes-list 1,1500,70000
kill "$rec" 2>/dev/null
wait "$rec" 2>/dev/null
types=$(python3 - "$T_LOG/keyed.frames" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
i, t = 0, set()
while i + 2 <= len(d):
    n = struct.unpack('<H', d[i:i+2])[0]
    f = d[i+2:i+2+n]
    # the recorder is killed: its last, unflushed frame may be cut short
    if len(f) < n or n < 16:
        break
    t.add(f[15])	# netcoll type, after the 14-byte Ethernet header
    i += 2 + n
print(len(t))
EOF
)
t_check "the recording holds frames of $types types (the fuzzer makes every type from them)" \
	test "$types" -ge 4

# The reasons a frame that fails the receive path's checks up to its
# authentication is counted under (kmod/rx.c): every mutated frame lands
# in one of them.  Drops after authentication (a repair request too soon,
# a frame of a finished operation, memory, another epoch) and our own
# send drops come only from the bystanders' real traffic, whose amount
# depends on the emulation's timing: counted apart.
FUZZ_DROPS="drop_short drop_version drop_type drop_length drop_opcode drop_comm
	drop_cookie drop_rank drop_addr drop_auth drop_replay"
# fuzz_drops HOST [other]: the sum of those counters (with "other": of the rest)
fuzz_drops() {
	on "$1" "$NCTL" -j stats | python3 -c '
import json, sys
d, names, other = json.load(sys.stdin), sys.argv[1].split(), len(sys.argv) > 2
print(sum(v for k, v in d.items() if k.startswith("drop_") and (k in names) != other))' \
		"$FUZZ_DROPS" ${2:+other}
}

drops0=$(fuzz_drops h1)
other0=$(fuzz_drops h1 other)
workload 1 40
on h2 "$REPLAY" fuzz --dev eth0 --in "$T_LOG/keyed.frames" --count "$FRAMES" \
	--seed 7 --to "$H1MAC" >"$T_LOG/fuzz-keyed.log" 2>&1
t_check "$FRAMES mutated frames sent from rank 1's address" \
	grep -q "sent $FRAMES mutated" "$T_LOG/fuzz-keyed.log"
t_check "meanwhile every rank's 40 x 8 allreduces: bit-exact" finished
sleep 1
dropped=$(( $(fuzz_drops h1) - drops0 ))
t_check "rank 0 dropped and counted every one: $dropped of $FRAMES (other drops meanwhile: $(( $(fuzz_drops h1 other) - other0 )))" \
	test "$dropped" -ge "$FRAMES" -a "$dropped" -le $((FRAMES + 64))
on h1 "$NCTL" -j stats >"$T_LOG/keyed-stats.json"
t_check "alltoalls after it: verified" a2a4 after-a2a --comm 1 --op alltoall \
	--bytes-list 1,1500,70000

# --- frames into an unkeyed communicator: robustness ----------------------
on h2 "$REPLAY" record --dev eth0 --outgoing --seconds 120 --count 3000 \
	--out "$T_LOG/plain.frames" >"$T_LOG/record2.log" 2>&1 &
rec=$!
sleep 0.3
t_check "unkeyed communicator 2" comm_up 2
workload 2 5
finished || t_fail "the recorded unkeyed run"
kill "$rec" 2>/dev/null
wait "$rec" 2>/dev/null
before=$(( $(nc_drops h1) + $(nc_stat h1 rx_frames) ))
workload 2 40 --expect-error ANY
on h2 "$REPLAY" fuzz --dev eth0 --in "$T_LOG/plain.frames" --count "$FRAMES" \
	--seed 8 --to "$H1MAC" >"$T_LOG/fuzz-plain.log" 2>&1
sleep 1
# Results may be forged without a key: only that every rank returns.
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
seen=$(( $(nc_drops h1) + $(nc_stat h1 rx_frames) - before ))
t_check "$FRAMES mutated frames into it: every one dropped or taken ($seen seen)" \
	test "$seen" -ge "$FRAMES"
for h in h1 h2 h3 h4; do on "$h" "$NCTL" comm del id 2; done
t_check "a new unkeyed communicator after it" comm_up 3
workload 3 3
t_check "... its allreduces bit-exact" finished

# --- random netlink messages, h5 alone, while h1..h4 run -----------------
workload 1 60
on h5 "$NL_REJECT" --ifname eth0 --fuzz "$NLMSGS" --seed 3 >"$T_LOG/nl-root.log" 2>"$T_LOG/nl-root.err"
t_tally <"$T_LOG/nl-root.log"
# somebody else's communicators for the unprivileged messages to meet; and
# eth0 closed to users' communicators again, whatever root's random DEV_SET
# left (a communicator of nobody's own would be a success, not a rejection)
on h5 "$NCTL" dev attach dev eth0 2>/dev/null
on h5 "$NCTL" dev set dev eth0 user-comms off
for id in 1 2 3 4; do
	on h5 "$NCTL" comm add id $id dev eth0 rank 0 members "$(cluster_mac h5)"
done
on h5 "$NL_REJECT" --unpriv --ifname eth0 --fuzz "$NLMSGS" --seed 4 >"$T_LOG/nl-nobody.log" 2>"$T_LOG/nl-nobody.err"
t_tally <"$T_LOG/nl-nobody.log"
t_check "... root's communicators there untouched" \
	nc_json h5 'sorted(c["id"] for c in d) == [1, 2, 3, 4]' comm show
t_check "the bystanders' allreduces meanwhile: bit-exact" finished

for id in 1 3; do for h in h1 h2 h3 h4; do on "$h" "$NCTL" comm del id $id; done; done
t_check "rmmod" nc_unload
cluster_down
t_done
