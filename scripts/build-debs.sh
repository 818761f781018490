#!/bin/bash
# Build netcoll's Debian packages from a clean copy of the tree, then run
# lintian on them.  Usage: build-debs.sh OUTDIR
#   OUTDIR/*.deb, OUTDIR/*.changes, OUTDIR/lintian.txt
# Fails when dpkg-buildpackage fails or lintian reports an error (E:);
# warnings are printed and kept in lintian.txt.
set -euo pipefail
out=$(mkdir -p "$1" && cd "$1" && pwd -P)
cd "$(dirname "$0")/.."
ver=$(dpkg-parsechangelog -S Version)
# One version: the packages', DKMS's (its source directory and status name
# it) and the library's (netcoll.pc).
dkms_ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
lib_ver=$(awk '$2 == "NC_LIB_VERSION_MAJOR" { M = $3 } $2 == "NC_LIB_VERSION_MINOR" { m = $3 }
	END { print M "." m }' userlib/include/netcoll.h)
if [ "$dkms_ver" != "$ver" ] || [ "$lib_ver" != "$ver" ]; then
	echo "build-debs: debian/changelog says $ver, dkms.conf $dkms_ver, netcoll.h $lib_ver" >&2
	exit 1
fi
work="$out/src"
rm -rf "$work" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir -p "$work/netcoll-$ver"
# What git tracks (and new files not yet ignored): never build products.
# Outside a git work tree (an exported copy): the tree without them.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -t "$work/netcoll-$ver"
else
	tar -cf - --exclude=./build --exclude-vcs --exclude='*.o' --exclude='*.ko' \
		--exclude='*.cmd' --exclude='*.mod' --exclude='*.mod.c' --exclude='*.a' \
		--exclude='*.so' --exclude='*.so.*' --exclude=./modules.order \
		--exclude=./Module.symvers --exclude=./kmod/modules.order . |
		tar -xf - -C "$work/netcoll-$ver"
fi
(cd "$work/netcoll-$ver" &&
	dpkg-buildpackage -b -us -uc >"$out/build.log" 2>&1) || {
	tail -n 40 "$out/build.log" >&2
	echo "build-debs: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
}
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out/"
rm -rf "$work"
ls "$out"/*.deb
lintian --fail-on error --info "$out"/*.changes >"$out/lintian.txt" 2>&1 || {
	cat "$out/lintian.txt" >&2
	echo "build-debs: lintian found errors" >&2
	exit 1
}
if grep -qE '^[EWI]:' "$out/lintian.txt"; then
	echo "lintian: no errors; warnings and notes:"
	grep -E '^[EWI]:' "$out/lintian.txt" | sed 's/^/  /'
else
	echo "lintian: clean"
fi
