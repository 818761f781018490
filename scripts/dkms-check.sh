#!/bin/bash
# Build the module through DKMS, as a package user would, in a private DKMS
# tree (nothing is installed on this machine).  Usage: dkms-check.sh KVER
set -euo pipefail
kver=$1
cd "$(dirname "$0")/.."
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src="$work/src/netcoll-$ver"
mkdir -p "$src" "$work/tree"
cp -r Kbuild dkms.conf kmod uapi "$src/"
find "$src" \( -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name '*.mod*' \) -delete
log="$work/log"
if dkms build --dkmstree "$work/tree" --sourcetree "$work/src" \
	-m netcoll -v "$ver" -k "$kver" >"$log" 2>&1 &&
   ls "$work/tree/netcoll/$ver/$kver"/*/module/netcoll.ko* >/dev/null 2>&1; then
	echo "dkms build netcoll/$ver for $kver: ok"
else
	cat "$log" >&2
	find "$work/tree" -name make.log -exec cat {} + >&2 || true
	echo "dkms build netcoll/$ver for $kver: failed"
	exit 1
fi
