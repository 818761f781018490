#!/bin/bash
# Several frames an skb against one, side by side in one guest: the
# aggregation trees' allreduce (ncbench, every size on the kernel's trees)
# and the alltoall transport's alltoall (bytes per peer), on an unshaped 8-host star at MTU 1500 and on issue 15's cluster
# (two-switch-8x2.topo: 16 hosts, 100 Mbit/s cables) at MTU 9000.  The
# module groups a destination's frames into one skb where the device
# passes it whole (bearer_eth.c); `ip link set dev eth0 gso_max_segs 1`
# on every host turns that off.  The two ways alternate, NC_BENCH_ROUNDS
# (2) times each, and every run notes the guest's softirq time (the
# per-packet work grouping saves).  Writes $NC_OUT/gso-bench.md.
#
#   NC_BENCH_SIZES ("8 2048 32768 131072 524288 2097152"),
#   NC_BENCH_A2A_SIZES ("1024 16384 131072"), NC_BENCH_OPS ("allreduce
#   alltoall"), NC_BENCH_ITERS (30), NC_BENCH_ROUNDS (2),
#   NC_BENCH_PARTS ("star fabric")
T_NAME=bench_gso
source "$(dirname "$0")/lib.sh"
set -u
# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
REPORT=$NC_OUT/gso-bench.md
read -r -a SIZES <<<"${NC_BENCH_SIZES:-8 2048 32768 131072 524288 2097152}"
ITERS=${NC_BENCH_ITERS:-30}
ROUNDS=${NC_BENCH_ROUNDS:-2}
read -r -a PARTS <<<"${NC_BENCH_PARTS:-star fabric}"
read -r -a OPS <<<"${NC_BENCH_OPS:-allreduce alltoall}"
read -r -a A2A_SIZES <<<"${NC_BENCH_A2A_SIZES:-1024 16384 131072}"
export NETCOLL_RSAG_MIN=0	# every size on the kernel's trees

# softirq_ticks : the guest's softirq time so far, in USER_HZ ticks
softirq_ticks() { awk '$1 == "cpu" { print $8 }' /proc/stat; }

runs=()
for part in "${PARTS[@]}"; do
	case $part in
	star) cluster_star 8 >/dev/null && cluster_mtu 1500 ;;
	fabric) cluster_up "$NC_TOP/selftests/net/topologies/two-switch-8x2.topo" >/dev/null &&
		cluster_mtu 9000 ;;
	esac || { echo "cluster $part failed" >&2; exit 1; }
	# shellcheck disable=SC2119	# no module parameters
	nc_load && nc_comm_up 1 >/dev/null || { echo "module or comm failed" >&2; exit 1; }
	for r in $(seq "$ROUNDS"); do
		for way in whole single; do
			n=1
			[ $way = whole ] && n=65535
			nc_gso_segs $n || exit 1
			for op in "${OPS[@]}"; do
				sizes=("${SIZES[@]}")
				[ "$op" = alltoall ] && sizes=("${A2A_SIZES[@]}")
				for s in "${sizes[@]}"; do
					name=$part-$op-$way-$s-$r
					t0=$(softirq_ticks)
					nc_stats_save h1 "$T_LOG/$name.pre.json"
					run "$name" --comm 1 --timeout 60000 --op "$op" --min "$s" \
						--max "$s" --iters "$ITERS" --warmup 3 >/dev/null &&
						runs+=("$part:$op:$way:$s:$r:$(( $(softirq_ticks) - t0 )):$(
							nc_stats_since "$T_LOG/$name.pre.json" h1 tx_gso)")
				done
			done
		done
	done
	nc_unload
	cluster_down >/dev/null 2>&1
done

python3 - "$T_LOG" "$(uname -r)" "$(nproc)" "$ITERS" "$ROUNDS" "${runs[@]}" >"$REPORT" <<'PY'
import json, statistics, sys
log, kver, ncpu, iters, rounds = sys.argv[1:6]
d = {}
for arg in sys.argv[6:]:
    part, op, way, size, r, ticks, gso = arg.split(":")
    res = json.load(open("%s/%s-%s-%s-%s-%s.json" % (log, part, op, way, size, r)))["results"][0]
    d.setdefault((part, op, int(size)), {}).setdefault(way, []).append(
        (res["p50_us"], int(ticks) * 10 / (res["iters"] + 3), int(gso)))
print("# Several frames an skb, or one: allreduce and alltoall side by side\n")
print("Made by selftests/net/bench_gso.sh (`make bench-gso`): kernel %s, %s vCPUs, QEMU/TCG."
      % (kver, ncpu))
print("ncbench --op allreduce (double sum, every size on the kernel's trees) and --op"
      " alltoall (bytes per peer), %s timed"
      " iterations and 3 warm-up a size; \"whole\": the module's default, a destination's"
      " frames in one skb where the device passes it whole; \"single\": `gso_max_segs 1`"
      " on every eth0, one frame an skb.  The two ways alternate, %s rounds each; p50 in"
      " microseconds (the median of the rounds' p50), softirq: the guest's softirq time"
      " per operation (ms, from /proc/stat ticks), h1's skbs of several frames sent.\n"
      % (iters, rounds))
names = {"star": "8-host star, unshaped, MTU 1500",
         "fabric": "two-switch-8x2 (16 hosts, 100 Mbit/s cables), MTU 9000"}
for part in ("star", "fabric"):
    rows = sorted(k for k in d if k[0] == part)
    if not rows:
        continue
    print("## %s\n" % names[part])
    print("| op | bytes | p50 whole | p50 single | single / whole | softirq ms whole | softirq ms single | h1 tx_gso |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for k in rows:
        w, s = d[k].get("whole", []), d[k].get("single", [])
        med = lambda v, i: statistics.median(x[i] for x in v) if v else float("nan")
        print("| %s | %d | %.0f | %.0f | %.2f | %.1f | %.1f | %d |" % (
            k[1], k[2], med(w, 0), med(s, 0), med(s, 0) / med(w, 0) if w and s else float("nan"),
            med(w, 1), med(s, 1), sum(x[2] for x in w)))
    print()
PY
cat "$REPORT"
