#!/bin/bash
# Install the Debian packages netcoll needs to build and test, only those missing.
set -euo pipefail
pkgs=(build-essential pkg-config linux-headers-amd64 linux-image-amd64
      qemu-system-x86 busybox-static kmod cpio iproute2 util-linux xz-utils binutils
      libnl-3-dev libnl-genl-3-dev sparse dkms linux-source python3)
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
