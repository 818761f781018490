#!/bin/bash
# build-module.sh KVER DIR - build netcoll.ko for another installed kernel
# (e.g. Debian's 6.12 next to the default 6.1) in DIR, out of the source
# tree, so kmod/netcoll.ko of the default kernel stays as it is.  Fails on
# any compiler warning.
set -euo pipefail
cd "$(dirname "$0")/.."
kver=${1:?kernel release}
dir=${2:?output directory}
kdir=/lib/modules/$kver/build
[ -d "$kdir" ] || { echo "build-module: no headers for $kver (make deps)" >&2; exit 1; }
mkdir -p "$dir"
# Kbuild builds next to the sources: give it a copy of them.
cp -a Kbuild "$dir/"
mkdir -p "$dir/kmod/shared" "$dir/uapi/linux"
cp -a kmod/*.c kmod/*.h kmod/Kbuild "$dir/kmod/"
rm -f "$dir/kmod/netcoll.mod.c"
cp -a kmod/shared/*.h "$dir/kmod/shared/"
cp -a uapi/linux/*.h "$dir/uapi/linux/"
make -C "$kdir" M="$(cd "$dir" && pwd)" modules 2>&1 | tee "$dir/build.log"
if grep -q 'warning:' "$dir/build.log"; then
	echo "build-module: warnings building for $kver" >&2
	exit 1
fi
modinfo -F vermagic "$dir/kmod/netcoll.ko"
