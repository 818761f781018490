#!/bin/bash
# Reduction trees on hosts of different link speeds (run in the VM): a star
# of 8 hosts whose cables are shaped to NC_BENCH_FAST (100mbit), three of
# them (h3, h5, h6: ranks 2, 4, 5) to NC_BENCH_SLOW (10mbit).  The same
# ncbench allreduces run on binomial trees installed from the topology
# without rates (the switch order: rank order on a star, which makes ranks
# 2 and 4 inner nodes) and from the topology with them (nctl tree install
# places the slow hosts on leaves), alternately, NC_BENCH_ROUNDS (2) times;
# NC_BENCH_SIZES ("1024 16384 65536") and NC_BENCH_KINDS ("switch speed")
# narrow a run down.  Then broadcasts from rank 0 on the communicator's
# degree-4 tree in rank order (unaware) and over the DFT and BFT orders of
# the rated topology installed in the kernel (nctl tree bcast ... install),
# NC_BENCH_BCAST_KINDS ("unaware dft bft").
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
read -r -a BKINDS <<<"${NC_BENCH_BCAST_KINDS:-unaware dft bft}"
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

# Every host's counters after a run (cumulative), for a post-mortem.
stats_dump() {
	local h
	for h in $(cluster_hosts); do
		echo "== $h"; on "$h" "$NCTL" stats show
	done >"$T_LOG/stats-$1.txt" 2>&1
}

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
			stats_dump "$name-$size"
		done
	done
done
# Broadcasts from rank 0: rank order, then the planner's placements, each
# on a communicator of its own (10, 11, ...), so that one that fails (it
# breaks its communicator) leaves the others measured.
declare -A BCOMM
bcast_comms "$RATED" 10 "${BKINDS[@]}" || exit 1
bruns=""
for round in $(seq "$ROUNDS"); do
	for kind in "${BKINDS[@]}"; do
		name=bcast-$kind-$round
		for size in "${SIZES[@]}"; do
			t0=$(date +%s%N)
			run "$name-$size" --comm "${BCOMM[$kind]}" --op bcast --root 0 \
				--min "$size" --max "$size" --iters "$ITERS" --warmup 3 \
				--timeout 60000 &&
				bruns+=" $kind:$size:$((($(date +%s%N) - t0) / 1000000))"
			stats_dump "$name-$size"
		done
	done
done
"$NCTL" -j tree bcast topology "$RATED" degree 4 >"$T_LOG/bcast-orders.json"
"$NCTL" -j tree plan topology "$FLAT" degree 2 >"$T_LOG/plan-switch.json"
"$NCTL" -j tree plan topology "$RATED" degree 2 >"$T_LOG/plan-speed.json"

{
	echo "# Reduction and broadcast trees on links of two speeds"
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
{
	echo
	echo "## Broadcasts"
	echo
	echo "ncbench bcast from rank 0, $ITERS broadcasts per size, on the f-nomial tree of"
	echo "the communicator's degree (4), one communicator per order: the ranks in"
	echo "rank order (unaware), or placed by seed 003's depth-first or breadth-first"
	echo "order for the rated topology,"
	# shellcheck disable=SC2016	# backquotes: markdown, not a command
	echo 'installed with `nctl tree bcast topology T install ID order dft|bft`.'
} >>"$REPORT"
# shellcheck disable=SC2086	# bruns: one KIND:SIZE:MS per word
python3 - "$T_LOG/bcast-orders.json" "${SIZES[*]}" $bruns >>"$REPORT" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
runs = {}
for arg in sys.argv[3:]:
    kind, size, ms = arg.split(":")
    runs.setdefault((kind, int(size)), []).append(int(ms))
print("\n| order | rank at position 0..7 | predicted (64 KiB) |")
print("|---|---|---:|")
for o in plan["orders"]:
    print("| %s | %s | %.0f us |" % (o["order"], " ".join(map(str, o["ranks"])),
                                    o["predicted_us"]))
kinds = ("unaware", "dft", "bft")
med = lambda rs: sorted(rs)[len(rs) // 2]
print("\n| size | unaware | dft | bft | unaware/dft | unaware/bft |")
print("|---:|---:|---:|---:|---:|---:|")
sizes = sorted(int(s) for s in sys.argv[2].split())
for size in sizes:
    v = [med(runs[(k, size)]) if (k, size) in runs else None for k in kinds]
    cell = lambda x: "%.1f s" % (x / 1000) if x else "failed"
    ratio = lambda a, b: "%.2f" % (a / b) if a and b else ""
    print("| %d | %s | %s | %s | %s | %s |" % (size, cell(v[0]), cell(v[1]),
          cell(v[2]), ratio(v[0], v[1]), ratio(v[0], v[2])))
print("\nWall time of a whole run on all ranks (the broadcasts and 3 warm-up ones, a")
print("barrier before each, process start included; of two rounds the larger).")
print("ncbench's own per-iteration times are not used: they are each rank's own")
print("wait, and a leaf that posts late finds its data there already.  failed: a")
print("broadcast timed out (ETIMEDOUT), which breaks its communicator; the later")
print("runs on it fail too.")
print("\nPredicted: the model of nctl tree bcast (delays for 64 KiB: each path's")
print("slowest cable, one hop 1 us).")
print("\nSeed 003 finds its speed-aware broadcast orders 70-100 % faster than the")
print("unaware one on a cluster of SDR and DDR hosts (a 1:2 rate); here the rate is")
print("1:10.  In rank order rank 4 (10 Mbit/s) forwards to three children over its")
print("slow cable: its queue overflows, and the repairs it owes its children")
print("queue behind the rest (the engine resends at most 8 fragments per request")
print("while its own queue refuses frames; before, 64 KiB broadcasts on that tree")
print("timed out in this bench).  They still can: 20 such broadcasts in t_reduce's")
print("setting timed out on three ranks once.  The aggregation engine has no")
print("congestion control yet; the speed-aware orders keep the slow cables off the")
print("paths that forward.")
PY
cat "$REPORT"
