#!/bin/bash
# Reduction trees on hosts of different link speeds (run in the VM): a star
# of 8 hosts whose cables are shaped to NC_BENCH_FAST (100mbit), three of
# them (h3, h5, h6: ranks 2, 4, 5) to NC_BENCH_SLOW (10mbit).  The same
# ncbench allreduces run on binomial trees installed from the topology
# without rates (the switch order: rank order on a star, which makes ranks
# 2 and 4 inner nodes) and from the topology with them (nctl tree install
# places the slow hosts on leaves), alternately, NC_BENCH_ROUNDS (2) times;
# NC_BENCH_SIZES ("1024 16384 65536") and NC_BENCH_KINDS ("switch speed")
# narrow a run down.
# Writes $NC_OUT/tree-speed-bench.md: p50/p99 per size and tree, and the
# trees themselves.  Every first result checked by ncbench.
T_NAME=bench_tree_speed
source "$(dirname "$0")/lib.sh"
set -u
REPORT=$NC_OUT/tree-speed-bench.md
FAST=${NC_BENCH_FAST:-100mbit}
SLOW=${NC_BENCH_SLOW:-10mbit}
ITERS=${NC_BENCH_ITERS:-40}
ROUNDS=${NC_BENCH_ROUNDS:-2}
read -r -a SIZES <<<"${NC_BENCH_SIZES:-1024 16384 65536}"
read -r -a KINDS <<<"${NC_BENCH_KINDS:-switch speed}"
RUN_TIMEOUT=${NC_BENCH_RUN_TIMEOUT:-900}

# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"

cluster_star 8 >/dev/null || { echo "cluster up failed" >&2; exit 1; }
# shellcheck disable=SC2119	# no module parameters
nc_load || { echo "insmod failed" >&2; exit 1; }
nc_comm_up 1 >/dev/null || { echo "comm add failed" >&2; exit 1; }

# The two descriptions of the same star: with the cables' rates, without.
FLAT=$T_LOG/flat.topo
RATED=$T_LOG/rated.topo
{
	echo "switch s0"
	for i in $(seq 8); do echo "host h$i s0"; done
} >"$FLAT"
{
	echo "switch s0"
	for i in $(seq 8); do
		case $i in 3 | 5 | 6) r=$SLOW ;; *) r=$FAST ;; esac
		echo "host h$i s0 rate $r"
		cluster_set_link "h$i" rate "$r" >/dev/null || exit 1
	done
} >"$RATED"

install_trees() {
	local h
	for h in $(cluster_hosts); do
		on "$h" "$NCTL" tree install comm 1 degree 2 topology "$1" || return 1
	done
}

runs=""
for round in $(seq "$ROUNDS"); do
	for kind in "${KINDS[@]}"; do
		topo=$FLAT
		[ "$kind" = speed ] && topo=$RATED
		install_trees "$topo" || { echo "tree install failed" >&2; exit 1; }
		name=$kind-$round
		for size in "${SIZES[@]}"; do
			run "$name-$size" --comm 1 --op allreduce --min "$size" --max "$size" \
				--split 1 --iters "$ITERS" --warmup 3 --timeout 60000 &&
				runs+=" $kind:$T_LOG/$name-$size.json"
			for h in $(cluster_hosts); do
				echo "== $h"; on "$h" "$NCTL" stats show
			done >"$T_LOG/stats-$name-$size.txt" 2>&1
		done
	done
done
"$NCTL" -j tree plan topology "$FLAT" degree 2 >"$T_LOG/plan-switch.json"
"$NCTL" -j tree plan topology "$RATED" degree 2 >"$T_LOG/plan-speed.json"

{
	echo "# Reduction trees on links of two speeds"
	echo
	echo "Made by selftests/net/bench_tree_speed.sh (make bench-tree-speed) in a QEMU/TCG"
	echo "guest, $(nproc) vCPUs, kernel $(uname -r), $(date -u +%Y-%m-%d).  A star of 8"
	echo "hosts, cables shaped to $FAST, those of h3, h5 and h6 (ranks 2, 4, 5) to"
	echo "$SLOW.  ncbench allreduce (double sum, one piece: --split 1), $ITERS iterations"
	echo "per size after a barrier each, on binomial trees installed with"
	echo "\`nctl tree install comm 1 degree 2 topology T\`: T without rates (the"
	echo "switch order, here rank order) or with the cables' rates (speed-aware"
	echo "placement, userlib/tree.c).  The two alternate, $ROUNDS rounds; latencies in"
	echo "microseconds."
} >"$REPORT"
# shellcheck disable=SC2086	# runs: one KIND:PATH per word
python3 - "$T_LOG/plan-switch.json" "$T_LOG/plan-speed.json" $runs >>"$REPORT" <<'PY'
import json, sys
plans = [json.load(open(p))["trees"][0]["parents"] for p in sys.argv[1:3]]
runs = {}
for arg in sys.argv[3:]:
    kind, path = arg.split(":", 1)
    for r in json.load(open(path))["results"]:
        runs.setdefault((kind, r["size"]), []).append(r)
print("\n| tree | parent of rank 0..7 | inner ranks |")
print("|---|---|---|")
for kind, p in zip(("switch order", "speed-aware"), plans):
    inner = sorted(set(p[r] for r in range(len(p)) if p[r] != r))
    print("| %s | %s | %s |" % (kind, " ".join(map(str, p)), " ".join(map(str, inner))))
print("\n| size | switch order p50 | speed-aware p50 | switch/speed | switch order p99 | speed-aware p99 |")
print("|---:|---:|---:|---:|---:|---:|")
for size in sorted(set(s for _, s in runs)):
    a, b = runs.get(("switch", size), []), runs.get(("speed", size), [])
    if not a or not b:
        print("| %d | failed | | | | |" % size)
        continue
    p50 = lambda rs: sorted(r["p50_us"] for r in rs)[len(rs) // 2]
    p99 = lambda rs: max(r["p99_us"] for r in rs)
    print("| %d | %.0f | %.0f | %.2f | %.0f | %.0f |" % (
        size, p50(a), p50(b), p50(a) / p50(b), p99(a), p99(b)))
print("\np50: the median of the rounds' p50 (of two, the larger); p99: the largest of")
print("their p99.  Each host's counters after each size are in the run's log")
print("directory (stats-*.txt).")
PY
cat "$REPORT"
