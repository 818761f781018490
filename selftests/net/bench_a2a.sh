#!/bin/bash
# Alltoall orders side by side on shaped emulated clusters (run in the VM by
# `make bench-alltoall`).  For each topology and message size: p50
# completion time of sched / linear / pairwise / ring in one run, the
# aggregate throughput, and the ratio to the physical bound (busiest link's
# load x message size / its rate).  Guest CPU idle time is recorded to show
# the emulator is not the bottleneck; frames resent and frames the local
# qdisc refused (summed over hosts, per order and all sizes) show what the
# transport had to do.  Writes $NC_OUT/alltoall-bench.md.
T_NAME=bench
source "$(dirname "$0")/lib.sh"
set -u
TOPO=$NC_TOP/selftests/net/topologies
REPORT=$NC_OUT/alltoall-bench.md
MIN=${NC_BENCH_MIN:-8192}
MAX=${NC_BENCH_MAX:-262144}
ITERS=${NC_BENCH_ITERS:-5}
ALGOS=${NC_BENCH_ALGOS:-"linear pairwise ring"}
# Installed schedules: Faraj-Yuan everywhere; on fat trees also Prisacari's
# OPT and its XOR/LIN baselines (they only verify where the tree is fat).
KINDS=${NC_BENCH_KINDS:-"aapc opt xor lin"}
# Every topology's link rates are scaled so that its ideal aggregate
# throughput (P(P-1) blocks in the bound's time) is this many Mbit/s: what
# the emulator sustains with CPU to spare, so it is not the bottleneck.
AGGREGATE=${NC_BENCH_AGGREGATE:-200}
# Jumbo frames: the emulator's cost is per packet, not per byte.
MTU=${NC_BENCH_MTU:-9000}

cluster_gen_star 16 rate 50mbit >"$NC_OUT/star16.topo"
TOPOS=${NC_BENCH_TOPOS:-"$NC_OUT/star16.topo $TOPO/two-switch-8x2.topo $TOPO/chain3x4.topo $TOPO/two-level-ft.topo"}

# scale FILE : the factor (<= 1) that brings FILE's ideal aggregate
# throughput to $AGGREGATE Mbit/s.
scale() {
	"$NCTL" -j sched show topology "$1" | python3 -c 'import json,sys
d = json.load(sys.stdin); p = d["hosts"]
agg = p * (p - 1) * 8 / d["bound_ns_per_byte"] * 1e3	# Mbit/s
print("%.6f" % min(1.0, float(sys.argv[1]) / agg))' "$AGGREGATE"
}

# scaled FILE FACTOR : a copy of FILE under $NC_OUT with every rate x FACTOR
# (in whole kbit/s).
scaled() {
	local out=$NC_OUT/scaled-$(basename "$1")
	awk -v f="$2" '{
		for (i = 1; i < NF; i++)
			if ($i == "rate" && match($(i + 1), /^[0-9.]+/)) {
				v = $(i + 1) + 0; u = substr($(i + 1), RLENGTH + 1)
				k = u == "gbit" ? 1e6 : u == "mbit" ? 1e3 : u == "kbit" ? 1 : 1e-3
				$(i + 1) = sprintf("%dkbit", v * k * f)
			}
		print
	}' "$1" >"$out"
	echo "$out"
}

# counters NAME... : the sum over every host of these counters.
counters() {
	local h
	for h in $(cluster_hosts); do
		on "$h" "$NCTL" -j stats
	done | python3 -c 'import json,sys
names = sys.argv[1:]
print(sum(json.loads(l).get(n, 0) for l in sys.stdin if l.strip() for n in names))' "$@"
}

# Frames the emulated switches dropped (their egress queues overflowed:
# contention), over every cable end in the fabric.
fabric_drops() {
	tc -n "$(cluster_fabric_ns)" -s -j qdisc show | python3 -c 'import json,sys
print(sum(q.get("drops", 0) for q in json.load(sys.stdin) if q.get("root")))'
}

cpu_idle() { awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }

# bench ALGO : ncbench on every rank; rank 0's JSON (times of the slowest
# rank per iteration) on stdout.
bench() {
	local h r=0 pids=() out=$T_LOG/$1.json
	for h in $(cluster_hosts); do
		if [ $r -eq 0 ]; then
			on "$h" "$NCBENCH" --comm 1 --rank 0 --op alltoall --algo "$1" -j \
				--min "$MIN" --max "$MAX" --iters "$ITERS" --warmup 1 \
				--timeout 60000 >"$out" &
		else
			on "$h" "$NCBENCH" --comm 1 --rank $r --op alltoall --algo "$1" \
				--min "$MIN" --max "$MAX" --iters "$ITERS" --warmup 1 \
				--timeout 60000 >/dev/null &
		fi
		pids+=($!)
		r=$((r + 1))
	done
	for h in "${pids[@]}"; do wait "$h" || return 1; done
	cat "$out"
}

nc_load
{
	echo "# Alltoall orders on emulated switch trees"
	echo
	echo "Made by \`make bench-alltoall\` (selftests/net/bench_a2a.sh) in a QEMU/TCG guest,"
	echo "$(nproc) vCPUs, kernel $(uname -r), $(date -u +%Y-%m-%d)."
	echo "p50 of $ITERS iterations after 1 warm-up, each started by an untimed barrier (OSU) and"
	echo "timed until its slowest rank is done; bound = busiest link's load x size / rate"
	echo "(Faraj & Yuan's phase count at link rate); ratio = p50 / bound (1.00 is ideal)."
	echo "Throughput counts P(P-1) blocks. idle = guest CPU idle during that order's run."
	echo "resent / timeouts / refused / lost = data frames retransmitted / retransmission timeouts"
	echo "/ frames a sending host's qdisc refused (the sender retries them) / frames the emulated"
	echo "switches dropped (contention),"
	echo "summed over the cluster for that order's run (all sizes)."
	echo "Each topology's link rates are scaled so that its ideal aggregate throughput is"
	echo "$AGGREGATE Mbit/s (NC_BENCH_AGGREGATE), which the emulator sustains with CPU to spare"
	echo "(idle); MTU $MTU (NC_BENCH_MTU): the emulator's cost is per packet, so jumbo frames"
	echo "keep it out of the way."
} >"$REPORT"

# ideal51 JSON TOPO BOUND: OPT against Prisacari et al.'s section 5.1
# ideal, T = sum over levels l of count(l) x (2 t_path(l) + (F + 1) S/B):
# each source's messages one after another, each with its path latency
# and an ack.  Two columns: latency 0 (N - 1 messages at the hosts' rate;
# on a half-bisection tree below the bound: the top links need N message
# times, the hosts N - 1), and this emulator's own latencies.  Its
# switches store and forward whole frames and its cables add no delay, so
# a message takes its frames' time on the sender's link, then its last
# frame's time on every further link of the path; its ack, one header-only
# frame, crosses the path back.  Two-level trees (hosts, leaves, one root).
ideal51() {
	python3 - "$@" <<'PY'
import json, math, re, sys
d = json.loads(sys.argv[1]); bound = float(sys.argv[3]); mtu = int(sys.argv[4])
text = open(sys.argv[2]).read()
unit = {"bit": 1e-6, "kbit": 1e-3, "mbit": 1, "gbit": 1e3}
rate = r"rate (\d+(?:\.\d+)?)([kmg]?bit)"
hosts = [(m.group(1), float(m.group(2)) * unit[m.group(3).lower()] * 1e6)
         for m in re.finditer(r"^host \S+ (\S+) .*" + rate, text, re.M | re.I)]
trunks = [float(m.group(1)) * unit[m.group(2).lower()] * 1e6
          for m in re.finditer(r"^link \S+ \S+ .*" + rate, text, re.M | re.I)]
n, host_bps, trunk_bps = len(hosts), hosts[0][1], trunks[0]
m1 = sum(1 for h in hosts if h[0] == hosts[0][0])	# hosts per leaf
HDR = 48 + 14						# netcoll + Ethernet headers

def ms(nbytes, bps):
    return nbytes * 8 / bps * 1e3

def ideal(size, latency):
    if not latency:
        return (n - 1) * ms(size, host_bps)
    frag = mtu - 48
    f = max(1, math.ceil(size / frag))
    t = ms(size + f * HDR, host_bps)
    last = size - (f - 1) * frag + HDR
    near = t + ms(last, host_bps) + 2 * ms(HDR, host_bps)
    far = near + 2 * (ms(last, trunk_bps) + ms(HDR, trunk_bps))
    return (m1 - 1) * near + (n - m1) * far

print()
print("OPT against Prisacari et al.'s section 5.1 ideal, %d hosts at %.3f Mbit/s,"
      " %d per leaf; with latency 0 it is %.4f of the bound." % (
          n, host_bps / 1e6, m1, (n - 1) * 8e3 / (host_bps / 1e6) / bound))
print()
print("| size/peer | OPT p50 ms | 5.1 ideal ms, latency 0 | OPT / that"
      " | 5.1 ideal ms, store-and-forward latency | OPT / that |")
print("|---:|---:|---:|---:|---:|---:|")
for r in d["results"]:
    i0, i1 = ideal(r["size"], False), ideal(r["size"], True)
    p50 = r["p50_us"] / 1e3
    print("| %d KiB | %.1f | %.1f | %.2f | %.1f | %.2f |" % (
        r["size"] // 1024, p50, i0, p50 / i0, i1, p50 / i1))
PY
}

for topo in $TOPOS; do
	name=$(basename "$topo" .topo)
	factor=$(scale "$topo") || { echo "$topo: no schedule, skipped" >&2; continue; }
	topo=$(scaled "$topo" "$factor")
	cluster_up "$topo" >/dev/null
	cluster_mtu "$MTU"
	nc_comm_up 1 >/dev/null
	show=$("$NCTL" -j sched show topology "$topo")
	bound=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["bound_ns_per_byte"])' "$show")
	{
		echo
		echo "## $name: $(cluster_count) hosts"
		echo
		echo "Link rates x $factor (ideal aggregate $AGGREGATE Mbit/s):"
		echo
		echo '```'
		grep -vE '^\s*(#|$)' "$topo" | head -n 40
		echo '```'
		echo
	} >>"$REPORT"
	runs=""
	for kind in $KINDS; do
		# Fat-tree kinds only where the tree has fat-tree levels.
		show=$("$NCTL" -j sched show topology "$topo" kind "$kind" 2>/dev/null)
		grep -q '"levels":\[{' <<<"$show" || [ "$kind" = aapc ] || continue
		runs="$runs sched:$kind"
		python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print("- %s: %d phases (bottleneck load %d), %d syncs (%d before pruning); verifier %s." % (sys.argv[2], d["phases"], d["bottleneck_load"], d["syncs"], d["syncs_unpruned"], "ok" if d["ok"] else "FAILED: "+d["why"]))' "$show" "$kind" >>"$REPORT"
	done
	{
		echo
		echo "| size/peer | order | p50 ms | Mbit/s | bound ms | ratio | idle | resent | timeouts | refused | lost |"
		echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	} >>"$REPORT"
	opt_json=""
	for run in $runs $ALGOS; do
		algo=${run%%:*}
		if [ "$algo" = sched ]; then
			for h in $(cluster_hosts); do
				on "$h" "$NCTL" sched install id 1 topology "$topo" kind "${run#sched:}" >/dev/null
			done
		fi
		resent0=$(counters retransmits)
		rto0=$(counters rto_expired)
		refused0=$(counters drop_tx)
		lost0=$(fabric_drops)
		read -r i0 t0 < <(cpu_idle)
		json=$(bench "$algo") || { echo "| | $run | failed | | | | | | | | |" >>"$REPORT"; continue; }
		[ "$run" = sched:opt ] && opt_json=$json
		read -r i1 t1 < <(cpu_idle)
		idle=$(( (i1 - i0) * 100 / (t1 - t0 + 1) ))
		resent=$(( $(counters retransmits) - resent0 ))
		refused=$(( $(counters drop_tx) - refused0 ))
		lost=$(( $(fabric_drops) - lost0 ))
		rto=$(( $(counters rto_expired) - rto0 ))
		# where the switches dropped, for a closer look
		tc -n "$(cluster_fabric_ns)" -s qdisc show >"$T_LOG/$name-$run-fabric-qdiscs.txt"
		python3 - "$json" "$bound" "$run" "$idle" "$resent $rto $refused $lost" >>"$REPORT" <<'PY'
import json, sys
d = json.loads(sys.argv[1]); bound = float(sys.argv[2]); algo = sys.argv[3]
idle = sys.argv[4]; counts = " | ".join(sys.argv[5].split())
for r in d["results"]:
    b_ms = bound * r["size"] / 1e6
    print("| %d KiB | %s | %.1f | %.0f | %.1f | %.2f | %s%% | %s |" % (
        r["size"] // 1024, algo, r["p50_us"] / 1e3, r["mbit_s"], b_ms,
        r["p50_us"] / 1e3 / b_ms if b_ms else 0, idle, counts))
PY
	done
	[ -n "$opt_json" ] && ideal51 "$opt_json" "$topo" "$bound" "$MTU" >>"$REPORT"
	echo "$name done" >&2
	cluster_down
done
nc_unload
cat "$REPORT"
