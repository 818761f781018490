#!/bin/bash
# Every test of netcoll in one run: user-space unit tests, the library's
# boundary (abi-check), checkpatch and
# sparse over the kernel code, a DKMS build, then the module tests inside a
# QEMU guest (selftests/net/run-all.sh) on Debian's default kernel, the
# Debian packages (built, lintian, then installed, rebooted into 6.12 and
# removed in guests: selftests/install/install-boots.sh); the module is
# also built for the 6.12 line and runs the guest suite there, and for the
# PREEMPT_RT variant of both lines, each with a smoke subset in a guest.  One TAP stream (selftests/lib/tap.sh): "ok N - name" or
# "not ok N - name" per test, the plan, and a last line "N passed, N failed".
#
#   selftests/check.sh --kver KERNEL_RELEASE [--kver-next RELEASE] UNIT_TEST_BINARY...
set -uo pipefail
cd "$(dirname "$0")/.."

kver=
kver_next=
if [ "${1:-}" = --kver ]; then kver=$2; shift 2; fi
if [ "${1:-}" = --kver-next ]; then kver_next=$2; shift 2; fi
[ -n "$kver" ] || { echo "check: --kver required" >&2; exit 2; }

# shellcheck source=lib/tap.sh
source selftests/lib/tap.sh
# Sub-runs' diagnostics stay in their logs; a failure shows its own.
TAP_DIAG=0
log=build/check
mkdir -p "$log"

# One result for a whole command; its output goes to a log file, its tail
# into the diagnostics when it fails.
step() {
	local name=$1; shift
	if "$@" >"$log/$name.log" 2>&1; then
		tap_ok "$name"
	else
		tap_fail "$name (see $log/$name.log)" "$(tail -n 20 "$log/$name.log")"
	fi
}

# sub_run NAME PREFIX FILE STATUS FAILED_BEFORE: a sub-run that printed
# its own results into FILE: relayed under PREFIX, and one failure more if
# it broke (no summary, or a failing status and no failed test).
sub_run() {
	local name=$1 prefix=$2 file=$3 status=$4 before=$5
	if ! tap_relay "$prefix" <"$file" ||
	   { [ "$status" -ne 0 ] && [ "$TAP_FAILED" -eq "$before" ]; }; then
		tap_fail "$name exited $status (see $file)" \
			"$(grep -v -E '^(not )?ok ' "$file" | tail -n 20)"
	fi
}

for t in "$@"; do
	name=$(basename "$t" .sh)
	before=$TAP_FAILED
	"$t" >"$log/$name.log" 2>&1
	sub_run "unit/$name" "unit/$name: " "$log/$name.log" $? "$before"
done

step abi scripts/abi-check.sh
step man scripts/man-check.sh
step checkpatch scripts/checkpatch.sh
sparse_clean() {
	make --no-print-directory sparse >"$log/sparse.out" 2>&1 || return 1
	! grep -E 'warning:|error:' "$log/sparse.out"
}
step sparse sparse_clean
step dkms scripts/dkms-check.sh "$kver"

# The module itself, in a guest booting the kernel it was built for:
# vm_suite NAME KVER [NC_KO [TEST...]]: every test of run-all.sh, or those
# named (a smoke subset, with a shorter timeout).
vm_suite() {
	local name=$1 kv=$2 ko=${3:-} status before=$TAP_FAILED timeout=3000
	shift $(($# < 3 ? $# : 3))
	[ $# -eq 0 ] || timeout=1200
	NC_KO=$ko selftests/vm/run-vm.sh --kver "$kv" --timeout "$timeout" \
		${VM_APPEND:+--append "$VM_APPEND"} \
		--out "build/vm/$name" -- selftests/net/run-all.sh "$@" >"$log/$name.log" 2>&1
	status=$?
	sub_run "$name" "$name/" "$log/$name.log" $status "$before"
	[ $status -ne 0 ] || tap_ok "$name: guest $kv clean (no kernel warning), module unloaded"
}
vm_suite vm "$kver"

# The Debian packages: built and lintian-clean, then installed on 6.1 (and
# DKMS-built for the 6.12 line too), used, booted again fresh, booted on
# 6.12, used and removed: three guests on one disk (install-boots.sh).
step debs scripts/build-debs.sh build/deb
if [ -f build/deb/netcoll-dkms_*_all.deb ]; then
	before=$TAP_FAILED
	selftests/install/install-boots.sh build/deb build/vm/install-boots "$kver" $kver_next
	for name in install install-boot install-next; do
		[ -f "build/vm/install-boots/$name.log" ] || continue
		cp "build/vm/install-boots/$name.log" "$log/$name.log"
		sub_run "$name" "$name/" "$log/$name.log" \
			"$(cat "build/vm/install-boots/$name.status" 2>/dev/null || echo 1)" "$before"
		before=$TAP_FAILED
	done
fi

# The second kernel line (Debian 12's 6.12): the module built out of tree
# for it, without warnings, and the guest suite on it but for the tests
# of user space alone (NC_SKIP: the cluster builder's self-test, LLDP
# discovery, the MPI interposer), which the first line's guest ran: 5 of
# its 17 minutes, and make check had come within 7 minutes of CI's 90.
# An oops
# panics that guest at once (oops=panic; panic=-1 with -no-reboot ends
# QEMU), as a hung guest would cost CI its timeout.  The three 6.12
# crashes of November 2026 (a corrupted slab list in the alltoall receive
# path, double faults in kmalloc from unshare and from ksoftirqd) came
# from QEMU 7.2's CMPXCHG16B flags, not from the module: run-vm.sh boots
# every guest with clearcpuid=cx16 since.
if [ -z "$kver_next" ]; then
	tap_fail "next kernel: no Debian 6.12 headers installed (make deps)"
else
	next_dir=build/kmod-$kver_next
	step "module-$kver_next" scripts/build-module.sh "$kver_next" "$next_dir"
	if [ -f "$next_dir/kmod/netcoll.ko" ]; then
		VM_APPEND="oops=panic" NC_SKIP="test-cluster.sh t_topo.sh t_mpi.sh" \
			vm_suite vm-next "$kver_next" "$PWD/$next_dir/kmod/netcoll.ko"
	fi
fi

# PREEMPT_RT, where spinlocks become sleeping locks (the receive path runs
# in a thread, not with interrupts off): on the RT variant of each line,
# the module built without warnings, and a smoke subset of the guest suite
# (the paths that take the communicator's lock in softirq: transport,
# loss and repair, faults, reductions, teardown races, and frames handed
# to the host's own receive path between ranks of one host).
rt_smoke=(t_netlink.sh t_alltoall.sh t_lossy.sh t_faults.sh t_reduce.sh t_races.sh
	t_ranks_per_host.sh)
# rt_of RELEASE: the newest installed RT release of RELEASE's line (6.1,
# 6.12), image and headers; nothing if there is none.
rt_of() {
	local line k
	line=$(cut -d. -f1,2 <<<"$1")
	k=$(ls -d /usr/src/linux-headers-"$line".*-rt-amd64 2>/dev/null | sort -V | tail -n 1)
	k=${k#/usr/src/linux-headers-}
	[ -n "$k" ] && [ -e "/boot/vmlinuz-$k" ] && echo "$k"
}
for base in "$kver" $kver_next; do
	rt=$(rt_of "$base")
	if [ -z "$rt" ]; then
		tap_fail "rt: no PREEMPT_RT kernel of the $base line installed (make deps)"
		continue
	fi
	rt_dir=build/kmod-$rt
	step "module-$rt" scripts/build-module.sh "$rt" "$rt_dir"
	[ -f "$rt_dir/kmod/netcoll.ko" ] &&
		VM_APPEND="oops=panic" vm_suite "vm-rt-$(cut -d. -f1,2 <<<"$base")" "$rt" \
			"$PWD/$rt_dir/kmod/netcoll.ko" "${rt_smoke[@]}"
done

tap_done
