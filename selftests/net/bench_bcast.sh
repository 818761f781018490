#!/bin/bash
# Broadcast on an emulated multi-switch cluster (run in the VM, like
# bench_reduce.sh).  Writes $NC_OUT/bcast-bench.md with, in one run, for
# 8 B .. 1 MiB from rank 0: the kernel's broadcast down the tree, the
# kernel's by multicast, and the same tree run by the processes over UDP
# (ncbench --transport udp: each rank receives the whole message, then
# forwards it), quiet and with CPU hogs on every host (--noise); p50 and
# p99 at rank 0 and the slowest rank's mean (each iteration starts after a
# barrier, OSU style).  Every first result is checked by ncbench on every
# rank.  First, quiet, nc_bcast_tune (ncbench --tune-bcast): tree against
# multicast per size as the library measures them, and the size from
# which NC_DIST_AUTO multicasts on this cluster.  Last, the model of
# `nctl tree bcast` against the quiet tree, with its per-message cost
# fitted (scripts/bcast-model-fit.py).
#
#   NC_BENCH_TOPO (two-switch-8x2.topo), NC_BENCH_ITERS (100),
#   NC_BENCH_NOISE (2; 0: no noisy runs), NC_BENCH_MAX (1048576),
#   NC_BENCH_RUN_TIMEOUT (900)
T_NAME=bench_bcast
source "$(dirname "$0")/lib.sh"
set -u
REPORT=$NC_OUT/bcast-bench.md
TOPO=${NC_BENCH_TOPO:-two-switch-8x2.topo}
ITERS=${NC_BENCH_ITERS:-100}
NOISE=${NC_BENCH_NOISE:-2}
MAX=${NC_BENCH_MAX:-1048576}
RUN_TIMEOUT=${NC_BENCH_RUN_TIMEOUT:-900}
PEERS=$NC_OUT/udp-peers

# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"

cluster_up "$NC_TOP/selftests/net/topologies/$TOPO" >/dev/null ||
	{ echo "cluster up failed" >&2; exit 1; }
# shellcheck disable=SC2119	# no module parameters
nc_load || { echo "insmod failed" >&2; cluster_down; exit 1; }
nc_comm_up 1 >/dev/null || { echo "comm 1 failed" >&2; exit 1; }
r=0
for h in $(cluster_hosts); do
	echo "$r $(cluster_ip "$h")"
	r=$((r + 1))
done >"$PEERS"
P=$r

{
	echo "# Broadcast: in the kernel (tree, multicast) against the processes over UDP"
	echo
	echo "Made by \`make bench-bcast\` (selftests/net/bench_bcast.sh) on $(date -u +%F),"
	echo "kernel $(uname -r), in a QEMU/TCG guest: $P hosts on $TOPO, root rank 0,"
	echo "$ITERS iterations per size (fewer for large ones), each after a barrier."
	echo "Noise: $NOISE processes spinning at nice 0 on every host (ncbench --noise)."
	echo "Times in microseconds; \"slowest mean\" is the largest of the ranks' mean"
	echo "latencies (ncbench --per-rank), the time the broadcast takes to reach"
	echo "everybody; rank 0, the root, returns when every rank has started."
} >"$REPORT"

# Before the noisy runs, which may break the communicator.
if run tune --comm 1 --tune-bcast --root 0 --min 1024 --max "$MAX" --iters 10 \
	--timeout 20000 >/dev/null; then
	python3 - "$T_LOG/tune.json" >>"$REPORT" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["tune_bcast"]
print("\n## Tree or multicast: what nc_bcast_tune measures\n")
print("`ncbench --tune-bcast` (quiet): per size, twice, %d broadcasts down the"
      % t["iters"])
print("tree and as many by multicast, back to back after a barrier; the slowest")
print("rank's time per broadcast, the better round.  NC_DIST_AUTO multicasts the")
print("sizes of the run of sizes where multicast won with the largest summed gain,")
print("widened halfway (in log scale) to its neighbours.\n")
print("| size | tree | mcast | tree / mcast |")
print("|---:|---:|---:|---:|")
for s in t["sizes"]:
    print("| %d | %.1f | %.1f | %.2f |" % (s["bytes"], s["tree_us"], s["mcast_us"],
                                        s["tree_us"] / s["mcast_us"]))
lo, hi = t["mcast_min"], t["mcast_max"]
if lo is None:
    print("\nMulticast: never (the tree won at every size).")
else:
    print("\nMulticast: from %d bytes%s." % (lo, "" if hi is None else " below %d" % hi))
PY
else
	printf '\n## Tree or multicast\n\nncbench --tune-bcast failed (tune.r*.err).\n' >>"$REPORT"
fi

runs=""
# NC_BENCH_NOISE=0: the quiet runs only.  An operation's budget is 20 s,
# a minute with noise: with 2 spinners per host, 1 MiB multicast
# broadcasts (not windowed, repaired on request) took over 20 s on some
# ranks (2026-11-27), and the run ended there.
for n in 0 $([ "$NOISE" = 0 ] || echo "$NOISE"); do
	budget=$([ "$n" = 0 ] && echo 20000 || echo 60000)
	for t in tree mcast udp; do
		name=bcast-$t-noise$n
		case $t in
		udp) args=(--transport udp --peers "$PEERS") ;;
		*) args=(--comm 1 --dist "$t") ;;
		esac
		if run "$name" "${args[@]}" --op bcast --root 0 --min 8 --max "$MAX" \
			--iters "$ITERS" --per-rank --noise "$n" --timeout "$budget" >/dev/null; then
			runs+=" $t:$n:$T_LOG/$name.json"
		else
			runs+=" $t:$n:"
		fi
	done
done

python3 - $runs >>"$REPORT" <<'PY'
import json, sys
runs = []
for arg in sys.argv[1:]:
    t, n, path = arg.split(":", 2)
    runs.append((t, int(n), json.load(open(path))["results"] if path else None))
name = {"tree": "kernel tree", "mcast": "kernel mcast", "udp": "UDP tree"}
for noise in sorted({n for _, n, _ in runs}):
    print("\n## %s\n" % ("Quiet" if noise == 0 else "Noise %d" % noise))
    here = [(t, res) for t, n, res in runs if n == noise]
    udp = dict(here).get("udp") or []
    sizes = sorted({r["size"] for _, res in here if res for r in res})
    if not sizes:
        print("Every run failed (their logs: bcast-*-noise%d.log)." % noise)
        continue
    print("| size | transport | p50 | p99 | slowest mean | UDP / this (slowest mean) |")
    print("|---:|---|---:|---:|---:|---:|")
    for s in sizes:
        u = next((r for r in udp if r["size"] == s), None)
        for t, res in here:
            r = next((r for r in (res or []) if r["size"] == s), None)
            if not r:
                print("| %d | %s | failed | | | |" % (s, name[t]))
                continue
            slow = r.get("rank_mean_us", {}).get("max")
            ratio = ""
            if u and slow and u.get("rank_mean_us"):
                ratio = "%.2f" % (u["rank_mean_us"]["max"] / slow)
            print("| %d | %s | %.1f | %.1f | %s | %s |" % (
                s, name[t], r["p50_us"], r["p99_us"],
                "%.1f" % slow if slow is not None else "?", ratio))
PY
degree=$(on h1 "$NCTL" tree show comm 1 |
	sed -n 's/.*built-in degree \([0-9]*\).*/\1/p')
if [ -s "$T_LOG/bcast-tree-noise0.json" ] && [ -n "$degree" ]; then
	"$NC_TOP/scripts/bcast-model-fit.py" --nctl "$NCTL" --degree "$degree" \
		--topology "$NC_TOP/selftests/net/topologies/$TOPO" \
		"$T_LOG/bcast-tree-noise0.json" >>"$REPORT" ||
		printf '\nThe model fit failed.\n' >>"$REPORT"
fi
cluster_down
nc_unload
echo "report: $REPORT"
