#!/bin/bash
# An instruction profile of small allreduces (selftests/net/bench_small.sh)
# in a one-vCPU guest under QEMU's instruction counting (-icount: the
# guest's clock counts its instructions, 2^SHIFT ns each, so the latencies
# do not depend on the host's load), with the tbprof plugin counting the
# instructions of every kernel function between the workload's two marks.
#
#   scripts/tcg-prof/profile.sh OUT [run-vm.sh options, e.g. --kver V]
#
# Environment: NC_KO (the module to load; default the tree's), SHIFT (2:
# 250 MIPS), NC_BENCH_SIZE, NC_BENCH_ITERS (bench_small.sh).  Writes
# OUT/tbprof.txt, OUT/kallsyms, OUT/small.json, OUT/stats.txt and prints
# the p50 and the costliest functions.  Compare two runs with
#   scripts/tcg-prof/report.py A/tbprof.txt A/kallsyms B/tbprof.txt B/kallsyms
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(realpath -m "${1:?usage: profile.sh OUT [run-vm.sh options]}")
shift
mkdir -p "$top/build/tcg-prof" "$out"
plugin=$top/build/tcg-prof/tbprof.so
src=$top/scripts/tcg-prof/tbprof.c
[ "$plugin" -nt "$src" ] || cc -O2 -Wall -shared -fPIC -o "$plugin" "$src"
vm() { "$top/selftests/vm/run-vm.sh" --smp 1 "$@"; }
# The mark: ksys_sync, from the guest (its kernel boots without KASLR).
kver=$(grep -oP '(?<=--kver )\S+' <<<"$*" || true)
cache=$top/build/tcg-prof/ksys_sync-${kver:-default}
if [ ! -s "$cache" ]; then
	vm "$@" --out "$out/probe" -- sh -c 'grep -w ksys_sync /proc/kallsyms' |
		awk '$3 == "ksys_sync" { print $1 }' >"$cache"
fi
[ -s "$cache" ] || { echo "profile.sh: no ksys_sync in the guest's kallsyms" >&2; exit 1; }
vm "$@" --qemu -icount --qemu "shift=${SHIFT:-2},sleep=off" \
	--qemu -plugin --qemu "$plugin,out=$out/tbprof.txt,mark=$(cat "$cache")" \
	--out "$out/vm" -- selftests/net/bench_small.sh >"$out/vm.log" 2>&1 ||
	{ tail -n 20 "$out/vm.log" >&2; exit 1; }
cp "$out/vm/kallsyms" "$out/vm/small.json" "$out/vm/stats.txt" "$out/"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps(r)[:400])' "$out/small.json"
"$top/scripts/tcg-prof/report.py" "$out/tbprof.txt" "$out/kallsyms" --top 25
