# shellcheck shell=bash
# Helpers for the in-guest module tests (sourced).  Each test script prints
# TAP lines through selftests/lib/tap.sh ("ok N - name", "not ok N - name:
# why") and ends with `t_done`.
#
# Binaries come from the host's build (the guest sees the repo read-only);
# anything a test writes goes under $NC_OUT.

NC_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NC_BUILD=$NC_TOP/build
NCTL=$NC_BUILD/nctl
NCBENCH=$NC_BUILD/ncbench
NC_CHECK=$NC_BUILD/selftests/net/nc_check
NL_REJECT=$NC_BUILD/selftests/net/nl_reject
NC_INJECT=$NC_BUILD/selftests/net/nc_inject
EP_ERRORS=$NC_BUILD/selftests/net/ep_errors
NC_RED_CHECK=$NC_BUILD/selftests/net/nc_red_check
NC_RSAG_CHECK=$NC_BUILD/selftests/net/nc_rsag_check
NC_BCAST_CHECK=$NC_BUILD/selftests/net/nc_bcast_check
NC_REPLAY=$NC_BUILD/selftests/net/nc_replay
NC_OUT=${NC_OUT:-/tmp/ncout}
T_LOG=$NC_OUT/$(basename "$0" .sh)
mkdir -p "$T_LOG"

# shellcheck source=cluster.sh
source "$NC_TOP/selftests/net/cluster.sh"

# shellcheck source=../lib/tap.sh
source "$NC_TOP/selftests/lib/tap.sh"

t_ok() { tap_ok "$T_NAME: $1"; }
t_fail() { tap_fail "$T_NAME: $1"; }
t_skip() { tap_skip "$T_NAME: $1" "$2"; }

# Whatever a test leaves behind goes when it exits, however it exits (a
# failed step, an error, ^C): its background ranks, the emulated cluster,
# the module.
t_cleanup() {
	local pids

	pids=$(jobs -p)
	[ -z "$pids" ] || kill $pids 2>/dev/null
	cluster_down >/dev/null 2>&1
	if lsmod 2>/dev/null | grep -q '^netcoll '; then
		rmmod netcoll 2>/dev/null
	fi
	return 0
}
trap t_cleanup EXIT
trap 'exit 130' INT TERM

# t_smoke_end : a script's smoke subset ends here.  With NC_SMOKE set
# (make check's guest on the second kernel line: the kernel interfaces,
# not every case again) the rest is reported skipped, the module
# unloaded, and the script ends.
t_smoke_end() {
	[ -n "${NC_SMOKE:-}" ] || return 0
	t_skip "the rest" "NC_SMOKE: the first kernel line's guest runs them"
	t_check "rmmod" nc_unload
	cluster_down
	t_done
	exit
}

# t_check "what" CMD... : ok when CMD succeeds; its output is kept in the log.
t_check() {
	local what=$1 log
	shift
	# a file name from the first 120 characters (NAME_MAX is 255)
	log="$T_LOG/$(echo "$what" | tr -c 'A-Za-z0-9_.-' _ | cut -c 1-120).log"
	if "$@" >"$log" 2>&1; then
		t_ok "$what"
	else
		t_fail "$what (exit $?; $(tail -n 3 "$log" | tr '\n' ' '))"
	fi
}

# t_expect_fail "what" PATTERN CMD... : CMD must fail and print PATTERN.
t_expect_fail() {
	local what=$1 pattern=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -qE "$pattern" <<<"$out"; then
		t_ok "$what"
	else
		t_fail "$what (exit $rc, output: $(head -n 2 <<<"$out" | tr '\n' ' '))"
	fi
}

# The results of a program that prints its own (TAP lines), counted here.
t_tally() { tap_relay "$T_NAME: "; }

t_done() { tap_done; }

# nc_record_start HOST FILE [COUNT]: HOST's outgoing netcoll frames on
# eth0 into FILE (up to COUNT, default 3000), in the background, until
# nc_record_stop: the recorder writes what it kept and ends (it is a
# child of the backgrounded "on", so it is told by its command line).
nc_record_start() {
	NC_REC_FILE=$2
	on "$1" "$NC_REPLAY" record --dev eth0 --outgoing --seconds 600 \
		--count "${3:-3000}" --out "$NC_REC_FILE" >"$NC_REC_FILE.log" 2>&1 &
	NC_REC_PID=$!
	# until its socket is bound (a busy guest took more than 0.3 s, and
	# a test found none of the frames it wanted)
	local i
	for i in $(seq 100); do
		grep -q "recording" "$NC_REC_FILE.log" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "nc_record_start: the recorder did not start" >&2
	return 1
}
nc_record_stop() {
	pkill -TERM -f -- "--out $NC_REC_FILE\$"
	wait "$NC_REC_PID"
}

# NC_KO: another kernel's build.  NC_DYNDBG=1: the module's pr_debug lines
# on (where a failed operation stood, in the guest's dmesg.txt).
# NC_KO_PARAMS: module parameters for every load, e.g. "rto_min_ms=10".
nc_load() {
	modprobe -q veth
	# shellcheck disable=SC2086 # NC_KO_PARAMS is a list of words
	insmod "${NC_KO:-$NC_TOP/kmod/netcoll.ko}" ${NC_DYNDBG:+dyndbg=+p} \
		${NC_KO_PARAMS:-} "$@"
}

nc_unload() {
	rmmod netcoll
}

# Unreclaimable slab + vmalloc, KiB: where the module's memory shows (one
# kernel for every host; the dentries and inodes of the tools a test runs
# are reclaimable).
kmem_kb() { awk '/^(SUnreclaim|VmallocUsed):/ { s += $2 } END { print s }' /proc/meminfo; }

# Counter NAME of HOST's namespace (from `nctl -j stats`).
nc_stat() {
	on "$1" "$NCTL" -j stats | python3 -c \
		'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$2"
}

# Counter NAME summed over every host of the cluster.
nc_stat_sum() {
	local h sum=0
	for h in $(cluster_hosts); do
		sum=$((sum + $(nc_stat "$h" "$1")))
	done
	echo "$sum"
}

# nc_clean_drops HOST : HOST's drop counters that a clean network must
# leave at zero, "name=N ..." or "none".  Two are left out, being the
# emulation's timing and not lost frames: drop_ratelimit, a repeated
# repair request answered with "alive" instead of data (a starved guest's
# timers ask twice), and drop_tx, a frame this host's own queue refused
# and resent (all hosts' frames share one guest kernel's backlog, where
# real hosts have a NIC ring each).
# nc_gso_segs N : gso_max_segs of every host's eth0; 1 makes the module
# send one frame an skb (bearer_eth.c groups only up to it).
nc_gso_segs() {
	local h
	for h in $(cluster_hosts); do on "$h" ip link set dev eth0 gso_max_segs "$1" || return 1; done
}

# The three ways frames leave (bearer_eth.c): several for one rank in one
# skb where every device on the way passes it whole (veth and bridge do);
# cut into frames again before a device that does not (HOST's switch port
# told to take one segment a packet, gso_max_segs 1, standing in for a
# NIC); and one frame an skb where eth0 takes one segment.  RUN PREFIX
# runs the workload (it checks every byte); each way the counters say
# which way the frames went.
_nc_gso_save() { local h; for h in $(cluster_hosts); do nc_stats_save "$h" "$T_LOG/$1_$h.json"; done; }
_nc_gso_sum() { # PREFIX NAME : NAME moved on every host since the saves
	local h n=0
	for h in $(cluster_hosts); do n=$((n + $(nc_stats_since "$T_LOG/$1_$h.json" "$h" "$2"))); done
	echo $n
}
_nc_port_segs() { # HOST N : gso_max_segs of HOST's switch port
	_nc_hostline "$1" && ip -n "$(cluster_fabric_ns)" link set dev "${_NC_R[5]}" gso_max_segs "$2"
}
nc_gso_whole() { # RUN PREFIX
	_nc_gso_save "$2"
	"$1" "$2" || return 1
	local tx rx
	tx=$(_nc_gso_sum "$2" tx_gso) rx=$(_nc_gso_sum "$2" rx_gso)
	echo "skbs of several frames: $tx sent, $rx received whole"
	[ "$tx" -gt 0 ] && [ "$rx" -gt 0 ]
}
nc_gso_cut() { # RUN PREFIX HOST
	local rc=0 rx tx
	_nc_gso_save "$2"
	_nc_port_segs "$3" 1 || return 1
	"$1" "$2" || rc=1
	_nc_port_segs "$3" 65535 || rc=1
	rx=$(nc_stats_since "$T_LOG/$2_$3.json" "$3" rx_gso) tx=$(_nc_gso_sum "$2" tx_gso)
	echo "skbs of several frames sent: $tx; received whole by $3: $rx; $3's drops: $(nc_clean_drops "$3")"
	[ $rc = 0 ] && [ "$tx" -gt 0 ] && [ "$rx" = 0 ] && [ "$(nc_clean_drops "$3")" = none ]
}
nc_gso_off() { # RUN PREFIX
	local rc=0 tx rx
	_nc_gso_save "$2"
	nc_gso_segs 1 || rc=1
	[ $rc = 0 ] && { "$1" "$2" || rc=1; }
	nc_gso_segs 65535 || rc=1
	tx=$(_nc_gso_sum "$2" tx_gso) rx=$(_nc_gso_sum "$2" rx_gso)
	echo "skbs of several frames: $tx sent, $rx received whole"
	[ $rc = 0 ] && [ "$tx" = 0 ] && [ "$rx" = 0 ]
}

nc_clean_drops() {
	on "$1" "$NCTL" -j stats | python3 -c '
import json, sys
skip = ("drop_ratelimit", "drop_tx")
d = json.load(sys.stdin)
print(" ".join(f"{k}={v}" for k, v in d.items() if k.startswith("drop_") and k not in skip and v) or "none")'
}

# Counters saved and compared (what moved while a test step ran):
# nc_stats_save HOST FILE : HOST's counters (`nctl -j stats`) into FILE.
nc_stats_save() {
	on "$1" "$NCTL" -j stats >"$2"
}
# nc_stats_sum FILE "NAME..." : the sum of those counters in a save (a
# NAME ending in * stands for every counter it begins).
nc_stats_sum() {
	python3 -c '
import json, sys
d, names = json.load(open(sys.argv[1])), sys.argv[2].split()
match = lambda k: any(k == n or (n.endswith("*") and k.startswith(n[:-1])) for n in names)
print(sum(v for k, v in d.items() if match(k)))' "$1" "$2"
}
# nc_stats_since FILE HOST NAME : how much HOST's counter NAME moved since
# the save FILE.
nc_stats_since() {
	echo $(( $(nc_stat "$2" "$3") - $(nc_stats_sum "$1" "$3") ))
}
# nc_mcast_moved HOST WANT CMD... : run CMD; HOST's agg_mcast_tx (result
# fragments it multicast) must move with WANT mcast, stay with tree.
nc_mcast_moved() {
	local host=$1 want=$2 save moved
	shift 2
	save=$(mktemp -p "$T_LOG" mcast.XXXXXX) || return 1
	nc_stats_save "$host" "$save"
	"$@" || return 1
	moved=$(nc_stats_since "$save" "$host" agg_mcast_tx)
	echo "$host agg_mcast_tx +$moved"
	if [ "$want" = mcast ]; then test "$moved" -gt 0; else test "$moved" = 0; fi
}
# nc_stats_moved BEFORE AFTER : every counter that moved between two
# saves, on one line ("name+N ...").
nc_stats_moved() {
	python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
print(" ".join(f"{k}+{b[k] - a.get(k, 0)}" for k in sorted(b) if b[k] != a.get(k, 0)))' "$1" "$2"
}

# Attach eth0 and create communicator ID on every host (rank = host order).
nc_comm_up() {
	local id=$1 cookie=${2:-0x5eed} h r=0 members
	members=$(cluster_members)
	for h in $(cluster_hosts); do
		on "$h" "$NCTL" dev attach dev eth0 || return 1
		on "$h" "$NCTL" comm add id "$id" dev eth0 rank $r \
			members "$members" cookie "$cookie" || return 1
		r=$((r + 1))
	done
}

# nc_comm_on ID HOSTS... : communicator ID over exactly these hosts, in
# this rank order (their devices attached already).
nc_comm_on() {
	local id=$1 h r=0 members=""
	shift
	for h in "$@"; do members+="${members:+,}$(cluster_mac "$h")"; done
	for h in "$@"; do
		on "$h" "$NCTL" comm add id "$id" dev eth0 rank $r \
			members "$members" || return 1
		r=$((r + 1))
	done
}

# nc_ranks LOGNAME "HOSTS" PROGRAM ARGS... : PROGRAM on each of HOSTS at
# once with --rank R --size P (R: the host's place in HOSTS); all must
# succeed, a failing one's first "not ok" lines (or last lines) are
# printed.  Logs: LOGNAME.HOST.log, or LOGNAME.HOST.rR.log for a host
# listed more than once (several ranks on one host).  NC_RANKS_AS (an
# array, e.g. a setpriv command) runs them as another user.  They post
# their first operation together (nc_start_gate).
NC_RANKS_AS=()
nc_ranks() {
	local name=$1 hosts prog=$3 h r pids=() logs=() rc=0
	read -r -a hosts <<<"$2"
	shift 3
	nc_start_gate ${#hosts[@]} || return 1
	for r in "${!hosts[@]}"; do
		h=${hosts[$r]}
		logs[r]=$T_LOG/$name.$h.log
		[ "$(tr ' ' '\n' <<<"${hosts[*]}" | grep -cx "$h")" = 1 ] ||
			logs[r]=$T_LOG/$name.$h.r$r.log
		on "$h" "${NC_RANKS_AS[@]}" "$prog" --rank "$r" --size ${#hosts[@]} "$@" \
			>"${logs[$r]}" 2>&1 &
		pids+=($!)
	done
	for r in "${!hosts[@]}"; do
		wait "${pids[$r]}" ||
			{ rc=1; echo "${hosts[$r]} rank $r: $(grep -m2 "^not ok" "${logs[$r]}" ||
								tail -n 2 "${logs[$r]}")"; }
	done
	nc_start_gate_end
	return $rc
}

# nc_start_gate N : the checkers started next (N of them) wait for each
# other before their first operation (selftests/net/start_gate.h says
# why: launching them one by one can take longer than an operation's
# budget).  Exports NC_START_GATE; a fresh directory each time, writable
# by the user NC_RANKS_AS may switch to.
nc_start_gate() {
	local dir
	dir=$(mktemp -d "${TMPDIR:-/tmp}/nc-gate.XXXXXX") && chmod 1777 "$dir" || return 1
	export NC_START_GATE="$dir $1"
}
nc_start_gate_end() {
	[ -n "${NC_START_GATE:-}" ] && rm -rf "${NC_START_GATE% *}"
	unset NC_START_GATE
}

# nc_mcast_group ID : the multicast address of communicator ID (h1's view).
nc_mcast_group() {
	on h1 "$NCTL" -j comm show id "$1" | python3 -c \
		'import json,sys; d=json.load(sys.stdin); d=d[0] if isinstance(d,list) else d; print(d["mcast"])'
}

# nc_drop_group GROUP HOSTS... : those hosts drop every frame sent to the
# multicast address GROUP on ingress (tc flower), until nc_undrop_group.
nc_drop_group() {
	local group=$1 h
	shift
	modprobe -a sch_ingress cls_flower act_gact || return 1
	for h in "$@"; do
		on "$h" tc qdisc add dev eth0 ingress &&
		on "$h" tc filter add dev eth0 ingress protocol all flower \
			dst_mac "$group" action drop || return 1
	done
}
nc_undrop_group() {
	local h
	for h in "$@"; do on "$h" tc qdisc del dev eth0 ingress; done
}

# Run nc_check on every host at once (each as its rank); all must succeed.
# Usage: nc_check_all LOGNAME [nc_check args without --rank/--size]
nc_check_all() {
	local name=$1 h r=0 n pids=() rc=0 i
	shift
	n=$(cluster_count)
	nc_start_gate "$n" || return 1
	for h in $(cluster_hosts); do
		on "$h" "$NC_CHECK" --rank $r --size "$n" "$@" \
			>"$T_LOG/$name.$h.log" 2>&1 &
		pids+=($!)
		r=$((r + 1))
	done
	i=0
	for h in $(cluster_hosts); do
		wait "${pids[$i]}" || { rc=1; echo "$h: $(tail -n 2 "$T_LOG/$name.$h.log")"; }
		i=$((i + 1))
	done
	nc_start_gate_end
	return $rc
}

# no_comms "HOSTS": no communicator on any of them.
no_comms() {
	local h n
	for h in $1; do
		n=$(on "$h" "$NCTL" -j comm list | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
		[ "$n" = 0 ] || { echo "$h has $n communicators"; return 1; }
	done
}

# nc_json HOST PYEXPR NCTL_ARGS... : `nctl -j ARGS` in HOST; PYEXPR (on d,
# the parsed JSON) must be true.
nc_json() {
	local h=$1 expr=$2
	shift 2
	on "$h" "$NCTL" -j "$@" | python3 -c \
		'import json,sys; d=json.load(sys.stdin); sys.exit(0 if eval(sys.argv[1]) else "false: %s on %r" % (sys.argv[1], d))' "$expr"
}

# nc_wait_bound HOST ID : until an endpoint is bound to HOST's communicator
# ID (20 s at most): a test that acts on a running operation starts there,
# not after a fixed sleep a busy guest may outlast.
nc_wait_bound() {
	local i
	for i in $(seq 200); do
		nc_json "$1" 'd and d[0].get("bound")' comm show id "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# The epoch of communicator ID as HOST has it (root sees it).
nc_epoch() {
	on "$1" "$NCTL" -j comm show id "$2" | python3 -c \
		'import json,sys; print(json.load(sys.stdin)[0]["epoch"])'
}

# Sum of HOST's drop_* counters.
nc_drops() {
	on "$1" "$NCTL" -j stats | python3 -c \
		'import json,sys; print(sum(v for k,v in json.load(sys.stdin).items() if k.startswith("drop_")))'
}
