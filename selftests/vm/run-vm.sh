#!/bin/bash
# run-vm.sh - run one command inside a throw-away QEMU (TCG) guest that boots
# the Debian kernel and sees the host's whole file system read-only.
#
#   selftests/vm/run-vm.sh [--kver VER] [--kernel IMAGE] [--timeout SEC]
#                          [--mem MB] [--smp N]
#                          [--out DIR] [--append KERNEL_ARGS] [--qemu ARG]...
#                          [--dmesg-allow REGEX] [--no-dmesg-check] [--quiet]
#                          [--overlay] [--upper IMG] -- COMMAND [ARGS...]
#
# In the guest COMMAND runs under bash as root, cwd = the repository (same
# absolute path as on the host), with NC_VM=1, NC_OUT=/run/ncout (a writable
# 9p export of the host's --out DIR) and every NC_* variable of the caller.
# Its stdout+stderr stream to this script's stdout (guest serial port ttyS1);
# the kernel console (ttyS0) goes to DIR/console.log, the guest's full kernel
# log to DIR/dmesg.txt.
#
# Exit status: COMMAND's status; 124 on timeout; 125 when the guest stopped
# without reporting a status (kernel panic, crash, early boot failure);
# 120 when COMMAND succeeded but the kernel logged a warning/oops while it ran
# (lines matching $NC_DMESG_BAD_RE below, not matching --dmesg-allow).
#
# --overlay: the guest's root is an overlay of a tmpfs over the host's
# read-only root, so COMMAND may install packages (dpkg, dkms, depmod) as on
# a real machine without touching the host; and the kernel's own module
# requests (request_module: netlink families, char-major aliases) run the
# root's /sbin/modprobe, so autoloading works as on an installed system.
# --upper IMG: --overlay with the upper layer on the ext4 image IMG (a
# virtio disk; created, 4 GB sparse, if missing) instead of a tmpfs, so
# what one guest installed is there when the next one boots, on the same
# or another kernel: a machine that reboots.
#
# Kernel warnings are NOT turned into panics (no panic_on_warn, no oops=panic):
# a WARN or an oops in the module under test fails the run through the dmesg
# check, and the VM still powers off cleanly with the full log saved. A real
# panic reboots the guest (panic=-1), which -no-reboot turns into a QEMU exit:
# status 125 and the tail of console.log on stderr. Pass
# `--append "oops=panic panic_on_warn=1"` to stop at the first problem instead.
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
VM_DIR=$(dirname "$SELF")
REPO=$(cd "$VM_DIR/../.." && pwd -P)
BUILD="$REPO/build/vm"

usage() {
	sed -n '2,9p' "$SELF" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
die() { echo "run-vm: $*" >&2; exit 2; }

KVER=""
KERNEL=""
TIMEOUT=600
MEM=2048
# VM_SMP: the default of --smp (make check runs two guests at once, one
# vCPU each, on its two cores).
SMP=${VM_SMP:-2}
OUT=""
APPEND=""
DMESG_ALLOW=""
DMESG_CHECK=1
QUIET=0
OVERLAY=0
UPPER=""
QEMU_EXTRA=()

while [ $# -gt 0 ]; do
	case "$1" in
	--kver) KVER=${2:?}; shift 2 ;;
	--kernel) KERNEL=${2:?}; shift 2 ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--mem) MEM=${2:?}; shift 2 ;;
	--smp) SMP=${2:?}; shift 2 ;;
	--out) OUT=${2:?}; shift 2 ;;
	--append) APPEND="$APPEND ${2:?}"; shift 2 ;;
	--qemu) QEMU_EXTRA+=("${2:?}"); shift 2 ;;
	--dmesg-allow) DMESG_ALLOW=${2:?}; shift 2 ;;
	--no-dmesg-check) DMESG_CHECK=0; shift ;;
	--quiet|-q) QUIET=1; shift ;;
	--overlay) OVERLAY=1; shift ;;
	--upper) UPPER=${2:?}; OVERLAY=1; shift 2 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	*) die "unknown option '$1' (COMMAND goes after --)" ;;
	esac
done
[ $# -gt 0 ] || usage
[[ "$TIMEOUT" =~ ^[0-9]+$ ]] || die "--timeout wants seconds"
[[ "$MEM" =~ ^[0-9]+$ ]] || die "--mem wants megabytes"
[[ "$SMP" =~ ^[0-9]+$ ]] || die "--smp wants a number"

# --- kernel -----------------------------------------------------------------
if [ -z "$KVER" ]; then
	# newest /lib/modules/* that has a matching /boot/vmlinuz-*
	KVER=$(for d in /lib/modules/*/; do
		v=$(basename "$d")
		[ -r "/boot/vmlinuz-$v" ] && echo "$v"
	done | sort -V | tail -n 1)
	[ -n "$KVER" ] || die "no kernel: need /boot/vmlinuz-V and /lib/modules/V"
fi
[ -n "$KERNEL" ] || KERNEL="/boot/vmlinuz-$KVER"
MODDIR="/lib/modules/$KVER"
[ -r "$KERNEL" ] || die "no readable $KERNEL"
[ -r "$MODDIR/modules.dep" ] || die "no $MODDIR/modules.dep"
BUSYBOX=$(command -v busybox || true)
[ -n "$BUSYBOX" ] || die "busybox not found (apt-get install busybox-static)"
if ldd "$BUSYBOX" >/dev/null 2>&1; then
	die "$BUSYBOX is dynamically linked (apt-get install busybox-static)"
fi
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found"

# --- modules the initramfs loads (virtio-pci + 9p), dependency order ----------
# modules.dep lists a module's full dependency closure; modprobe loads it from
# the end of the list backwards. Built-in modules are skipped.
declare -A MOD_PATH=() MOD_SEEN=()
MOD_ORDER=()
while IFS= read -r line; do
	p=${line%%:*}
	n=${p##*/}; n=${n%%.ko*}; n=${n//-/_}
	MOD_PATH[$n]=$p
done < "$MODDIR/modules.dep"
mod_add() { # NAME
	local n=${1//-/_} p deps i
	[ -n "${MOD_SEEN[$n]:-}" ] && return 0
	MOD_SEEN[$n]=1
	p=${MOD_PATH[$n]:-}
	if [ -z "$p" ]; then
		grep -qE "/${n//_/[-_]}\.ko" "$MODDIR/modules.builtin" 2>/dev/null && return 0
		die "module $n is neither in $MODDIR/modules.dep nor built in"
	fi
	deps=$(grep -m1 "^$p:" "$MODDIR/modules.dep" | cut -d: -f2-)
	read -r -a deps <<< "$deps"
	for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
		mod_add "$(basename "${deps[i]%%.ko*}")"
	done
	MOD_ORDER+=("$n")
}
for m in virtio_pci 9pnet_virtio 9p overlay; do mod_add "$m"; done
# the upper layer's disk (ext4 asks the crypto API for crc32c at mount)
[ -z "$UPPER" ] || for m in virtio_blk crc32c_generic ext4; do mod_add "$m"; done

# --- the guest's /init (busybox sh) -------------------------------------------
# Parameters come from $NC_OUT/.vm/params (written per run below), so the
# cached initramfs does not depend on the repository path or the command.
read -r -d '' INIT <<'INIT_EOF' || true
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /newroot /usr/bin /sbin /usr/sbin
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# devtmpfs lacks these; bash process substitution needs /dev/fd
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
OUTDEV=/dev/ttyS1
PROC=/proc
msg() { echo "run-vm(guest): $*" > $OUTDEV; }
halt_now() {
	sync
	echo o > $PROC/sysrq-trigger
	sleep 30
}
stty -F $OUTDEV raw -echo 2>/dev/null
for m in $(cat /modules.order); do
	insmod /modules/$m.ko || { msg "insmod $m failed"; halt_now; }
done
O9P="trans=virtio,version=9p2000.L,msize=262144"
# The read-only root may be cached aggressively (cache=loose); the writable
# results export and the repository use cache=none: what either side writes
# is seen by the other at once.
if grep -q 'nc\.overlay=1' /proc/cmdline; then
	# A writable root: tmpfs over the host's, which stays untouched.
	mkdir -p /lower /rw
	mount -t 9p -o "$O9P,ro,cache=loose" hostroot /lower ||
		{ msg "mounting the host root over 9p failed"; halt_now; }
	if grep -q 'nc\.upper=1' /proc/cmdline; then
		mount -t ext4 /dev/vda /rw ||
			{ msg "mounting the upper layer's disk failed"; halt_now; }
	else
		mount -t tmpfs -o mode=0755 tmpfs /rw
	fi
	mkdir -p /rw/upper /rw/work
	mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work \
		overlay /newroot || { msg "mounting the overlay root failed"; halt_now; }
	# The kernel runs its module helper from its own root (this initramfs):
	# hand the request to the guest root's modprobe.
	mkdir -p /sbin
	printf '#!/bin/busybox sh\nexec /bin/busybox chroot /newroot /sbin/modprobe "$@"\n' \
		> /sbin/modprobe
	chmod 755 /sbin/modprobe
else
	mount -t 9p -o "$O9P,ro,cache=loose" hostroot /newroot ||
		{ msg "mounting the host root over 9p failed"; halt_now; }
fi
mount -t tmpfs -o mode=0755 tmpfs /newroot/run
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp
mkdir -p /newroot/run/ncout
mount -t 9p -o "$O9P" ncout /newroot/run/ncout ||
	{ msg "mounting the results export failed"; halt_now; }
V=/newroot/run/ncout/.vm
REPO=$(cat $V/repo)
DMESG_CHECK=$(cat $V/dmesg-check)
# The repository is exported on its own so that it is visible even when it
# lives below /tmp or /run (tmpfs in the guest), e.g. a CI clone in a temp dir.
mkdir -p "/newroot$REPO" 2>/dev/null
mount -t 9p -o "$O9P,ro" ncrepo "/newroot$REPO" ||
	{ msg "mounting the repository at $REPO failed"; halt_now; }
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm
mount -t debugfs debugfs /newroot/sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /newroot/sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 /newroot/sys/fs/cgroup 2>/dev/null
# The first CPU quota (cpu.max) turns a static key of the scheduler on
# (__cfs_bandwidth_used): the kernel patches it into enqueue_task_fair and
# others with int3 breakpoints.  Under QEMU/TCG another vCPU once ran the
# half-patched code (6.12 guest, 2026-11-28: "Oops: int3" in
# enqueue_task_fair while t_alltoall's slow receiver set its quota), so
# the key is turned on here, while nothing else runs, by a cgroup that
# keeps a quota no task is ever throttled by.
echo +cpu >/newroot/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null &&
	mkdir -p /newroot/sys/fs/cgroup/nc-quota-key &&
	echo "1000000 100000" >/newroot/sys/fs/cgroup/nc-quota-key/cpu.max
hostname ncvm
ip link set lo up
OUTDEV=/newroot/dev/ttyS1
PROC=/newroot/proc
cut -d' ' -f1 $PROC/uptime > $V/t-start
# The command's root is the new root moved onto / in a mount namespace of
# its own (as switch_root does), not a chroot into it: in a chroot the
# kernel refuses user namespaces (t_bootstrap's user namespace check).
unshare -m --propagation private sh -c \
	'cd /newroot && mount --move . / && exec chroot . /bin/bash /run/ncout/.vm/cmd.sh' \
	< /dev/null > $OUTDEV 2>&1
rc=$?
cut -d' ' -f1 $PROC/uptime > $V/t-end
dmesg > /newroot/run/ncout/dmesg.txt
if [ "$DMESG_CHECK" = 1 ]; then
	# only what the kernel logged once the command had started
	awk -v t0="$(cat $V/t-start)" '
		{ ts = $0; sub(/^\[ */, "", ts); sub(/\].*/, "", ts) }
		ts + 0 >= t0 + 0' /newroot/run/ncout/dmesg.txt |
	grep -E -f $V/dmesg-bad > $V/dmesg-hits
	if [ -s $V/dmesg-allow ]; then
		grep -v -E -f $V/dmesg-allow $V/dmesg-hits > $V/dmesg-hits2
		mv $V/dmesg-hits2 $V/dmesg-hits
	fi
	if [ -s $V/dmesg-hits ]; then
		{
			echo "run-vm(guest): kernel problems logged while the command ran:"
			head -n 40 $V/dmesg-hits
			echo "run-vm(guest): full log in \$NC_OUT/dmesg.txt"
		} > $OUTDEV
		[ "$rc" = 0 ] && rc=120
	fi
fi
echo "$rc" > /newroot/run/ncout/status
halt_now
INIT_EOF

# --- build (or reuse) the initramfs -----------------------------------------
mkdir -p "$BUILD"
INITRD="$BUILD/initramfs-$KVER${UPPER:+-disk}.cpio"
key=$({
	sha256sum "$SELF"
	stat -L -c '%n %s %Y' "$BUSYBOX"
	for n in "${MOD_ORDER[@]}"; do stat -L -c '%n %s %Y' "$MODDIR/${MOD_PATH[$n]}"; done
} | sha256sum | cut -c1-64)
if [ ! -r "$INITRD" ] || [ "$(cat "$INITRD.key" 2>/dev/null)" != "$key" ]; then
	stage=$(mktemp -d "$BUILD/initramfs.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	mkdir -p "$stage/bin" "$stage/modules"
	cp "$BUSYBOX" "$stage/bin/busybox"
	printf '%s\n' "$INIT" > "$stage/init"
	chmod 755 "$stage/init"
	for n in "${MOD_ORDER[@]}"; do
		src="$MODDIR/${MOD_PATH[$n]}"
		dst="$stage/modules/$n.ko"
		case "$src" in
		*.ko) cp "$src" "$dst" ;;
		*.ko.xz) xz -dc "$src" > "$dst" ;;
		*.ko.zst) zstd -qdc "$src" > "$dst" ;;
		*.ko.gz) gzip -dc "$src" > "$dst" ;;
		*) die "unsupported module file $src" ;;
		esac
	done
	printf '%s\n' "${MOD_ORDER[@]}" > "$stage/modules.order"
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc --quiet -R 0:0) > "$INITRD.tmp.$$"
	mv -f "$INITRD.tmp.$$" "$INITRD"
	echo "$key" > "$INITRD.key"
	rm -rf "$stage"
	trap - EXIT
	[ "$QUIET" = 1 ] || echo "run-vm: built $INITRD (modules: ${MOD_ORDER[*]})" >&2
fi

# --- boot image: the uncompressed vmlinux when possible ----------------------
# QEMU boots an ELF vmlinux with a PVH entry note (CONFIG_PVH=y in Debian)
# directly: no firmware real-mode boot and no in-guest decompression of the
# xz-compressed bzImage, which takes ~3 s under TCG. Falls back to the bzImage.
is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; }
extract_vmlinux() { # BZIMAGE OUT
	local magic off tool
	for magic in '\xfd7zXZ\x00:xz -dc --single-stream' \
		'\x28\xb5\x2f\xfd:zstd -qdc' '\x1f\x8b\x08:gzip -dc'; do
		tool=${magic#*:}
		command -v "${tool%% *}" >/dev/null || continue
		for off in $(LC_ALL=C grep -obUaP "${magic%%:*}" "$1" 2>/dev/null |
			cut -d: -f1 | head -n 4); do
			tail -c "+$((off + 1))" "$1" | $tool > "$2" 2>/dev/null
			if is_elf "$2" &&
				readelf -n "$2" 2>/dev/null | grep -qiE 'PHYS32|0x00000012'; then
				return 0
			fi
		done
	done
	return 1
}
BOOT_IMAGE=$KERNEL
if ! is_elf "$KERNEL"; then
	vmlinux="$BUILD/vmlinux-$(basename "$KERNEL")"
	kkey=$(stat -L -c '%n %s %Y' "$KERNEL")
	if [ -r "$vmlinux" ] && [ "$(cat "$vmlinux.key" 2>/dev/null)" = "$kkey" ]; then
		BOOT_IMAGE=$vmlinux
	elif extract_vmlinux "$KERNEL" "$vmlinux.tmp.$$"; then
		mv -f "$vmlinux.tmp.$$" "$vmlinux"
		echo "$kkey" > "$vmlinux.key"
		BOOT_IMAGE=$vmlinux
	else
		rm -f "$vmlinux.tmp.$$"
		[ "$QUIET" = 1 ] || echo "run-vm: no PVH vmlinux in $KERNEL, booting it as is (slower)" >&2
	fi
fi

# --- results directory and per-run parameters --------------------------------
DEFAULT_OUT="$BUILD/out"
if [ -z "$OUT" ]; then
	OUT=$DEFAULT_OUT
	rm -rf "$OUT"
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd -P)
rm -rf "$OUT/.vm" "$OUT/status" "$OUT/dmesg.txt" "$OUT/console.log" \
	"$OUT"/console-boot*.log
mkdir -p "$OUT/.vm"
V="$OUT/.vm"
printf '%s\n' "$REPO" > "$V/repo"
echo "$DMESG_CHECK" > "$V/dmesg-check"
NC_DMESG_BAD_RE='WARNING:|BUG:|Oops|general protection|RCU stall|rcu_.*(stall|self-detected)|refcount_t|list_add corruption|list_del corruption|KASAN|UBSAN|soft lockup|hard LOCKUP|blocked for more than|Kernel panic|kernel BUG|double free|use-after-free|netcoll: waiting for|scheduling while atomic|sleeping function called from invalid context|unreferenced object'
printf '%s\n' "$NC_DMESG_BAD_RE" > "$V/dmesg-bad"
printf '%s' "$DMESG_ALLOW" > "$V/dmesg-allow"
{
	echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
	echo 'export HOME=/tmp LANG=C.UTF-8 TERM=dumb NC_VM=1 NC_OUT=/run/ncout'
	# pass the caller's NC_* settings through (tests read their knobs there)
	while IFS= read -r var; do
		case "$var" in NC_VM|NC_OUT) continue ;; esac
		printf 'export %s=%q\n' "$var" "${!var}"
	done < <(compgen -e | grep '^NC_' || true)
	printf 'cd %q || exit 126\n' "$REPO"
	printf 'exec'
	printf ' %q' "$@"
	printf '\n'
} > "$V/cmd.sh"

# --- boot --------------------------------------------------------------------
# clearcpuid=cx16: QEMU 7.2's TCG (Debian 12's) computes the flags of a
# CMPXCHG16B from a stale condition-code state: when the translation block
# began with the flags materialised (after an interrupt return, say) and an
# arithmetic op and a load came before it, EFLAGS becomes that op's source
# operand, TF, DF and VM bits included (QEMU 8.1 inlined the instruction).
# SLUB's per-CPU fast path is such a CMPXCHG16B: the 6.12 guests' double
# faults in kmalloc (November 2026, EFLAGS = RDI | 0x42, RDI the source of
# the ADD before it) were this, and a garbage DF (backward string copies)
# explains the corrupted slab list of the first crash.  Without the feature
# the kernel uses its own this_cpu_cmpxchg16b_emu; user space (Open MPI's
# lock-free lists) still sees and uses it.
CMDLINE="console=ttyS0 tsc=reliable clocksource=tsc panic=-1 loglevel=4 clearcpuid=cx16"
CMDLINE+=" 8250.nr_uarts=2 rdinit=/init$APPEND"
[ "$OVERLAY" = 0 ] || CMDLINE+=" nc.overlay=1"
if [ -n "$UPPER" ]; then
	if [ ! -e "$UPPER" ]; then
		truncate -s 4G "$UPPER" && mkfs.ext4 -q -F "$UPPER" ||
			die "cannot make the upper layer's disk $UPPER"
	fi
	CMDLINE+=" nc.upper=1"
	QEMU_EXTRA+=(-drive "file=$UPPER,if=virtio,format=raw")
fi
# The CPU model is QEMU's default plus RDRAND: the kernel trusts it and seeds
# its random generator at boot, before the second CPU runs. Without it the
# generator became ready only after a minute of tests, and flipping its
# static key then (text_poke_bp) under TCG once ended in "Oops: int3" in
# get_random_u32 on the other CPU (a 6.12 guest, CI).
QEMU=(qemu-system-x86_64 -accel tcg -cpu qemu64,+rdrand -m "$MEM" -smp "$SMP"
	-nodefaults -nographic -no-reboot -nic none
	-kernel "$BOOT_IMAGE" -initrd "$INITRD" -append "$CMDLINE"
	-fsdev "local,id=r,path=/,security_model=none,readonly=on,multidevs=remap"
	-device "virtio-9p-pci,fsdev=r,mount_tag=hostroot"
	-fsdev "local,id=o,path=$OUT,security_model=none,multidevs=remap"
	-device "virtio-9p-pci,fsdev=o,mount_tag=ncout"
	-fsdev "local,id=p,path=$REPO,security_model=none,readonly=on,multidevs=remap"
	-device "virtio-9p-pci,fsdev=p,mount_tag=ncrepo"
	-chardev "file,id=con,path=$OUT/console.log"
	-serial chardev:con
	-chardev "stdio,id=cmdout,signal=off"
	-serial chardev:cmdout
	"${QEMU_EXTRA[@]}")

# A guest whose kernel stops before the command starts ($V/t-start is
# written just before it) is booted again, once: nothing of the command or
# of netcoll has run yet.  Under QEMU/TCG the kernel's own boot once died
# so (6.12, CI of 2026-11-30: "Oops: int3" in enqueue_entity while the init
# above turned the quota's static key on, 4.7 s after power-on).  A guest
# that stops or hangs once the command runs is never booted again.
boots=0
while :; do
	boots=$((boots + 1))
	rm -f "$OUT/status" "$V/t-start" "$V/t-end"
	t0=$(date +%s.%N)
	set +e
	timeout --foreground -k 10 "$TIMEOUT" "${QEMU[@]}" < /dev/null
	qrc=$?
	set -e
	t1=$(date +%s.%N)
	# (no console log: QEMU itself did not start, and will not again)
	[ ! -e "$OUT/status" ] && [ ! -e "$V/t-start" ] &&
		[ -s "$OUT/console.log" ] &&
		[ "$qrc" != 124 ] && [ "$qrc" != 137 ] && [ "$boots" -lt 2 ] ||
		break
	mv "$OUT/console.log" "$OUT/console-boot$boots.log"
	first=$(grep -m1 -E "$NC_DMESG_BAD_RE" "$OUT/console-boot$boots.log" |
		sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' || true)
	echo "run-vm: the guest stopped before the command started" \
		"(QEMU exit $qrc; ${first:-no kernel report});" \
		"booting it again (log: $OUT/console-boot$boots.log)" >&2
done

status=$(cat "$OUT/status" 2>/dev/null || true)
elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
timing=""
if [ -r "$V/t-start" ]; then
	timing=" (guest booted in $(cat "$V/t-start")s"
	[ -r "$V/t-end" ] && timing+=", command ran $(awk -v a="$(cat "$V/t-start")" \
		-v b="$(cat "$V/t-end")" 'BEGIN { printf "%.1f", b - a }')s"
	timing+=")"
fi
if [[ "$status" =~ ^[0-9]+$ ]]; then
	rc=$status
	[ "$QUIET" = 1 ] || echo "run-vm: exit $rc, wall ${elapsed}s$timing, kernel $KVER, logs in $OUT" >&2
	exit "$rc"
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "run-vm: TIMEOUT after ${TIMEOUT}s (QEMU killed); last kernel console lines:" >&2
	rc=124
else
	echo "run-vm: guest stopped without a status (QEMU exit $qrc); last kernel console lines:" >&2
	rc=125
fi
# (without the firmware's terminal escape sequences)
tail -n 60 "$OUT/console.log" 2>/dev/null |
	sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' >&2 || true
# A panic often follows a first report that scrolled out of the tail (a
# second oops while dying): print the first one last, where a summary that
# keeps only the end of this output still shows it.
first=$(grep -n -m1 -E "$NC_DMESG_BAD_RE" "$OUT/console.log" 2>/dev/null | cut -d: -f1)
if [ -n "$first" ]; then
	echo "run-vm: the kernel's first report (console.log line $first):" >&2
	sed -n "${first},$((first + 15))p" "$OUT/console.log" >&2
fi
echo "run-vm: wall ${elapsed}s, full console log: $OUT/console.log" >&2
exit "$rc"
