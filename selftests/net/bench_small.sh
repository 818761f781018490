#!/bin/bash
# Back-to-back small allreduces on a quiet star of 8 hosts (run in the VM),
# the workload of scripts/tcg-prof/profile.sh: NC_BENCH_ITERS (3000)
# allreduces of NC_BENCH_SIZE (8) bytes after 200 for warm-up, each after a
# barrier (ncbench), bounded by two calls of sync(1) that the profiler's
# mark catches.  Writes $NC_OUT/small.json (rank 0's ncbench result),
# $NC_OUT/stats.txt (the module's counters summed over the hosts, for the
# measured phase) and $NC_OUT/kallsyms (read while the module is loaded).
T_NAME=bench_small
source "$(dirname "$0")/lib.sh"
set -u
ITERS=${NC_BENCH_ITERS:-3000}
SIZE=${NC_BENCH_SIZE:-8}
# NC_BENCH_TIMEOUT: the operations' budget in ms (empty: the communicator's)
TIMEOUT=${NC_BENCH_TIMEOUT-20000}
RUN_TIMEOUT=${NC_BENCH_RUN_TIMEOUT:-900}
# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"

cluster_star 8 >/dev/null || { echo "cluster up failed" >&2; exit 1; }
# shellcheck disable=SC2119	# no module parameters
nc_load || { echo "insmod failed" >&2; exit 1; }
nc_comm_up 1 >/dev/null || exit 1
run warm --comm 1 ${TIMEOUT:+--timeout "$TIMEOUT"} --op allreduce --min "$SIZE" --max "$SIZE" --iters 200 || exit 1
stats_sum stats0
sync	# the profiler's first mark
run small --comm 1 ${TIMEOUT:+--timeout "$TIMEOUT"} --op allreduce --min "$SIZE" --max "$SIZE" --iters "$ITERS" || exit 1
sync	# the second
stats_sum stats1
stats_delta stats0 stats1 >"$NC_OUT/stats.txt"
cp "$T_LOG/small.json" "$NC_OUT/small.json"
cat /proc/kallsyms >"$NC_OUT/kallsyms"
nc_unload
cluster_down
