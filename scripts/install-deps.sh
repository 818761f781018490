#!/bin/bash
# Install the Debian packages netcoll needs to build and test, only those missing.
set -euo pipefail
pkgs=(build-essential pkg-config linux-headers-amd64 linux-image-amd64
      qemu-system-x86 busybox-static kmod cpio iproute2 util-linux xz-utils binutils
      libnl-3-dev libnl-genl-3-dev sparse dkms linux-source python3
      dpkg-dev debhelper dh-dkms lintian gnuplot-nox)
# The second kernel line (make check runs the module tests on both):
# Debian 12's newest 6.12, image and headers, unless one is installed.
if ! ls -d /usr/src/linux-headers-6.12*-amd64 2>/dev/null | grep -qv -- -rt-; then
	[ "$(id -u)" -ne 0 ] || apt-get update -q >/dev/null
	next=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9.]*\+deb12-amd64$' |
		awk '{ print $1 }' | sort -V | tail -n 1)
	if [ -n "$next" ]; then
		pkgs+=("$next" "${next/linux-image-/linux-headers-}")
	else
		echo "deps: no Debian 6.12 kernel found in the package index" >&2
	fi
fi
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
echo "deps: installing ${missing[*]}"
[ "$(id -u)" -eq 0 ] || { echo "deps: run as root (apt-get)" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
