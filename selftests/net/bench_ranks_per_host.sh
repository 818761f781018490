#!/bin/bash
# Several ranks per host (run in the VM): 8 ranks on 4 hosts, rank r on
# host r % 4, every cable shaped to NC_BENCH_RATE (100mbit).  Allreduces
# on the module's built-in trees, which are trees over hosts here (a
# host's two ranks combine before anything crosses its cable), against
# the plain f-nomial trees of the same degree over the 8 ranks, installed
# on a second communicator of the same ranks (nctl tree install ... trees
# 8), whose edges cross cables twice as often.  (Broadcasts have no plain
# baseline: where ranks share hosts their trees are always over hosts, an
# installed order only reorders the hosts.)  NC_BENCH_ROUNDS (2) rounds,
# the two communicators in turn; NC_BENCH_ITERS (30) operations per size
# after a barrier each, the first checked bit for bit by ncbench.  Writes
# $NC_OUT/ranks-per-host-bench.md: per size the p50 of each
# and the bytes the four cables carried from the hosts per operation.
T_NAME=bench_ranks_per_host
source "$(dirname "$0")/lib.sh"
set -u
REPORT=$NC_OUT/ranks-per-host-bench.md
RATE=${NC_BENCH_RATE:-100mbit}
ITERS=${NC_BENCH_ITERS:-30}
ROUNDS=${NC_BENCH_ROUNDS:-2}
read -r -a SIZES <<<"${NC_BENCH_SIZES:-8 1024 16384 65536 262144 1048576}"
RUN_TIMEOUT=${NC_BENCH_RUN_TIMEOUT:-900}

# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"

cluster_star 4 rate "$RATE" >/dev/null || { echo "cluster up failed" >&2; exit 1; }
# shellcheck disable=SC2119	# no module parameters
nc_load || { echo "insmod failed" >&2; cluster_down; exit 1; }
RUN_HOSTS="h1 h2 h3 h4 h1 h2 h3 h4"
for h in h1 h2 h3 h4; do on "$h" "$NCTL" dev attach dev eth0 || exit 1; done
# shellcheck disable=SC2086	# RUN_HOSTS: one host a word
if ! nc_comm_on 1 $RUN_HOSTS || ! nc_comm_on 2 $RUN_HOSTS; then
	echo "comms failed" >&2
	exit 1
fi
for r in 0 1 2 3 4 5 6 7; do
	on "h$((r % 4 + 1))" "$NCTL" tree install comm 2 degree 4 trees 8 rank "$r" ||
		{ echo "tree install failed" >&2; exit 1; }
done
declare -A COMM=([hosts]=1 [plain]=2)

# Bytes the hosts' cables carried (what the four eth0 sent).
wire_bytes() {
	local h n=0
	for h in h1 h2 h3 h4; do
		n=$((n + $(on "$h" cat /sys/class/net/eth0/statistics/tx_bytes)))
	done
	echo "$n"
}

runs=""
for round in $(seq "$ROUNDS"); do
	for kind in hosts plain; do
		for op in allreduce; do
			for size in "${SIZES[@]}"; do
				name=$kind-$op-$size-$round
				w0=$(wire_bytes)
				run "$name" --comm "${COMM[$kind]}" --op "$op" --root 0 \
					--min "$size" --max "$size" --iters "$ITERS" --warmup 3 \
					--budget $((1 << 30)) --timeout 60000 >/dev/null &&
					runs+=" $kind:$op:$size:$(($(wire_bytes) - w0)):$T_LOG/$name.json"
			done
		done
	done
done

{
	echo "# Several ranks per host: trees over hosts against plain trees"
	echo
	echo "Made by \`make bench-ranks-per-host\` (selftests/net/bench_ranks_per_host.sh)"
	echo "on $(date -u +%F), kernel $(uname -r), in a QEMU/TCG guest with $(nproc)"
	echo "vCPUs: 8 ranks on 4 hosts of one switch (rank r on host r % 4), every cable"
	echo "at $RATE.  Allreduces (doubles, sum) on two communicators of the same ranks:"
	echo "the module's built-in trees, which are trees over hosts here (each host's"
	echo "lowest rank, or the root, stands for it; its other rank hangs off it), and"
	echo "the plain f-nomial trees of degree 4 over the 8 ranks, installed with"
	# shellcheck disable=SC2016	# backquotes: markdown, not a command
	echo '`nctl tree install comm 2 degree 4 trees 8 rank R` on every rank.'
	echo "$ITERS operations per size (and 3 to warm up) after a barrier each, $ROUNDS"
	echo "rounds in turn; the first result checked bit for bit.  Broadcasts have no"
	echo "plain baseline: where ranks share hosts their trees are always over hosts"
	echo "(an installed order only reorders the hosts)."
} >"$REPORT"
# shellcheck disable=SC2086	# runs: one KIND:OP:SIZE:WIRE:PATH per word
python3 - "$ITERS" $runs >>"$REPORT" <<'PY'
import json, sys
iters = int(sys.argv[1])
cell = {}
for arg in sys.argv[2:]:
    kind, op, size, wire, path = arg.split(":", 4)
    res = json.load(open(path))["results"][0]
    cell.setdefault((op, int(size)), {}).setdefault(kind, []).append(
        (res["p50_us"], int(wire) / (iters + 3)))
print("\n| operation | bytes | trees over hosts p50 us | plain trees p50 us | plain/hosts "
      "| cable bytes per op, hosts | plain |")
print("|---|---:|---:|---:|---:|---:|---:|")
for (op, size), kinds in sorted(cell.items()):
    if "hosts" not in kinds or "plain" not in kinds:
        continue
    med = lambda xs: sorted(xs)[len(xs) // 2]
    h50 = med([p for p, _ in kinds["hosts"]])
    p50 = med([p for p, _ in kinds["plain"]])
    hw = med([w for _, w in kinds["hosts"]])
    pw = med([w for _, w in kinds["plain"]])
    print("| %s | %d | %.0f | %.0f | %.2f | %.0f | %.0f |" % (op, size, h50, p50, p50 / h50, hw, pw))
print("\np50: the median over the rounds (of two, the larger) of ncbench's p50 on")
print("rank 0 (its own time per allreduce, each after a barrier).  Cable bytes: what the four")
print("hosts' eth0 sent during a run, over its operations (the barriers before each")
print("included, and the host's own chatter).")
PY
cat "$REPORT"
