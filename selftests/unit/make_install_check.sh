#!/bin/bash
# make install / make uninstall into a staging directory (DESTDIR), on the
# build host: every file lands where the GNU directory variables say, the
# pkg-config file names those directories, a program builds and runs
# against the staged header and library, and uninstall leaves no file.
# (The packages and DKMS are tested in a guest: selftests/install/.)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/tap.sh
source "$top/selftests/lib/tap.sh"
d=$(mktemp -d "${TMPDIR:-/tmp}/make_install.XXXXXX")
trap 'rm -rf "$d"' EXIT
dirs=(PREFIX=/opt/nc LIBDIR=/opt/nc/lib64 DKMS_SRCDIR=/usr/src)
mk() { make -s --no-print-directory -C "$top" DESTDIR="$d/root" "${dirs[@]}" "$@"; }

if mk install >"$d/install.log" 2>&1; then
	tap_ok "install: make install DESTDIR=... PREFIX=/opt/nc LIBDIR=/opt/nc/lib64"
else
	tap_fail "install: make install" "$(tail -n 5 "$d/install.log")"
fi
# the library's real name follows its version (netcoll.h), the DKMS
# source directory the module's (dkms.conf)
lib_ver=$(awk '$2 == "NC_LIB_VERSION_MAJOR" { M = $3 } $2 == "NC_LIB_VERSION_MINOR" { m = $3 }
	END { print M "." m }' "$top/userlib/include/netcoll.h")
mod_ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
want=(opt/nc/lib64/libnetcoll.so.$lib_ver opt/nc/lib64/libnetcoll.so.0
      opt/nc/lib64/libnetcoll.so opt/nc/lib64/libnetcoll.a
      opt/nc/lib64/pkgconfig/netcoll.pc opt/nc/include/netcoll.h
      opt/nc/include/netcoll_plan.h opt/nc/sbin/nctl opt/nc/bin/ncbench
      opt/nc/sbin/netcoll-topod opt/nc/share/man/man8/netcoll-topod.8
      opt/nc/share/man/man8/nctl.8 opt/nc/share/man/man1/ncbench.1
      opt/nc/share/man/man3/libnetcoll.3 etc/udev/rules.d/60-netcoll.rules
      "usr/src/netcoll-$mod_ver/dkms.conf" "usr/src/netcoll-$mod_ver/Kbuild"
      "usr/src/netcoll-$mod_ver/kmod/main.c" "usr/src/netcoll-$mod_ver/uapi/linux/netcoll.h")
# the MPI interposer, when an MPI compiler built it
command -v mpicc >/dev/null &&
	want+=(opt/nc/lib64/netcoll/libnetcoll-mpi.so opt/nc/share/man/man7/libnetcoll-mpi.7)
missing=()
for f in "${want[@]}"; do [ -e "$d/root/$f" ] || missing+=("$f"); done
if [ ${#missing[@]} -eq 0 ]; then
	tap_ok "install: the ${#want[@]} expected files are there"
else
	tap_fail "install: missing ${missing[*]}"
fi
stray=$(cd "$d/root" && find . -name '*.o' -o -name '*.ko' -o -name '*.cmd')
[ -z "$stray" ] && tap_ok "install: no build product in the DKMS source" ||
	tap_fail "install: build products staged: $stray"
pc="$d/root/opt/nc/lib64/pkgconfig/netcoll.pc"
if grep -qx 'libdir=/opt/nc/lib64' "$pc" && grep -qx 'includedir=/opt/nc/include' "$pc"; then
	tap_ok "install: netcoll.pc names the chosen directories"
else
	tap_fail "install: netcoll.pc" "$(cat "$pc")"
fi
cat >"$d/app.c" <<'C'
#include <netcoll.h>
#include <stdio.h>
int main(void) { puts(nc_strerror(-NC_ENOMODULE)); return 0; }
C
if cc -Wall -Werror -I"$d/root/opt/nc/include" -o "$d/app" "$d/app.c" \
	-L"$d/root/opt/nc/lib64" -lnetcoll >"$d/cc.log" 2>&1 &&
   LD_LIBRARY_PATH="$d/root/opt/nc/lib64" "$d/app" >/dev/null &&
   LD_LIBRARY_PATH="$d/root/opt/nc/lib64" ldd "$d/app" | grep -q "$d/root/opt/nc/lib64/libnetcoll.so.0"; then
	tap_ok "install: a program builds and runs against the staged libnetcoll.so.0"
else
	tap_fail "install: program against the staged files" "$(cat "$d/cc.log")"
fi
if mk uninstall >"$d/uninstall.log" 2>&1; then
	tap_ok "uninstall: make uninstall"
else
	tap_fail "uninstall: make uninstall" "$(tail -n 5 "$d/uninstall.log")"
fi
left=$(cd "$d/root" && find . -type f -o -type l)
[ -z "$left" ] && tap_ok "uninstall: no file left" || tap_fail "uninstall: left $left"
tap_done
