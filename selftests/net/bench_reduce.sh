#!/bin/bash
# Reductions on an emulated star of 8 hosts (run in the VM, like
# bench_a2a.sh).  Writes $NC_OUT/reduce-bench.md with
#   (a) in-kernel allreduce against the same tree run by the processes over
#       UDP (ncbench --transport udp), quiet and with CPU hogs on every host
#       (--noise): p50/p99/max at 8 B, 1 KiB and 16 KiB;
#   (b) result distribution, multicast against down the tree, allreduce
#       8 B .. 4 KiB;
#   (c) the latency model of Yu et al. (SC'03): ncbench --calibrate, then
#       predicted against measured reduce/allreduce for f = 2 .. 8 (their
#       Figure 8); serial reductions on communicators of 2 .. 7 hosts;
#   (d) the spread of the ranks' mean 8 B allreduce latency (SHARP's
#       Table 1), from the runs of (a).
# Every result checked by ncbench (first iteration of each size).
T_NAME=bench_reduce
source "$(dirname "$0")/lib.sh"
set -u
REPORT=$NC_OUT/reduce-bench.md
HOSTS=${NC_BENCH_HOSTS:-8}
ITERS=${NC_BENCH_ITERS:-500}
CAL_ITERS=${NC_BENCH_CAL_ITERS:-200}
NOISE=${NC_BENCH_NOISE:-2}
# Cable options of the star (cluster.sh OPTS), e.g. "delay 50us"; none by default.
LINK=${NC_BENCH_LINK:-}
# One benchmark run, every rank, at most this many seconds.
RUN_TIMEOUT=${NC_BENCH_RUN_TIMEOUT:-900}
PEERS=$NC_OUT/udp-peers
CAL_BASE=100	# calibration communicators: id CAL_BASE + size

# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"

kern() { local n=$1; shift; run "$n" --comm 1 --timeout 20000 "$@"; }
udp() { local n=$1; shift; run "$n" --transport udp --peers "$PEERS" --timeout 20000 "$@"; }

# Sum of counter NAME over all hosts ("?" if the module has no such counter).
stat_sum() {
	local h v s=0
	for h in $(cluster_hosts); do
		v=$(nc_stat "$h" "$1" 2>/dev/null) || { echo "?"; return; }
		s=$((s + v))
	done
	echo "$s"
}

# Communicators CAL_BASE+k of the first k hosts, k = 2 .. HOSTS-1.
cal_comms_up() {
	local k h r macs=() ids=""
	mapfile -t macs < <(cluster_members | tr ',' '\n')
	for ((k = 2; k < HOSTS; k++)); do
		r=0
		for h in $(cluster_hosts | head -n $k); do
			on "$h" "$NCTL" comm add id $((CAL_BASE + k)) dev eth0 rank $r \
				members "$(IFS=,; echo "${macs[*]:0:$k}")" cookie 0x5eed || return 1
			r=$((r + 1))
		done
		ids+="${ids:+,}$((CAL_BASE + k))"
	done
	echo "$ids"
}

cal_comms_down() {
	local k h
	for ((k = 2; k < HOSTS; k++)); do
		for h in $(cluster_hosts | head -n $k); do
			on "$h" "$NCTL" comm del id $((CAL_BASE + k)) >/dev/null 2>&1
		done
	done
}

# shellcheck disable=SC2086	# LINK is a list of options
cluster_star "$HOSTS" $LINK >/dev/null || { echo "cluster up failed" >&2; exit 1; }
# shellcheck disable=SC2119	# no module parameters
nc_load || { echo "insmod failed" >&2; cluster_down; exit 1; }
nc_comm_up 1 >/dev/null || { echo "comm add failed" >&2; exit 1; }
r=0
for h in $(cluster_hosts); do
	echo "$r $(cluster_ip "$h")"
	r=$((r + 1))
done >"$PEERS"

{
	echo "# Reductions on an emulated star of $HOSTS hosts"
	echo
	echo "Made by selftests/net/bench_reduce.sh in a QEMU/TCG guest, $(nproc) vCPUs,"
	echo "kernel $(uname -r), $(date -u +%Y-%m-%d).  ncbench: $ITERS iterations per size"
	echo "(NC_BENCH_ITERS) after a barrier each (OSU style), double sum; every first result"
	echo "checked bit for bit against the fixed-order reference.  Latencies in microseconds."
	echo "Cables: ${LINK:-unshaped veth} (NC_BENCH_LINK).  The UDP baseline runs the same"
	echo "f-nomial tree (degree 4) and order in the processes, over UDP sockets on eth0."
	echo "Noise: $NOISE processes spinning at nice 0 on every host (ncbench --noise)."
} >"$REPORT"

# --- (a) + (d): kernel against UDP, quiet and noisy --------------------------
a_runs=""
for t in kern udp; do
	for n in 0 "$NOISE"; do
		name=a-$t-noise$n
		if "$t" "$name" --op allreduce --min 8 --max 16384 --iters "$ITERS" \
			--per-rank --noise "$n" >/dev/null; then
			a_runs+=" $t:$n:$T_LOG/$name.json"
		else
			a_runs+=" $t:$n:"
		fi
	done
done
# shellcheck disable=SC2086	# one word per run
python3 - $a_runs >>"$REPORT" <<'PY'
import json, sys
runs = []
for arg in sys.argv[1:]:
    t, n, path = arg.split(":", 2)
    runs.append((t, int(n), json.load(open(path)) if path else None))
name = {"kern": "kernel", "udp": "UDP tree"}
print("\n## (a) Allreduce: in the kernel against processes over UDP\n")
print("| size | transport | noise | p50 | p99 | max | p99/p50 |")
print("|---:|---|---:|---:|---:|---:|---:|")
for size in (8, 1024, 16384):
    label = "%d B" % size if size < 1024 else "%d KiB" % (size // 1024)
    for t, n, d in runs:
        row = d and next((r for r in d["results"] if r["size"] == size), None)
        if not row:
            print("| %s | %s | %d | failed | | | |" % (label, name[t], n))
            continue
        print("| %s | %s | %d | %.1f | %.1f | %.1f | %.1f |" % (
            label, name[t], n, row["p50_us"], row["p99_us"], row["max_us"],
            row["p99_us"] / row["p50_us"] if row["p50_us"] else 0))
print("\n## (d) Per-rank spread of the mean 8 B allreduce latency\n")
print("Each rank's mean over the run; rank 0 gathers them with a reduction of a")
print("vector indexed by rank (SHARP, Table 1).\n")
print("| transport | noise | min | p25 | p50 | p75 | max | max/min |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
cols = []
for t, n, d in runs:
    row = d and next((r for r in d["results"] if r["size"] == 8), None)
    s = row and row.get("rank_mean_us")
    if not s:
        print("| %s | %d | failed | | | | | |" % (name[t], n))
        continue
    cols.append(("%s, noise %d" % (name[t], n), s["ranks"]))
    print("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f |" % (
        name[t], n, s["min"], s["p25"], s["p50"], s["p75"], s["max"],
        s["max"] / s["min"] if s["min"] else 0))
if cols:
    print("\n| rank | " + " | ".join(c[0] for c in cols) + " |")
    print("|---:|" + "---:|" * len(cols))
    for r in range(len(cols[0][1])):
        print("| %d | %s |" % (r, " | ".join("%.1f" % c[1][r] for c in cols)))
PY

# --- (b): multicast against down the tree ------------------------------------
b_tree="" b_mcast="" mc0=$(stat_sum agg_mcast_tx) rp0=$(stat_sum agg_repairs)
kern b-tree --op allreduce --dist tree --min 8 --max 4096 --iters "$ITERS" \
	>/dev/null && b_tree=$T_LOG/b-tree.json
mc1=$(stat_sum agg_mcast_tx) rp1=$(stat_sum agg_repairs)
kern b-mcast --op allreduce --dist mcast --min 8 --max 4096 --iters "$ITERS" \
	>/dev/null && b_mcast=$T_LOG/b-mcast.json
mc2=$(stat_sum agg_mcast_tx) rp2=$(stat_sum agg_repairs)
python3 - "$b_tree" "$b_mcast" "$mc0 $mc1 $mc2" "$rp0 $rp1 $rp2" >>"$REPORT" <<'PY'
import json, sys
tree, mcast = (json.load(open(p))["results"] if p else [] for p in sys.argv[1:3])
mc, rp = sys.argv[3].split(), sys.argv[4].split()
def delta(v, a, b):
    return str(int(v[b]) - int(v[a])) if "?" not in (v[a], v[b]) else "?"
print("\n## (b) Allreduce result distribution: multicast against the tree\n")
print("Multicast: the root sends each result fragment once to the group, lost")
print("frames are repaired by unicast.  Frames multicast / repaired, all hosts:")
print("tree run %s / %s, multicast run %s / %s.\n" % (
    delta(mc, 0, 1), delta(rp, 0, 1), delta(mc, 1, 2), delta(rp, 1, 2)))
print("| size | tree p50 | tree p99 | mcast p50 | mcast p99 | mcast/tree p50 |")
print("|---:|---:|---:|---:|---:|---:|")
sizes = sorted({r["size"] for r in tree} | {r["size"] for r in mcast})
for s in sizes:
    a = next((r for r in tree if r["size"] == s), None)
    b = next((r for r in mcast if r["size"] == s), None)
    f = lambda r, k: "%.1f" % r[k] if r else "failed"
    ratio = "%.2f" % (b["p50_us"] / a["p50_us"]) if a and b and a["p50_us"] else ""
    print("| %d | %s | %s | %s | %s | %s |" % (s, f(a, "p50_us"), f(a, "p99_us"),
          f(b, "p50_us"), f(b, "p99_us"), ratio))
if not sizes:
    print("| | failed | | | | |")
PY

# --- (c): the latency model ---------------------------------------------------
c_runs=""
if ids=$(cal_comms_up) &&
	kern c-kernel --calibrate --calib-comms "$ids" --iters "$CAL_ITERS" --warmup 10 >/dev/null; then
	c_runs+=" kernel:$T_LOG/c-kernel.json"
elif kern c-kernel-trees --calibrate --iters "$CAL_ITERS" --warmup 10 >/dev/null; then
	c_runs+=" kernel:$T_LOG/c-kernel-trees.json"
else
	c_runs+=" kernel:"
fi
cal_comms_down
if udp c-udp --calibrate --iters "$CAL_ITERS" --warmup 10 >/dev/null; then
	c_runs+=" udp:$T_LOG/c-udp.json"
else
	c_runs+=" udp:"
fi
# shellcheck disable=SC2086	# one word per run
python3 - $c_runs >>"$REPORT" <<'PY'
import json, sys
print("\n## (c) Latency model: predicted against measured\n")
print("T(P,f) = C + L ceil(log_f P) + (r+c)(f-1) floor(log_f P) + (r+c) ceil(P/f^floor(log_f P) - 1)")
print("(Yu, Buntinas, Graham, Panda, SC'03, 5.2), parameters from serial reductions")
print("(5.1).  model+down adds L per level for the result's way back (allreduce).")
print("Measured: p50 at rank 0 on the installed f-nomial tree.")
for arg in sys.argv[1:]:
    t, path = arg.split(":", 1)
    if not path:
        print("\n### %s\n\ncalibration failed (see the log)" % t)
        continue
    d = json.load(open(path)); c = d["calibrate"]
    how = ("flat trees on communicators of %s hosts" %
           ", ".join(str(p["P"]) for p in c["points"])
           if c["method"] == "comms" else
           "stand-in trees in the one communicator (root fan-in k = 1 .. P-1)")
    print("\n### %s, %d ranks, %d B\n" % ("kernel" if t == "kernel" else "UDP tree",
          d["ranks"], c["size"]))
    print("Serial fit from %s: slope %.2f us, intercept %.2f us%s." % (
        how, c["slope_us"], c["intercept_us"],
        "; 2-host allreduce %.1f us" % c["allreduce2_us"] if c["allreduce2_us"] else ""))
    print("L = %.2f us, r+c = %.2f us, C = %.2f us; best degree (model): %d.\n" % (
        c["L_us"], c["rc_us"], c["C_us"], c["best_degree"]))
    print("| f | model | reduce | model+down | allreduce | reduce/model |")
    print("|---:|---:|---:|---:|---:|---:|")
    for g in c["degrees"]:
        print("| %d%s | %.1f | %.1f | %.1f | %.1f | %.2f |" % (
            g["f"], " (best)" if g["f"] == c["best_degree"] else "",
            g["model_us"], g["reduce_p50_us"], g["allreduce_model_us"],
            g["allreduce_p50_us"],
            g["reduce_p50_us"] / g["model_us"] if g["model_us"] > 0 else 0))
PY

nc_unload
cluster_down
cat "$REPORT"
