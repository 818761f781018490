#!/bin/bash
# What authenticated frames cost (run in the VM, like bench_reduce.sh):
# one emulated star of 8 hosts, two communicators on the same members, one
# without a key and one with (HMAC-SHA256 tags, replay windows), measured
# in alternating rounds in one run.  Writes $NC_OUT/auth-bench.md with
# alltoall throughput and allreduce latency (p50, the median of the
# rounds), keyed against not.  Every first result is checked by ncbench.
T_NAME=bench_auth
source "$(dirname "$0")/lib.sh"
set -u
REPORT=$NC_OUT/auth-bench.md
HOSTS=${NC_BENCH_HOSTS:-8}
ITERS=${NC_BENCH_ITERS:-200}
ROUNDS=${NC_BENCH_ROUNDS:-3}
RUN_TIMEOUT=${NC_BENCH_RUN_TIMEOUT:-900}

# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"

cluster_star "$HOSTS" >/dev/null || { echo "cluster up failed" >&2; exit 1; }
# shellcheck disable=SC2119	# no module parameters
nc_load || { echo "insmod failed" >&2; cluster_down; exit 1; }
head -c 32 /dev/urandom >"$T_LOG/key"
nc_comm_up 1 >/dev/null || { echo "comm 1 failed" >&2; exit 1; }
r=0
for h in $(cluster_hosts); do
	on "$h" "$NCTL" comm add id 2 dev eth0 rank $r members "$(cluster_members)" \
		key "$T_LOG/key" || { echo "comm 2 failed" >&2; exit 1; }
	r=$((r + 1))
done

runs=""
for round in $(seq "$ROUNDS"); do
	for id in 1 2; do
		name=a2a-c$id-r$round
		run "$name" --comm $id --op alltoall --min 1024 --max 262144 \
			--iters "$ITERS" --timeout 30000 >/dev/null &&
			runs+=" a2a:$id:$T_LOG/$name.json"
		name=red-c$id-r$round
		run "$name" --comm $id --op allreduce --min 8 --max 65536 \
			--iters "$ITERS" --timeout 30000 >/dev/null &&
			runs+=" red:$id:$T_LOG/$name.json"
	done
done
driver=$(awk '/^name *: hmac\(sha256\)/ { n = 1 } n && /^driver/ { print $3; exit }' /proc/crypto)

{
	echo "# What authenticated frames cost"
	echo
	echo "Made by selftests/net/bench_auth.sh (make bench-auth) in a QEMU/TCG guest,"
	echo "$(nproc) vCPUs, kernel $(uname -r), $(date -u +%Y-%m-%d).  A star of $HOSTS hosts on"
	echo "unshaped veth cables; communicator 1 without a key, communicator 2 with one"
	echo "(HMAC-SHA256 truncated to 128 bits, crypto driver \`${driver:-?}\`, and the"
	echo "replay windows); $ROUNDS rounds alternating between them, $ITERS iterations per"
	echo "size (ncbench, OSU style: a barrier before each).  Each figure is the median"
	echo "over the rounds of each run's p50.  The guest's CPU has no SHA extensions, so"
	echo "the tag is computed by the generic C code under emulation: the ratio is a"
	echo "worst case for hosts with SHA-NI."
} >"$REPORT"
# shellcheck disable=SC2086	# one word per run
python3 - $runs >>"$REPORT" <<'PY'
import json, statistics, sys
data = {}
for arg in sys.argv[1:]:
    kind, comm, path = arg.split(":", 2)
    for row in json.load(open(path))["results"]:
        if kind == "a2a" and row.get("op") not in (None, "alltoall"):
            continue
        data.setdefault((kind, row["size"], comm), []).append(row)
def med(rows, key):
    return statistics.median(r[key] for r in rows)
def label(s):
    return "%d B" % s if s < 1024 else "%d KiB" % (s // 1024)
print("\n## Alltoall throughput\n")
print("| bytes per peer | no key, Mbit/s | keyed, Mbit/s | keyed / no key |")
print("|---:|---:|---:|---:|")
for s in sorted({k[1] for k in data if k[0] == "a2a"}):
    a, b = data.get(("a2a", s, "1")), data.get(("a2a", s, "2"))
    if not a or not b or "mbit_s" not in a[0]:
        continue
    x, y = med(a, "mbit_s"), med(b, "mbit_s")
    print("| %s | %.1f | %.1f | %.2f |" % (label(s), x, y, y / x if x else 0))
print("\n## Allreduce latency (double sum)\n")
print("| vector | no key, p50 us | keyed, p50 us | keyed / no key |")
print("|---:|---:|---:|---:|")
for s in sorted({k[1] for k in data if k[0] == "red"}):
    a, b = data.get(("red", s, "1")), data.get(("red", s, "2"))
    if not a or not b:
        continue
    x, y = med(a, "p50_us"), med(b, "p50_us")
    print("| %s | %.1f | %.1f | %.2f |" % (label(s), x, y, y / x if x else 0))
PY
cluster_down
nc_unload
