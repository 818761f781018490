#!/bin/bash
# Every test of netcoll in one run: user-space unit tests, the library's
# boundary (abi-check), checkpatch and
# sparse over the kernel code, a DKMS build, then the module tests inside a
# QEMU guest (selftests/net/run-all.sh), on Debian's default kernel and on
# its 6.12 line.  One line per test, "ok - name" or
# "FAIL - name", and a last line "N passed, N failed".
#
#   selftests/check.sh --kver KERNEL_RELEASE [--kver-next RELEASE] UNIT_TEST_BINARY...
set -uo pipefail
cd "$(dirname "$0")/.."

kver=
kver_next=
if [ "${1:-}" = --kver ]; then kver=$2; shift 2; fi
if [ "${1:-}" = --kver-next ]; then kver_next=$2; shift 2; fi
[ -n "$kver" ] || { echo "check: --kver required" >&2; exit 2; }

passed=0
failed=0
log=build/check
mkdir -p "$log"

# Re-print a sub-run's ok/FAIL lines under a prefix and count them.
tally() {
	local prefix=$1 file=$2 line
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) passed=$((passed + 1)); echo "ok - $prefix${line#ok - }" ;;
		"FAIL - "*) failed=$((failed + 1)); echo "FAIL - $prefix${line#FAIL - }" ;;
		esac
	done <"$file"
}

# One ok/FAIL line for a whole command; its output goes to a log file.
step() {
	local name=$1; shift
	if "$@" >"$log/$name.log" 2>&1; then
		passed=$((passed + 1)); echo "ok - $name"
	else
		failed=$((failed + 1)); echo "FAIL - $name (see $log/$name.log)"
		tail -n 20 "$log/$name.log" | sed 's/^/    /'
	fi
}

for t in "$@"; do
	name=$(basename "$t")
	if ! "$t" >"$log/$name.log" 2>&1; then
		grep -q '^FAIL - ' "$log/$name.log" ||
			{ failed=$((failed + 1)); echo "FAIL - unit/$name exited non-zero"; }
	fi
	tally "unit/$name: " "$log/$name.log"
done

step abi scripts/abi-check.sh
step checkpatch scripts/checkpatch.sh
sparse_clean() {
	make --no-print-directory sparse >"$log/sparse.out" 2>&1 || return 1
	! grep -E 'warning:|error:' "$log/sparse.out"
}
step sparse sparse_clean
step dkms scripts/dkms-check.sh "$kver"

# The module itself, in a guest booting the kernel it was built for:
# vm_suite NAME KVER [NC_KO]
vm_suite() {
	local name=$1 kv=$2 ko=${3:-} status
	NC_KO=$ko selftests/vm/run-vm.sh --kver "$kv" --timeout 3000 \
		--out "build/vm/$name" -- selftests/net/run-all.sh >"$log/$name.log" 2>&1
	status=$?
	tally "$name/" "$log/$name.log"
	if [ $status -ne 0 ]; then
		failed=$((failed + 1))
		echo "FAIL - $name: run-vm.sh exited $status (see $log/$name.log, build/vm/$name/dmesg.txt)"
		grep -v -E '^(ok|FAIL) - ' "$log/$name.log" | tail -n 20 | sed 's/^/    /'
	else
		passed=$((passed + 1))
		echo "ok - $name: guest $kv clean (no kernel warning), module unloaded"
	fi
}
vm_suite vm "$kver"

# The second kernel line (Debian 12's 6.12): the module built out of tree
# for it, without warnings, then the same suite in a guest booting it.
if [ -z "$kver_next" ]; then
	failed=$((failed + 1))
	echo "FAIL - next kernel: no Debian 6.12 headers installed (make deps)"
else
	next_dir=build/kmod-$kver_next
	step "module-$kver_next" scripts/build-module.sh "$kver_next" "$next_dir"
	[ -f "$next_dir/kmod/netcoll.ko" ] &&
		vm_suite vm-next "$kver_next" "$PWD/$next_dir/kmod/netcoll.ko"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
