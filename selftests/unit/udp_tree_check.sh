#!/bin/bash
# The UDP tree baseline of ncbench (--transport udp) on this host, without
# the module: P processes on 127.0.0.1, rank r on port BASE + r.  ncbench
# checks the first result of every size bit for bit against the reference
# (own vector, then the children's in ascending rank order, with the
# kernel's operators); this runs that for every operator and type, other
# tree shapes and roots, injected loss (every iteration checked), and
# shows that the check and the timeouts bite.  TAP lines (selftests/lib/
# tap.sh), then "N passed, N failed".  make check runs it with the unit
# tests.
#
#   selftests/unit/udp_tree_check.sh [NCBENCH]      (default build/ncbench)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
NCBENCH=${1:-$top/build/ncbench}
[ -x "$NCBENCH" ] || { echo "udp_tree_check: no $NCBENCH (make user)" >&2; exit 2; }
log=$(mktemp -d "${TMPDIR:-/tmp}/udp_tree_check.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$log"' EXIT
trap 'exit 130' INT TERM
# Ports: a fresh block per case, so no datagram of one case reaches another.
port=$((20000 + ($$ % 400) * 100))
# shellcheck source=../lib/tap.sh
source "$top/selftests/lib/tap.sh"
ok() { tap_ok "udp_tree: $1"; }
bad() { tap_fail "udp_tree: $1"; }

# ranks P ARGS... : ncbench on P local ranks at once; rank r's output in
# $log/rR.out and $log/rR.err.  Fails if any rank fails.
ranks() {
	local n=$1 r list="" rc=0 pids=()
	shift
	for ((r = 0; r < n; r++)); do list+="${list:+,}127.0.0.1"; done
	port=$((port + n + 1))
	for ((r = 0; r < n; r++)); do
		timeout 120 "$NCBENCH" --transport udp --rank "$r" --peers-list "$list" \
			--port-base "$port" "$@" >"$log/r$r.out" 2>"$log/r$r.err" &
		pids+=($!)
	done
	for r in "${pids[@]}"; do wait "$r" || rc=1; done
	return $rc
}

why() { cat "$log"/r*.err 2>/dev/null | sort -u | head -n 3 | tr '\n' ' '; }

# case NAME P ARGS... : all ranks must succeed
case_ok() {
	local name=$1
	shift
	if ranks "$@"; then ok "$name"; else bad "$name: $(why)"; fi
}

# Every operator on every type it is defined for, reduce (to a root that
# is not the tree's), allreduce and the tree barrier, sizes 4 B .. 4 KiB
# (several fragments at 1 KiB per datagram).
for dt in int32 int64 uint32 uint64 float double; do
	for op in sum prod min max band bor bxor minloc maxloc; do
		case $dt:$op in float:b* | double:b*) continue ;; esac
		case_ok "$dt $op" 4 --op reduce,allreduce,tbarrier --root 2 \
			--dtype "$dt" --red-op "$op" --min 4 --max 4096 --iters 3 \
			--warmup 1 --udp-frag 1024
	done
done

# Other tree shapes: binomial over 5, ternary over 7 (root 6), a chain-ish
# degree-2 tree over 3, one rank alone; 64 KiB vectors.
case_ok "P=5 degree 2 double sum" 5 --op reduce,allreduce --degree 2 \
	--root 4 --min 8 --max 65536 --iters 2 --warmup 1
case_ok "P=7 degree 3 float prod" 7 --op reduce,allreduce --degree 3 \
	--root 6 --dtype float --red-op prod --min 4 --max 16384 --iters 2 --warmup 1
case_ok "P=3 degree 2 int64 maxloc" 3 --op allreduce --degree 2 \
	--dtype int64 --red-op maxloc --max 65536 --iters 2 --warmup 1
case_ok "P=1" 1 --op reduce,allreduce,tbarrier --max 1024 --iters 2
# Broadcasts from a root that is not tree 0's, down the f-nomial tree
# rooted there: P = 5 (degree 2) and 7 (degree 3), 1 B .. 64 KiB.
case_ok "bcast P=5 degree 2 root 3" 5 --op bcast --degree 2 --root 3 \
	--min 1 --max 65536 --iters 3 --warmup 1 --check-all --udp-frag 1024
case_ok "bcast P=7 degree 3 root 6" 7 --op bcast --degree 3 --root 6 \
	--min 1 --max 16384 --iters 3 --warmup 1 --check-all
case_ok "bcast P=1" 1 --op bcast --max 1024 --iters 2

# 5% of the datagrams lost: every iteration checked; retransmissions seen.
if ranks 4 --op reduce,allreduce --check-all --udp-loss 5 --min 8 --max 16384 \
	--iters 20 --warmup 1 -j; then
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["udp"]["dropped"] > 0 and d["udp"]["retransmissions"] > 0 else 1)' "$log/r0.out"; then
		ok "5% loss: results right, losses repaired"
	else
		bad "5% loss: no retransmission counted"
	fi
else
	bad "5% loss: $(why)"
fi

# No barrier between iterations: reduce leaves run ahead (window-bounded).
case_ok "reduce --no-sync" 4 --op reduce --no-sync --check-all --min 8 \
	--max 8192 --iters 200 --warmup 1

# --per-rank: rank 0 prints the spread; JSON parses and has every rank.
if ranks 4 --op allreduce --per-rank --max 64 --iters 20 -j &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["results"]; sys.exit(0 if r and all(len(x["rank_mean_us"]["ranks"]) == 4 and min(x["rank_mean_us"]["ranks"]) > 0 for x in r) else 1)' "$log/r0.out"; then
	ok "per-rank spread (JSON)"
else
	bad "per-rank spread: $(why)"
fi

# The check bites: rank 0 (the root) combines with max, the rest with sum.
n=4 list=127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1
port=$((port + 8))
pids=()
for ((r = 0; r < n; r++)); do
	opr=sum
	[ $r -eq 0 ] && opr=max
	timeout 60 "$NCBENCH" --transport udp --rank $r --peers-list $list \
		--port-base $port --op allreduce --red-op $opr --max 8 --iters 2 \
		--timeout 2000 >"$log/r$r.out" 2>"$log/r$r.err" &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
if [ $rc -ne 0 ] && grep -q "element(s) wrong" "$log"/r1.err; then
	ok "a wrong result is caught"
else
	bad "a wrong result went unnoticed (exit $rc; $(why))"
fi

# A missing rank: a clear error, not a hang (first op: 6 x --timeout).
port=$((port + 8))
pids=()
start=$SECONDS
for r in 0 1 2; do
	timeout 60 "$NCBENCH" --transport udp --rank $r --peers-list $list \
		--port-base $port --op allreduce --max 8 --iters 2 --timeout 1000 \
		>"$log/r$r.out" 2>"$log/r$r.err" &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
if [ $rc -ne 0 ] && [ $((SECONDS - start)) -lt 30 ] &&
	grep -qE "rank 3|from rank" "$log"/r*.err; then
	ok "a missing rank times out ($((SECONDS - start)) s): $(head -n 1 "$log/r0.err")"
else
	bad "a missing rank: exit $rc after $((SECONDS - start)) s: $(why)"
fi

# Peers from a file ("rank ip:port"), and --noise: the hogs die with it.
port=$((port + 8))
{
	echo "# rank address"
	for r in 0 1 2; do echo "$r 127.0.0.1:$((port + r))"; done
} >"$log/peers"
pids=()
for r in 0 1 2; do
	timeout 60 "$NCBENCH" --transport udp --rank $r --peers "$log/peers" \
		--noise 1 --op allreduce --max 1024 --iters 20 \
		>"$log/r$r.out" 2>"$log/r$r.err" &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
sleep 0.2
left=$(pgrep -f -- "--peers $log/peers" | wc -l)
if [ $rc -eq 0 ] && [ "$left" -eq 0 ]; then
	ok "--peers file, --noise 1 (no hog left)"
else
	bad "--peers file / --noise: exit $rc, $left processes left: $(why)"
	pkill -KILL -f -- "--peers $log/peers"
fi

# The latency model on UDP trees: calibration runs, the model is printed.
if ranks 6 --calibrate --iters 30 --warmup 2 -j &&
	python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["calibrate"]; sys.exit(0 if len(c["points"]) == 5 and len(c["degrees"]) == 7 and 2 <= c["best_degree"] <= 8 else 1)' "$log/r0.out"; then
	ok "calibrate (6 ranks, JSON)"
else
	bad "calibrate: $(why)"
fi

# Options the UDP transport refuses.
for args in "--op barrier" "--dist mcast" "--split 2" "--op allreduce --calib-comms 2"; do
	# shellcheck disable=SC2086
	if "$NCBENCH" --transport udp --rank 0 --peers-list 127.0.0.1 $args \
		>/dev/null 2>&1; then
		bad "udp accepts $args"
	else
		ok "udp refuses $args"
	fi
done

tap_done
