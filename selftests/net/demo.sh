#!/bin/bash
# The netcoll demo, run in the test VM by `make demo` (two minutes):
# what netcoll is for, on an emulated cluster of 8 hosts behind two
# switches whose trunk is the bottleneck:
#   1. the contention-free alltoall schedule nctl derives from the topology,
#      installed on every host, against the orders MPI libraries use
#      (linear, pairwise, ring), side by side against the physical bound,
#      every byte verified, and a picture of it;
#   2. an allreduce in the kernel, bit-exact, against the same tree run by
#      processes over UDP sockets.
# Rates are scaled so that the emulator is not the bottleneck (bench_a2a.sh).
T_NAME=demo
source "$(dirname "$0")/lib.sh"
set -e

say() { printf '\n== %s\n' "$*"; }
TOPO_FILE=$NC_TOP/selftests/net/topologies/two-switch.topo

say "the cluster: $(basename "$TOPO_FILE") (4 + 4 hosts, one trunk between the switches)"
grep -vE '^\s*(#|$)' "$TOPO_FILE" | paste -sd ' ' | fold -s -w 78
say "the contention-free schedule for it (nctl sched show topology ...)"
"$NCTL" sched show topology "$TOPO_FILE" | head -n 12

say "alltoall: each order side by side against the physical bound"
echo "(make bench-alltoall runs more sizes and topologies: docs/alltoall-bench.md)"
NC_BENCH_TOPOS=$TOPO_FILE NC_BENCH_MIN=65536 NC_BENCH_MAX=262144 NC_BENCH_ITERS=3 \
	NC_BENCH_KINDS=aapc bash "$NC_TOP/selftests/net/bench_a2a.sh" >"$T_LOG/bench.log" 2>&1 ||
	{ tail -n 20 "$T_LOG/bench.log"; exit 1; }
report=$NC_OUT/alltoall-bench.md
grep -E '^Link rates|^- aapc' "$report"
echo
grep -E '^\|' "$report" | cut -d'|' -f1-8 | sed 's/$/|/'
echo
echo "ratio = time / bound: 1.00 is the link's limit.  sched:aapc is the installed"
echo "schedule; linear, pairwise and ring are the orders MPI libraries use."
"$NC_TOP/scripts/plot-bench.sh" "$NC_OUT" --dumb first | grep -v '\.svg$' || true
echo "(as SVG: build/vm/out/plots/alltoall-two-switch.svg, make demo's output)"

say "alltoall, every received byte checked (nc_check, 8 ranks, 1 B to 1 MiB)"
cluster_up "$TOPO_FILE" >/dev/null
nc_load
nc_comm_up 1 >/dev/null
on h1 "$NCTL" comm show id 1
nc_check_all demo-a2a --comm 1 --op alltoall --bytes-list 1,1500,65536,1048576
tail -n 2 "$T_LOG"/demo-a2a.h1.log

say "allreduce in the kernel: every op and type, bit-exact (nc_red_check)"
r=0
pids=()
for h in $(cluster_hosts); do
	on "$h" "$NC_RED_CHECK" --comm 1 --rank $r --size 8 --all \
		--count-list 1,1000 >"$T_LOG/demo-red.$h.log" 2>&1 &
	pids+=($!)
	r=$((r + 1))
done
for p in "${pids[@]}"; do wait "$p"; done
grep -c '^ok' "$T_LOG/demo-red.h1.log" | sed 's/$/ checks passed on rank 0 (every rank checks its own)/'

say "allreduce latency: the kernel against the same tree over UDP sockets"
r=0
for h in $(cluster_hosts); do
	echo "$r $(cluster_ip "$h")"
	r=$((r + 1))
done >"$NC_OUT/udp-peers"
for t in kernel udp; do
	r=0
	pids=()
	for h in $(cluster_hosts); do
		if [ $t = kernel ]; then args=(--comm 1); else
			args=(--transport udp --peers "$NC_OUT/udp-peers"); fi
		on "$h" "$NCBENCH" --rank $r "${args[@]}" --op allreduce --min 8 --max 16384 \
			--iters 20 --timeout 20000 -j >"$T_LOG/lat-$t.r$r.json" 2>"$T_LOG/lat-$t.r$r.err" &
		pids+=($!)
		r=$((r + 1))
	done
	for p in "${pids[@]}"; do wait "$p"; done
done
python3 - "$T_LOG/lat-kernel.r0.json" "$T_LOG/lat-udp.r0.json" <<'PY'
import json, sys
k, u = (json.load(open(p))["results"] for p in sys.argv[1:])
print("| size | kernel p50 us | kernel p99 us | UDP p50 us | UDP p99 us | UDP/kernel p50 |")
print("|---:|---:|---:|---:|---:|---:|")
for a, b in zip(k, u):
    print("| %d B | %.0f | %.0f | %.0f | %.0f | %.1fx |" % (
        a["size"], a["p50_us"], a["p99_us"], b["p50_us"], b["p99_us"],
        b["p50_us"] / a["p50_us"]))
PY

say "counters of h1 (nctl stats): what the transport had to do"
on h1 "$NCTL" stats | head -n 12
nc_unload
cluster_down
say "demo done: 8 hosts on two switches; alltoall and allreduce verified"
