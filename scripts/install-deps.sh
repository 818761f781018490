#!/bin/bash
# Install the Debian packages netcoll needs to build and test, only those missing.
set -euo pipefail
pkgs=(build-essential pkg-config linux-headers-amd64 linux-image-amd64
      qemu-system-x86 busybox-static kmod cpio iproute2 util-linux xz-utils binutils
      libnl-3-dev libnl-genl-3-dev libjson-c-dev libssl-dev sparse dkms linux-source python3
      dpkg-dev debhelper dh-dkms lintian gnuplot-nox
      ibsim-utils libumad2sim0 opensm infiniband-diags lldpd
      libopenmpi-dev openmpi-bin gfortran libfftw3-dev libfftw3-mpi-dev hpcc
      mpich libmpich-dev)
# PREEMPT_RT variant of the default line (make check builds the module for
# it and runs a smoke subset in a guest booting it).
pkgs+=(linux-image-rt-amd64 linux-headers-rt-amd64)
# The second kernel line (make check runs the module tests on both), and
# its PREEMPT_RT variant: Debian 12's newest 6.12, image and headers,
# unless one is installed.
newest_612() {	# newest_612 FLAVOUR: package name of the newest 6.12 image
	apt-cache search --names-only "^linux-image-6\\.12\\.[0-9.]*\\+deb12-$1\$" |
		awk '{ print $1 }' | sort -V | tail -n 1
}
updated=0
for flavour in amd64 rt-amd64; do
	if [ "$flavour" = amd64 ]; then
		ls -d /usr/src/linux-headers-6.12*-amd64 2>/dev/null | grep -qv -- -rt- && continue
	else
		ls -d /usr/src/linux-headers-6.12*-rt-amd64 >/dev/null 2>&1 && continue
	fi
	if [ "$updated" = 0 ] && [ "$(id -u)" -eq 0 ]; then
		apt-get update -q >/dev/null
		updated=1
	fi
	next=$(newest_612 "$flavour")
	if [ -n "$next" ]; then
		pkgs+=("$next" "${next/linux-image-/linux-headers-}")
	else
		echo "deps: no Debian 6.12 $flavour kernel found in the package index" >&2
	fi
done
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
