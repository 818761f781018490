#!/bin/bash
# Topology-aware broadcast trees on a homogeneous cluster (run in the VM):
# seed 003 reports its topology-aware orders up to 14 % faster than rank
# order on large homogeneous systems, where a job's ranks are spread over
# the switches.  Here 16 hosts on two switches, every cable (the trunk
# too) shaped to NC_BENCH_RATE (100mbit), the ranks alternating between
# the switches (rank r on switch r % 2), as a scheduler that hands out
# free nodes may leave them.  Broadcasts from rank 0 on the communicator's
# degree-4 f-nomial tree, one communicator per order: rank order
# (unaware), and seed 003's DFT and BFT placements for that topology
# installed in the kernel (nctl tree bcast ... install ID order dft|bft).
# NC_BENCH_ROUNDS (4) rounds of NC_BENCH_SIZES ("1024 16384 65536"),
# NC_BENCH_ITERS (20) broadcasts each after a barrier, every first result
# checked by ncbench.  Writes $NC_OUT/bcast-topo-bench.md: the orders, how
# often each crosses the trunk, the model's prediction, and per size the
# wall time of a whole run and the slowest rank's mean.
T_NAME=bench_bcast_topo
source "$(dirname "$0")/lib.sh"
set -u
REPORT=$NC_OUT/bcast-topo-bench.md
RATE=${NC_BENCH_RATE:-100mbit}
ITERS=${NC_BENCH_ITERS:-20}
ROUNDS=${NC_BENCH_ROUNDS:-4}
read -r -a SIZES <<<"${NC_BENCH_SIZES:-1024 16384 65536}"
KINDS=(unaware dft bft)
RUN_TIMEOUT=${NC_BENCH_RUN_TIMEOUT:-900}

# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"

TOPO=$T_LOG/scattered.topo
{
	echo "# 16 hosts on two switches, ranks alternating (bench_bcast_topo.sh)"
	echo "switch s0"
	echo "switch s1"
	echo "link s0 s1 rate $RATE"
	for i in $(seq 16); do echo "host h$i s$(((i - 1) % 2)) rate $RATE"; done
} >"$TOPO"
cluster_up "$TOPO" >/dev/null || { echo "cluster up failed" >&2; exit 1; }
# shellcheck disable=SC2119	# no module parameters
nc_load || { echo "insmod failed" >&2; cluster_down; exit 1; }
# communicator 1 attaches every host's eth0; the broadcasts use their own
nc_comm_up 1 >/dev/null || { echo "comm 1 failed" >&2; exit 1; }

# One communicator per order (10, 11, 12): one a timeout breaks leaves
# the others measured.
declare -A BCOMM
bcast_comms "$TOPO" 10 "${KINDS[@]}" || exit 1
runs=""
for round in $(seq "$ROUNDS"); do
	for kind in "${KINDS[@]}"; do
		for size in "${SIZES[@]}"; do
			name=$kind-$round-$size
			t0=$(date +%s%N)
			run "$name" --comm "${BCOMM[$kind]}" --op bcast --root 0 \
				--min "$size" --max "$size" --iters "$ITERS" --warmup 3 \
				--per-rank --timeout 60000 >/dev/null &&
				runs+=" $kind:$size:$((($(date +%s%N) - t0) / 1000000)):$T_LOG/$name.json"
		done
	done
done
for size in "${SIZES[@]}"; do
	"$NCTL" -j tree bcast topology "$TOPO" degree 4 size "$size" >"$T_LOG/orders-$size.json"
done

{
	echo "# Topology-aware broadcast trees on a homogeneous cluster"
	echo
	echo "Made by \`make bench-bcast-topo\` (selftests/net/bench_bcast_topo.sh) on"
	echo "$(date -u +%F), kernel $(uname -r), in a QEMU/TCG guest with $(nproc) vCPUs: 16"
	echo "hosts on two switches, every cable and the trunk at $RATE, rank r on"
	echo "switch r % 2.  Broadcasts from rank 0 on the f-nomial tree of degree 4,"
	echo "one communicator per order: rank order (unaware), or seed 003's DFT or"
	echo "BFT placement for this topology, installed with"
	# shellcheck disable=SC2016	# backquotes: markdown, not a command
	echo '`nctl tree bcast topology T install ID order dft|bft`.'
	echo "$ITERS broadcasts per size after a barrier each, $ROUNDS rounds."
} >"$REPORT"
# shellcheck disable=SC2086	# runs: one KIND:SIZE:MS:PATH per word
python3 - "$TOPO" "${SIZES[*]}" "$T_LOG" $runs >>"$REPORT" <<'PY'
import json, sys
topo, sizes, logdir = sys.argv[1], [int(s) for s in sys.argv[2].split()], sys.argv[3]
switch = {}
for line in open(topo):
    w = line.split()
    if w and w[0] == "host":
        switch[w[1]] = w[2]
hosts = sorted(switch, key=lambda h: int(h[1:]))
runs = {}
for arg in sys.argv[4:]:
    kind, size, ms, path = arg.split(":", 3)
    slow = json.load(open(path))["results"][0]["rank_mean_us"]["max"]
    runs.setdefault((kind, int(size)), []).append((int(ms), slow))
kinds = ("unaware", "dft", "bft")
plans = {s: {o["order"].strip(): o for o in json.load(open("%s/orders-%d.json" % (logdir, s)))["orders"]}
         for s in sizes}
# position p's parent in the f-nomial tree: p with its lowest nonzero
# digit (base f) cleared
def fnomial_parent(p, f=4):
    low = 1
    while (p // low) % f == 0:
        low *= f
    return p - ((p // low) % f) * low
print("\n| order | host at position 0..15 | trunk crossings | predicted %s |"
      % " | predicted ".join("%d B" % s for s in sizes))
print("|---|---|---:|" + "---:|" * len(sizes))
for k in kinds:
    order = plans[sizes[0]][k]["ranks"]
    cross = sum(1 for p in range(1, 16)
                if switch[hosts[order[p]]] != switch[hosts[order[fnomial_parent(p)]]])
    print("| %s | %s | %d | %s |" % (k, " ".join(hosts[r] for r in order), cross,
          " | ".join("%.0f us" % plans[s][k]["predicted_us"] for s in sizes)))
med = lambda xs: sorted(xs)[len(xs) // 2]
print("\n| size | unaware | dft | bft | unaware/dft | unaware/bft | slowest mean unaware | dft | bft |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for s in sizes:
    w = [med([m for m, _ in runs[(k, s)]]) if (k, s) in runs else None for k in kinds]
    m = [med([x for _, x in runs[(k, s)]]) if (k, s) in runs else None for k in kinds]
    cell = lambda x: "%.2f s" % (x / 1000) if x else "failed"
    ratio = lambda a, b: "%.2f" % (a / b) if a and b else ""
    us = lambda x: "%.0f us" % x if x else "failed"
    print("| %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        s, cell(w[0]), cell(w[1]), cell(w[2]), ratio(w[0], w[1]), ratio(w[0], w[2]),
        us(m[0]), us(m[1]), us(m[2])))
print("\nWall time of a whole run on all ranks (the broadcasts, 3 warm-up ones, a")
print("barrier before each, process start included), the median of the rounds;")
print("slowest mean: the largest of the ranks' mean latencies (ncbench")
print("--per-rank), the median of the rounds.  Trunk crossings: tree edges whose")
print("two hosts are on different switches.  Predicted: `nctl tree bcast`'s model")
print("(hops x 1 us + size / the slowest cable per send, no per-message cost).")
PY
cluster_down
nc_unload
cat "$REPORT"
