#!/bin/bash
# The Debian packages on a machine, as a user installs them.  Runs in a
# guest whose root is an overlay over the host's (selftests/vm/run-vm.sh
# --overlay, or --upper IMG to keep it across boots), so dpkg, DKMS and
# depmod change nothing on the host.  Steps, in the order given:
#   install: dpkg -i netcoll-dkms libnetcoll0 libnetcoll-dev netcoll-tools
#     netcoll-mpi; DKMS built and installed the module for the running
#     kernel (and for each kernel of $NC_INSTALL_KVERS, as the kernel's
#     postinst hook does when one is installed); modprobe / modprobe -r;
#     the first `nctl` call autoloads the module (generic netlink alias),
#     and so does the first open of /dev/netcoll (char-major alias, node
#     from modules.devname as systemd creates it);
#   boot: a machine booted with the packages installed: nothing loaded the
#     module, DKMS's module is there for this kernel, and the first `nctl`
#     call loads it;
#   use: pkg-config; a program built against the installed header and
#     library runs an allreduce and an alltoall on a 3-host emulated
#     cluster, and an Open MPI job preloads the installed interposer there;
#   remove: modprobe -r is clean; dpkg -r removes every file and DKMS
#     forgets the module (modprobe no longer finds it).
#
#   t_install.sh DEB_DIR [STEP...]      (default: install use remove)
T_NAME=install
source "$(dirname "$0")/../net/lib.sh"
debs=$(cd "${1:?usage: t_install.sh DEB_DIR [STEP...]}" && pwd)
shift
steps=" ${*:-install use remove} "
step() { [[ "$steps" == *" $1 "* ]]; }
for s in $steps; do
	case "$s" in install|boot|use|remove) ;;
	*) t_fail "unknown step '$s' (install, boot, use, remove)"; t_done; exit 2 ;;
	esac
done
kver=$(uname -r)
NCTL=/usr/sbin/nctl	# the installed one, for lib.sh's helpers too
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)

loaded() { grep -q '^netcoll ' /proc/modules; }
ver=$(dpkg-deb -f "$(ls "$debs"/netcoll-dkms_*_all.deb)" Version)
mapfile -t pkgs < <(ls "$debs"/{netcoll-dkms,libnetcoll0,libnetcoll-dev,netcoll-tools,netcoll-mpi}_*.deb)

if [ -w / ] && ! grep -q ' / 9p ' /proc/mounts; then :; else
	t_fail "the root is not a writable overlay (run under run-vm.sh --overlay)"
	t_done; exit
fi
# dkms_installed KVER : DKMS says the module is installed for KVER
dkms_installed() {
	local status
	status=$(dkms status -m netcoll -v "$ver" -k "$1" 2>/dev/null)
	if grep -q "^netcoll/$ver, $1, [^:]*: installed" <<<"$status"; then
		t_ok "dkms status: $status"
	else
		t_fail "dkms status for $1: '$status'"
	fi
}
dkms_module_found() {
	local ko
	ko=$(modinfo -n netcoll 2>&1)
	case "$ko" in
	/lib/modules/"$kver"/updates/dkms/netcoll.ko*) t_ok "modinfo finds DKMS's module ($ko)" ;;
	*) t_fail "modinfo -n netcoll: $ko" ;;
	esac
}

# --- install -----------------------------------------------------------------
if step install; then
loaded && rmmod netcoll
[ -e /usr/sbin/nctl ] && { t_fail "netcoll is already installed on this root"; t_done; exit; }
# Without other kernels to build for ($NC_INSTALL_KVERS: make check),
# this machine has only the running one: Debian's DKMS postinst builds
# for the running kernel and the newest whose /boot/config-* it finds,
# and a second build costs 8-11 minutes under TCG.
if [ -z "${NC_INSTALL_KVERS:-}" ]; then
	for f in /boot/config-*; do
		[ "$f" = "/boot/config-$kver" ] || rm -f "$f"
	done
fi
start=$(date +%s)
t_check "dpkg -i the five packages (DKMS builds the module for $kver)" \
	dpkg -i "${pkgs[@]}"
echo "# dpkg -i took $(( $(date +%s) - start )) s"
dkms_installed "$kver"
for k in ${NC_INSTALL_KVERS:-}; do
	[ -d "/lib/modules/$k/build" ] || { t_fail "no headers for $k"; continue; }
	if ! dkms status -m netcoll -v "$ver" -k "$k" | grep -q ': installed'; then
		start=$(date +%s)
		t_check "dkms install for $k (what its postinst hook does)" \
			dkms install -m netcoll -v "$ver" -k "$k"
		echo "# dkms install for $k took $(( $(date +%s) - start )) s"
	fi
	dkms_installed "$k"
done
dkms_module_found
t_expect_fail "the module is not loaded by the install" "^" loaded

# --- modprobe and autoload ---------------------------------------------------
t_check "modprobe netcoll" modprobe netcoll
t_check "modprobe -r netcoll" modprobe -r netcoll
t_expect_fail "unloaded" "^" loaded
t_check "nctl dev show, the first call, loads the module (genl family alias)" \
	nctl dev show
t_check "... and it is loaded" loaded
t_check "modprobe -r netcoll again" modprobe -r netcoll
# What systemd-tmpfiles does at boot: the nodes of modules.devname.
node=$(kmod static-nodes --format=tmpfiles | awk '$2 == "/dev/netcoll"')
if [[ "$node" =~ ^c!?\ /dev/netcoll\ [0-7]+\ .*\ 10:249$ ]]; then
	t_ok "modules.devname names /dev/netcoll (char 10:249)"
else
	t_fail "kmod static-nodes: '$node'"
fi
if grep -q '^KERNEL=="netcoll", MODE="0666", OPTIONS+="static_node=netcoll"' \
	/usr/lib/udev/rules.d/60-netcoll.rules 2>/dev/null; then
	t_ok "udev rule: the static node is 0666 like the module's"
else
	t_fail "no /usr/lib/udev/rules.d/60-netcoll.rules"
fi
# (no udevd in this guest: the node as udev leaves it with that rule)
rm -f /dev/netcoll
mknod -m 0666 /dev/netcoll c 10 249
t_check "opening /dev/netcoll loads the module (char-major-10-249)" \
	bash -c 'exec 3<>/dev/netcoll'
t_check "... and it is loaded" loaded
fi

# --- a fresh boot with the packages installed ---------------------------------
if step boot; then
if [ ! -e /usr/sbin/nctl ]; then
	t_fail "booted $kver without netcoll installed (run the install step first, with --upper)"
	t_done; exit
fi
t_expect_fail "booted $kver: nothing loaded the module" "^" loaded
dkms_installed "$kver"
dkms_module_found
t_check "nctl dev show, the first call since boot, loads the module (genl family alias)" \
	nctl dev show
t_check "... and it is loaded" loaded
fi

# --- build and run a program against the installed files ---------------------
if step use; then
libs=$(pkg-config --libs netcoll 2>&1 | xargs)
cflags=$(pkg-config --cflags netcoll 2>&1 | xargs)
if [ "$libs" = "-lnetcoll" ] && [ "$(pkg-config --modversion netcoll)" = "$ver" ]; then
	t_ok "pkg-config netcoll: libs '$libs', cflags '$cflags', version $ver"
else
	t_fail "pkg-config netcoll: libs '$libs', version $(pkg-config --modversion netcoll 2>&1)"
fi
app=/tmp/app_collective
# shellcheck disable=SC2086 # pkg-config's words
t_check "cc app_collective.c \$(pkg-config --cflags --libs netcoll)" \
	cc -Wall -Wextra -Werror -o "$app" "$(dirname "$0")/app_collective.c" $cflags $libs
# /lib is /usr/lib on Debian 12 (merged /usr): either path is the package's
if ldd "$app" | grep -qE "libnetcoll.so.0 => (/usr)?/lib/$multiarch/libnetcoll.so.0 "; then
	t_ok "it runs against the installed libnetcoll.so.0"
else
	t_fail "ldd: $(ldd "$app" | grep netcoll)"
fi
cluster_star 3 >"$T_LOG/cluster.log" 2>&1 || t_fail "cluster up"
nc_comm_up 7 >"$T_LOG/comm.log" 2>&1 && t_ok "installed nctl: devices attached, communicator 7 on 3 hosts" ||
	t_fail "nctl comm add ($(tail -n 2 "$T_LOG/comm.log" | tr '\n' ' '))"
r=0
pids=()
for h in $(cluster_hosts); do
	on "$h" "$app" 7 $r >"$T_LOG/app.$r.log" 2>&1 &
	pids+=($!)
	r=$((r + 1))
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
if [ $rc -eq 0 ] && [ "$(cat "$T_LOG"/app.*.log | grep -c verified)" -eq 3 ]; then
	t_ok "the program on 3 hosts: $(head -n 1 "$T_LOG/app.0.log")"
else
	t_fail "the program: $(cat "$T_LOG"/app.*.log | tr '\n' ' ')"
fi
# The installed MPI interposer: an Open MPI job over the same 3 hosts.
# shellcheck source=../net/mpi_lib.sh
source "$(dirname "$0")/../net/mpi_lib.sh"
NCMPI=/usr/lib/$multiarch/netcoll/libnetcoll-mpi.so
if mpi_usable; then
	t_check "Open MPI on 3 hosts with the installed libnetcoll-mpi.so: mpi_check's alltoalls right, on netcoll" \
		eval 'nc_mpirun mpi_installed -x LD_PRELOAD="$NCMPI" "$MPI_CHECK" quick &&
		      grep -q " 0 failed" "$T_LOG/mpi_installed.log" &&
		      grep -Eq "^netcoll-mpi: MPI_Alltoall: [1-9][0-9]* netcoll, 0 MPI" "$T_LOG/mpi_installed.log"'
else
	t_skip "the installed MPI interposer" "no Open MPI, mpi_check or interposer"
fi
cluster_down >/dev/null 2>&1
fi

# --- remove ------------------------------------------------------------------
if step remove; then
t_check "modprobe -r netcoll (nothing holds it)" modprobe -r netcoll
t_expect_fail "unloaded" "^" loaded
mapfile -t files < <(dpkg -L netcoll-dkms libnetcoll0 libnetcoll-dev netcoll-tools netcoll-mpi |
	while read -r f; do [ -f "$f" ] || [ -L "$f" ] && echo "$f"; done)
t_check "dpkg -r the five packages" dpkg -r netcoll-mpi netcoll-tools libnetcoll-dev libnetcoll0 netcoll-dkms
left=()
for f in "${files[@]}" /lib/modules/*/updates/dkms/netcoll.ko*; do
	[ -e "$f" ] || [ -L "$f" ] && left+=("$f")
done
if [ ${#files[@]} -gt 20 ] && [ ${#left[@]} -eq 0 ]; then
	t_ok "every one of the ${#files[@]} installed files and the built module are gone"
else
	t_fail "left after dpkg -r (of ${#files[@]}): ${left[*]}"
fi
status=$(dkms status -m netcoll 2>&1)
[ -z "$status" ] && t_ok "dkms status is empty" || t_fail "dkms status: $status"
t_expect_fail "modprobe netcoll after removal: not found" "not found" modprobe netcoll
fi
t_done
