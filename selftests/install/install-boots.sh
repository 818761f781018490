#!/bin/bash
# The Debian packages on a machine that reboots into another kernel: three
# guests booting one after another on the same disk (run-vm.sh --upper: an
# ext4 image as the overlay root's upper layer, so the host stays
# untouched and what one boot installed is there at the next):
#   1. KVER: install (DKMS builds for KVER, and for KVER_NEXT as that
#      kernel's postinst hook would), modprobe, autoload, use;
#   2. KVER again, a fresh boot: nothing loaded it, the first nctl call does;
#   3. KVER_NEXT's line, a fresh boot: the same, use, then remove
#      everything.  The release booted is the one DKMS's postinst builds
#      for by itself besides the running kernel: the newest installed of
#      that line (with Debian 12's kernels the RT variant sorts last).
#      Another release would cost a third DKMS build and its depmods,
#      4 minutes under TCG, and test nothing more.
# Without KVER_NEXT (make check: DKMS's second build under TCG cost 8-11
# minutes of CI's 90) there is no third boot: the second removes.  Each
# boot writes its TAP lines to OUT/NAME.log (NAME: install, install-boot,
# install-next), its exit status to OUT/NAME.status and its guest logs
# under OUT/NAME/; a boot runs only if the one before passed.  Exit status:
# the first failing boot's.
#
#   install-boots.sh DEB_DIR OUT KVER [KVER_NEXT]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
debs=${1:?usage: install-boots.sh DEB_DIR OUT KVER [KVER_NEXT]}
out=${2:?}
kver=${3:?}
next=${4:-}
if [ -n "$next" ]; then
	newest=$(ls -d /usr/src/linux-headers-"$(cut -d. -f1,2 <<<"$next")".*-amd64 2>/dev/null |
		sort -V | tail -n 1)
	newest=${newest#/usr/src/linux-headers-}
	[ -n "$newest" ] && [ -e "/boot/vmlinuz-$newest" ] && next=$newest
fi
mkdir -p "$out"
disk=$out/upper.img
rm -f "$disk" "$out"/*.log "$out"/*.status
rc=0
# A boot's timeout holds DKMS's two builds under TCG (install-check): 16
# minutes on a slow day.
boot() { # NAME KVER STEP...
	local name=$1 kv=$2 status
	shift 2
	NC_INSTALL_KVERS=$next selftests/vm/run-vm.sh --kver "$kv" --upper "$disk" \
		--timeout 3000 --out "$out/$name" -- \
		selftests/install/t_install.sh "$debs" "$@" > "$out/$name.log" 2>&1
	status=$?
	echo $status > "$out/$name.status"
	[ $rc -ne 0 ] || rc=$status
	return $status
}
if [ -n "$next" ]; then
	boot install "$kver" install use &&
		boot install-boot "$kver" boot &&
		boot install-next "$next" boot use remove
else
	boot install "$kver" install use &&
		boot install-boot "$kver" boot remove
fi
rm -f "$disk"
exit $rc
