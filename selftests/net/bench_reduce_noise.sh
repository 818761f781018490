#!/bin/bash
# The small allreduce under CPU noise, in a deterministic guest: the
# sequence of docs/core-reduce-ab.md ("Stop 68", "Stop 83").  An 8-host
# star, communicator 1, ncbench allreduce 8 B .. 16 KiB (double sum, 300
# iterations, --per-rank), quiet then with 2 spinning processes per host,
# once per retransmission floor in NC_BENCH_RTO_MIN (module parameter
# rto_min_ms; the module is loaded again for each).  Around each noisy run
# it keeps what tells the slow state: softirqs raised, ksoftirqd's CPU
# time and preemptions, the module's counters, the backlog's drops.
# Writes $NC_OUT/reduce-noise.md.  Meant for a 1-vCPU guest whose clock
# counts instructions (make bench-reduce-noise).
T_NAME=bench_reduce_noise
source "$(dirname "$0")/lib.sh"
set -u
# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
REPORT=$NC_OUT/reduce-noise.md
ITERS=${NC_BENCH_ITERS:-300}
RTO_MINS=${NC_BENCH_RTO_MIN:-2 100}

ksoftirqd_pid() {
	local d
	for d in /proc/[0-9]*; do
		[ "$(cat "$d/comm" 2>/dev/null)" = ksoftirqd/0 ] && { echo "${d#/proc/}"; return; }
	done
}
KSI=$(ksoftirqd_pid)

# snap TAG : the evidence into $T_LOG/TAG.*
snap() {
	local h
	cat /proc/softirqs >"$T_LOG/$1.softirqs"
	cat /proc/net/softnet_stat >"$T_LOG/$1.softnet"
	grep -E 'sum_exec_runtime|nr_involuntary_switches' "/proc/$KSI/sched" \
		>"$T_LOG/$1.ksoftirqd" 2>/dev/null
	for h in $(cluster_hosts); do
		on "$h" "$NCTL" -j stats >"$T_LOG/$1.$h.stats.json" 2>/dev/null
	done
}

cluster_star 8 >/dev/null || { echo "cluster up failed" >&2; exit 1; }
runs=()
for rto in $RTO_MINS; do
	NC_KO_PARAMS="rto_min_ms=$rto" nc_load || { echo "insmod failed" >&2; exit 1; }
	nc_comm_up 1 >/dev/null || { echo "comm add failed" >&2; exit 1; }
	for noise in 0 2; do
		name=rto$rto-noise$noise
		snap "$name.pre"
		run "$name" --comm 1 --timeout 20000 --op allreduce --min 8 --max 16384 \
			--iters "$ITERS" --per-rank --noise "$noise" >/dev/null &&
			runs+=("$rto:$noise:$T_LOG/$name")
		snap "$name.post"
	done
	for h in $(cluster_hosts); do
		on "$h" "$NCTL" comm del id 1
		on "$h" "$NCTL" dev detach dev eth0
	done
	nc_unload
done

python3 - "$T_LOG" "$(uname -r)" "$(nproc)" "$ITERS" "${runs[@]}" >"$REPORT" <<'PY'
import glob, json, os, sys
log, kver, ncpu, iters = sys.argv[1:5]
print("# The small allreduce under CPU noise, by retransmission floor\n")
print("Made by selftests/net/bench_reduce_noise.sh: kernel %s, %s vCPU, 8-host star,"
      " ncbench allreduce (double sum) %s iterations a size, --per-rank;"
      " noise: 2 spinning processes per host. Latencies in microseconds (rank 0).\n"
      % (kver, ncpu, iters))
def softirqs(p):
    out = {}
    for line in open(p).read().splitlines()[1:]:
        f = line.split()
        out[f[0].rstrip(":")] = sum(int(x) for x in f[1:])
    return out
def sched(p):
    out = {}
    for line in open(p):
        k, v = line.split(":", 1)
        out[k.strip()] = float(v.split()[0])
    return out
def dropped(p):	# softnet_stat's second column, every CPU
    return sum(int(l.split()[1], 16) for l in open(p))
def stats(tag):
    tot = {}
    for p in glob.glob(tag + ".*.stats.json"):
        for k, v in json.load(open(p)).items():
            if isinstance(v, (int, float)):
                tot[k] = tot.get(k, 0) + v
    return tot
print("| rto_min_ms | noise | size | p50 | p99 | max |")
print("|---:|---:|---:|---:|---:|---:|")
ev = []
for arg in sys.argv[5:]:
    rto, noise, base = arg.split(":", 2)
    for r in json.load(open(base + ".json"))["results"]:
        print("| %s | %s | %d | %.1f | %.1f | %.1f |" % (rto, noise, r["size"], r["p50_us"],
                                                        r["p99_us"], r["max_us"]))
    pre, post = base + ".pre", base + ".post"
    sa, sb = softirqs(pre + ".softirqs"), softirqs(post + ".softirqs")
    ka, kb = sched(pre + ".ksoftirqd"), sched(post + ".ksoftirqd")
    na, nb = stats(pre), stats(post)
    d = lambda k: nb.get(k, 0) - na.get(k, 0)
    ev.append("| %s | %s | %d | %d | %.0f | %d | %d | %d | %d | %d |" % (
        rto, noise, sb["HRTIMER"] - sa["HRTIMER"], sb["NET_RX"] - sa["NET_RX"],
        kb["se.sum_exec_runtime"] - ka["se.sum_exec_runtime"],
        kb["nr_involuntary_switches"] - ka["nr_involuntary_switches"],
        d("rto_expired"), d("agg_repeats"), d("tx_frames"),
        dropped(post + ".softnet") - dropped(pre + ".softnet")))
print("\n| rto_min_ms | noise | HRTIMER softirqs | NET_RX softirqs | ksoftirqd ms | ksoftirqd preempted |"
      " timeouts | agg_repeats | frames sent | backlog drops |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
print("\n".join(ev))
PY
cat "$REPORT"
cluster_down >/dev/null 2>&1
