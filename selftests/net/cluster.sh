#!/bin/bash
# cluster.sh - an emulated Ethernet cluster inside one Linux kernel: one
# network namespace per host, Linux bridges as switches, veth pairs as cables,
# tc (tbf/netem) on the cable ends for rate, delay, loss, duplication, reorder.
#
# Source it from a bash test (functions below), or run it:
#   cluster.sh up FILE|-          bring up a topology file (- = stdin)
#   cluster.sh star N [OPTS]      N hosts h1..hN on one switch s0
#   cluster.sh two-switch N [HOST_OPTS] [--trunk TRUNK_OPTS]
#   cluster.sh down               remove everything (idempotent)
#   cluster.sh check FILE|-       validate a topology file, change nothing
#   cluster.sh gen-star N [OPTS] | gen-two-switch ...   print topology text
#   cluster.sh show | hosts | members | mac HOST | ns HOST | ip HOST
#   cluster.sh set-link HOST OPTS... | set-link SW1 SW2 OPTS...
#   cluster.sh on HOST CMD...
#   cluster.sh lldp-up | lldp-collect DIR [TIMEOUT_S]   LLDP agents (below)
#
# Topology format (line based; '#' starts a comment; tokens split on blanks):
#   switch NAME
#   host NAME SWITCH [OPTS]       a host, its cable to SWITCH shaped by OPTS
#   link SWITCH SWITCH [OPTS]     a cable between two switches
# Names: a letter then letters, digits, '_', '-', '.' (at most 31), not
# "fabric"; host and switch names share one name space. Switches must be declared before use.
# A host's rank is its position among the host lines (first = rank 0); its
# MAC is 02:00:00:00:HI:LO with HI:LO = rank + 1 (h1 -> 02:00:00:00:00:01 when
# declared first), its IPv4 address 10.77.HI.LO/16 (diagnostics only).
# OPTS (each applies to BOTH directions of the cable, independently):
#   rate R        tbf, R = N{bit,kbit,mbit,gbit}; its queue has prio's three
#                 strict-priority bands (control frames, skb priority 7,
#                 first), each a byte FIFO of the tbf queue's length
#   burst B       tbf bucket, bytes (suffix k/m = 1000/1000000); default:
#                 8 ms at the rate (100 KB at 100mbit), at least 16 KB
#   queue T       tbf queue length as a delay (tbf latency), default 20ms
#   delay T       netem one-way delay, T = N{us,ms,s} (decimals allowed)
#   jitter T      netem delay jitter (needs delay)
#   loss P%  duplicate P%  reorder P% (needs delay)  corrupt P%     netem
#   limit N       netem queue length in packets (default 1000)
# If a cable has both netem and tbf options, netem is the root qdisc and tbf
# its child (impairment first, then the rate limit with its queue).
# At run time (cluster_set_link) OPTS are merged into the cable's current
# ones; "KEY off" removes one, "clear" removes all. Changing which qdiscs are
# needed (e.g. the last netem option removed) replaces the qdiscs and drops
# what was queued on that cable; otherwise the qdiscs are changed in place.
#
# Layout: hosts are namespaces ${NC_CLUSTER_PREFIX:-nc-}NAME with one
# interface eth0. All switches live in ONE namespace, ${prefix}fabric, as
# bridges sw0, sw1, ... (ifalias = switch name); host cables end there as
# hp<rank+1>, switch-to-switch cables as tk<N>a/tk<N>b. One fabric namespace
# instead of one per switch: bridges need no isolation from each other (they
# never touch an IP stack), it halves the namespaces to create and delete
# (each costs time under TCG), lets one `ip -batch` configure every switch,
# and `ip -n nc-fabric link` shows the whole fabric at once.
# Bridges: STP off, forward_delay 0 (forward at once), ageing 300 s,
# multicast snooping off (multicast is flooded like broadcast). IPv6 address
# generation is off on every interface (no DAD/RS/MLD noise on the wire).
# State (which cluster is up, per-cable options) is kept in
# ${NC_CLUSTER_STATE:-/run/netcoll-cluster} so separate processes share it.
#
# Functions: cluster_up FILE|-, cluster_up_text TEXT, cluster_star N [OPTS],
# cluster_two_switch N [HOST_OPTS] [--trunk OPTS], cluster_down,
# cluster_check FILE|-, cluster_gen_star, cluster_gen_two_switch, cluster_hosts,
# cluster_switches, cluster_count, cluster_fabric_ns, cluster_ns HOST, cluster_mac HOST,
# cluster_ip HOST, cluster_rank HOST, cluster_members, cluster_set_link,
# cluster_link_opts HOST|SW1 SW2, cluster_mtu MTU,
# cluster_show, cluster_lldp_up, cluster_lldp_collect DIR [TIMEOUT_S],
# on HOST CMD...
# All return non-zero with a message on stderr on error; none calls exit.

_nc_env() {
	_NC_P=${NC_CLUSTER_PREFIX:-nc-}
	_NC_STATE=${NC_CLUSTER_STATE:-/run/netcoll-cluster}
	_NC_FAB="${_NC_P}fabric"
}

_nc_err() { echo "cluster: $*" >&2; }

# --- options -------------------------------------------------------------------
_NC_KEYS="rate burst queue delay jitter loss duplicate reorder corrupt limit"

# _nc_opt_check KEY VALUE -> prints normalized value, or an error text and rc 1
_nc_opt_check() {
	local k=$1 v=${2,,} n u
	if [ "$v" = off ]; then echo off; return 0; fi
	case "$k" in
	rate)
		if [[ "$v" =~ ^([0-9]+)(bit|kbit|mbit|gbit)$ ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]; then
			echo "$v"; return 0
		fi
		echo "bad rate '$2' (want e.g. 100mbit, 1gbit, 500kbit)"; return 1 ;;
	burst)
		if [[ "$v" =~ ^([0-9]+)(b|k|kb|m|mb)?$ ]]; then
			n=${BASH_REMATCH[1]}; u=${BASH_REMATCH[2]}
			case "$u" in k|kb) n=$((n * 1000)) ;; m|mb) n=$((n * 1000000)) ;; esac
			if [ "$n" -ge 1600 ]; then echo "$n"; return 0; fi
		fi
		echo "bad burst '$2' (bytes, at least 1600; e.g. 100k)"; return 1 ;;
	queue|delay|jitter)
		if [[ "$v" =~ ^[0-9]+(\.[0-9]+)?(us|ms|s)$ ]]; then echo "$v"; return 0; fi
		echo "bad $k '$2' (want a time, e.g. 1ms, 500us, 0.5ms)"; return 1 ;;
	loss|duplicate|reorder|corrupt)
		# 0-100, decimals allowed: 2%, 0.5%, 100%
		if [[ "$v" =~ ^([0-9]+)(\.([0-9]+))?%$ ]] &&
			{ [ "${BASH_REMATCH[1]}" -lt 100 ] ||
			{ [ "${BASH_REMATCH[1]}" -eq 100 ] && [[ "${BASH_REMATCH[3]}" =~ ^0*$ ]]; }; }; then
			echo "$v"; return 0
		fi
		echo "bad $k '$2' (want a percentage 0-100, e.g. 2% or 0.5%)"; return 1 ;;
	limit)
		if [[ "$v" =~ ^[0-9]+$ ]] && [ "$v" -gt 0 ]; then echo "$v"; return 0; fi
		echo "bad limit '$2' (packets, > 0)"; return 1 ;;
	esac
	echo "unknown option '$k' (known: $_NC_KEYS)"; return 1
}

# _nc_opts_merge OLD_NORMALIZED ARGS... -> prints the merged normalized string
# "k=v k=v" in canonical key order; on error prints the message, returns 1.
_nc_opts_merge() {
	local old=$1; shift
	local -A o=()
	local kv k v r
	for kv in $old; do o[${kv%%=*}]=${kv#*=}; done
	while [ $# -gt 0 ]; do
		k=$1
		if [ "$k" = clear ]; then o=(); shift; continue; fi
		if [[ " $_NC_KEYS " != *" $k "* ]]; then
			echo "unknown option '$k' (known: $_NC_KEYS, clear)"; return 1
		fi
		if [ $# -lt 2 ]; then echo "option '$k' needs a value"; return 1; fi
		if ! r=$(_nc_opt_check "$k" "$2"); then echo "$r"; return 1; fi
		if [ "$r" = off ]; then unset "o[$k]"; else o[$k]=$r; fi
		shift 2
	done
	if [ -n "${o[jitter]:-}" ] && [ -z "${o[delay]:-}" ]; then
		echo "jitter needs delay"; return 1
	fi
	if [ -n "${o[reorder]:-}" ] && [ -z "${o[delay]:-}" ]; then
		echo "reorder needs delay (netem reorders by sending some packets undelayed)"; return 1
	fi
	if [ -z "${o[rate]:-}" ] && { [ -n "${o[burst]:-}" ] || [ -n "${o[queue]:-}" ]; }; then
		echo "burst/queue need rate"; return 1
	fi
	r=""
	for k in $_NC_KEYS; do
		v=${o[$k]:-}
		[ -n "$v" ] && r+="$k=$v "
	done
	echo "${r% }"
}

# which qdiscs a normalized option string needs: "", tbf, netem, netem+tbf
_nc_shape_kind() {
	local s="" n=""
	case " $1" in *" rate="*) s=tbf ;; esac
	case " $1" in *" delay="*|*" loss="*|*" duplicate="*|*" corrupt="*|*" limit="*) n=netem ;; esac
	if [ -n "$n" ] && [ -n "$s" ]; then echo netem+tbf; else echo "$n$s"; fi
}

# _nc_tc_lines DEV OLD NEW -> tc batch lines turning OLD shaping into NEW
_nc_tc_lines() {
	local dev=$1 old=$2 new=$3 ko kn verb kv bits burst
	local -A o=()
	ko=$(_nc_shape_kind "$old"); kn=$(_nc_shape_kind "$new")
	verb=add
	if [ "$ko" = "$kn" ]; then
		verb=change
	elif [ -n "$ko" ]; then
		echo "qdisc del dev $dev root"
	fi
	[ -z "$kn" ] && return 0
	for kv in $new; do o[${kv%%=*}]=${kv#*=}; done
	local netem="" tbf=""
	if [[ "$kn" == netem* ]]; then
		netem="netem limit ${o[limit]:-1000}"
		[ -n "${o[delay]:-}" ] && netem+=" delay ${o[delay]} ${o[jitter]:-}"
		[ -n "${o[loss]:-}" ] && netem+=" loss ${o[loss]}"
		[ -n "${o[duplicate]:-}" ] && netem+=" duplicate ${o[duplicate]}"
		[ -n "${o[reorder]:-}" ] && netem+=" reorder ${o[reorder]}"
		[ -n "${o[corrupt]:-}" ] && netem+=" corrupt ${o[corrupt]}"
		echo "qdisc $verb dev $dev root handle 1: $netem"
	fi
	if [[ "$kn" == *tbf ]]; then
		if [[ "${o[rate]}" =~ ^([0-9]+)(bit|kbit|mbit|gbit)$ ]]; then
			bits=${BASH_REMATCH[1]}
			case "${BASH_REMATCH[2]}" in
			kbit) bits=$((bits * 1000)) ;; mbit) bits=$((bits * 1000000)) ;;
			gbit) bits=$((bits * 1000000000)) ;;
			esac
		fi
		burst=${o[burst]:-$((bits / 1000))}
		[ "$burst" -lt 16384 ] && [ -z "${o[burst]:-}" ] && burst=16384
		tbf="tbf rate ${o[rate]} burst $burst latency ${o[queue]:-20ms}"
		local parent="root handle 1:" th=1
		[ -n "$netem" ] && parent="parent 1:1 handle 10:" && th=10
		echo "qdisc $verb dev $dev $parent $tbf"
		# The queue behind the rate limit: strict priority (prio's default
		# priomap, as pfifo_fast or a switch's priority classes), each band
		# a byte FIFO as long as tbf's own queue would be.
		local limit b
		limit=$(awk -v t="${o[queue]:-20ms}" -v bits="$bits" -v burst="$burst" 'BEGIN {
			s = t + 0; if (t ~ /us$/) s /= 1e6; else if (t ~ /ms$/) s /= 1e3
			printf "%d", bits / 8 * s + burst }')
		[ "$verb" = add ] && echo "qdisc add dev $dev parent $th:1 handle 20: prio"
		for b in 1 2 3; do
			echo "qdisc $verb dev $dev parent 20:$b handle 2$b: bfifo limit $limit"
		done
	fi
}

# --- parsing -------------------------------------------------------------------
# _nc_parse SOURCE_NAME < text. Fills:
#   _NC_SWITCHES (names, in order)  _NC_HOSTS (names, in order)
#   _NC_HSW[host]=switch  _NC_HOPT[host]=normalized opts
#   _NC_TRUNKS ("a b" pairs)  _NC_TOPT[i]=normalized opts of trunk i
# Reports every bad line as SOURCE:LINE: message; returns 1 if any.
_nc_parse() {
	local src=$1 line lno=0 errs=0 r
	local -a t
	local -A kind=() optc=()
	# normalize OPTS once per distinct spelling (a subshell each: slow in TCG);
	# sets r to the result or the error text
	_nc_opts_cached() {
		local key="k$*"
		if [ -z "${optc[$key]+x}" ]; then
			if r=$(_nc_opts_merge "" "$@"); then optc[$key]="0 $r"; else optc[$key]="1 $r"; fi
		fi
		r=${optc[$key]#? }
		[ "${optc[$key]:0:1}" = 0 ]
	}
	_NC_SWITCHES=(); _NC_HOSTS=(); _NC_TRUNKS=()
	declare -gA _NC_HSW=() _NC_HOPT=()
	declare -ga _NC_TOPT=()
	_NC_HSW=(); _NC_HOPT=(); _NC_TOPT=()
	local namere='^[A-Za-z][A-Za-z0-9_.-]{0,30}$'
	# _nc_new_name NAME: NAME may name a new switch or host; else r says why
	_nc_new_name() {
		if ! [[ "$1" =~ $namere ]]; then r="bad name '$1'"
		elif [ "$1" = fabric ]; then r="name 'fabric' is reserved (the switches' namespace)"
		elif [ -n "${kind[$1]:-}" ]; then r="duplicate name '$1' (already a ${kind[$1]})"
		else return 0
		fi
		return 1
	}
	# The cables must form a tree (bridges run without STP: a second path
	# would loop broadcasts): union-find over names, up[x] = x's parent.
	local -A up=() tline=() swline=()
	local ra rb
	while IFS= read -r line || [ -n "$line" ]; do
		lno=$((lno + 1))
		line=${line%$'\r'}	# CRLF files read like LF ones (as the planner's)
		line=${line%%#*}
		read -r -a t <<< "$line"
		[ ${#t[@]} -eq 0 ] && continue
		case "${t[0]}" in
		switch)
			if [ ${#t[@]} -ne 2 ]; then
				_nc_err "$src:$lno: want 'switch NAME'"; errs=$((errs + 1)); continue
			fi
			if ! _nc_new_name "${t[1]}"; then
				_nc_err "$src:$lno: $r"; errs=$((errs + 1)); continue
			fi
			kind[${t[1]}]=switch
			swline[${t[1]}]=$lno
			_NC_SWITCHES+=("${t[1]}") ;;
		host)
			if [ ${#t[@]} -lt 3 ]; then
				_nc_err "$src:$lno: want 'host NAME SWITCH [OPTS]'"; errs=$((errs + 1)); continue
			fi
			if ! _nc_new_name "${t[1]}"; then
				_nc_err "$src:$lno: $r"; errs=$((errs + 1)); continue
			fi
			if [ "${kind[${t[2]}]:-}" != switch ]; then
				_nc_err "$src:$lno: unknown switch '${t[2]}'"; errs=$((errs + 1)); continue
			fi
			if ! _nc_opts_cached "${t[@]:3}"; then
				_nc_err "$src:$lno: $r"; errs=$((errs + 1)); continue
			fi
			kind[${t[1]}]=host
			up[${t[1]}]=${t[2]}
			_NC_HOSTS+=("${t[1]}")
			_NC_HSW[${t[1]}]=${t[2]}
			_NC_HOPT[${t[1]}]=$r ;;
		link)
			if [ ${#t[@]} -lt 3 ]; then
				_nc_err "$src:$lno: want 'link SWITCH SWITCH [OPTS]'"; errs=$((errs + 1)); continue
			fi
			if [ "${kind[${t[1]}]:-}" != switch ]; then
				_nc_err "$src:$lno: unknown switch '${t[1]}'"; errs=$((errs + 1)); continue
			fi
			if [ "${kind[${t[2]}]:-}" != switch ]; then
				_nc_err "$src:$lno: unknown switch '${t[2]}'"; errs=$((errs + 1)); continue
			fi
			if [ "${t[1]}" = "${t[2]}" ]; then
				_nc_err "$src:$lno: link from '${t[1]}' to itself"; errs=$((errs + 1)); continue
			fi
			if ! _nc_opts_cached "${t[@]:3}"; then
				_nc_err "$src:$lno: $r"; errs=$((errs + 1)); continue
			fi
			ra=${t[1]}; while [ -n "${up[$ra]:-}" ]; do ra=${up[$ra]}; done
			rb=${t[2]}; while [ -n "${up[$rb]:-}" ]; do rb=${up[$rb]}; done
			if [ "$ra" = "$rb" ]; then
				if [ -n "${tline[${t[1]} ${t[2]}]:-}" ]; then
					_nc_err "$src:$lno: duplicate link ${t[1]} ${t[2]} (already on line ${tline[${t[1]} ${t[2]}]})"
				else
					_nc_err "$src:$lno: link ${t[1]} ${t[2]} closes a cycle (the network must be a tree)"
				fi
				errs=$((errs + 1)); continue
			fi
			up[$ra]=$rb
			[ "$ra" = "${t[1]}" ] || up[${t[1]}]=$rb
			tline[${t[1]} ${t[2]}]=$lno; tline[${t[2]} ${t[1]}]=$lno
			_NC_TOPT[${#_NC_TRUNKS[@]}]=$r
			_NC_TRUNKS+=("${t[1]} ${t[2]}") ;;
		*)
			_nc_err "$src:$lno: unknown statement '${t[0]}' (want switch, host or link)"
			errs=$((errs + 1)) ;;
		esac
	done
	if [ "$errs" -eq 0 ] && [ ${#_NC_HOSTS[@]} -eq 0 ]; then
		_nc_err "$src: no hosts"; errs=1
	fi
	if [ "$errs" -eq 0 ]; then
		local s0=${_NC_SWITCHES[0]} s
		ra=$s0; while [ -n "${up[$ra]:-}" ]; do ra=${up[$ra]}; done
		for s in "${_NC_SWITCHES[@]}"; do
			rb=$s; while [ -n "${up[$rb]:-}" ]; do rb=${up[$rb]}; done
			if [ "$rb" != "$ra" ]; then
				_nc_err "$src:${swline[$s]}: switch $s is not connected to $s0"
				errs=1; break
			fi
		done
	fi
	if [ ${#_NC_HOSTS[@]} -gt 65534 ]; then
		_nc_err "$src: too many hosts (${#_NC_HOSTS[@]} > 65534)"; errs=$((errs + 1))
	fi
	[ "$errs" -eq 0 ]
}


# --- bring-up ------------------------------------------------------------------
_nc_modules() { # load what the topology needs (modprobe from the shared root)
	local m need=()
	for m in "$@"; do
		[ -d "/sys/module/$m" ] || need+=("$m")
	done
	[ ${#need[@]} -eq 0 ] && return 0
	modprobe -a "${need[@]}" || { _nc_err "modprobe ${need[*]} failed"; return 1; }
}

# Bring up the parsed topology (_NC_* arrays). State files:
#   hosts:    RANK NAME SWITCH MAC IPV4 FABRIC_PORT
#   switches: INDEX NAME BRIDGE
#   links:    ID NS_A DEV_A NS_B DEV_B NAME_A NAME_B OPTS...
_nc_t0=""
_nc_dbg() { # phase timing on stderr with NC_CLUSTER_DEBUG=1
	[ "${NC_CLUSTER_DEBUG:-0}" = 1 ] || return 0
	local now=${EPOCHREALTIME/,/.}
	[ -n "$_nc_t0" ] || _nc_t0=$now
	echo "cluster: +$(( (${now/./} - ${_nc_t0/./}) / 1000 )) ms $*" >&2
}

_nc_bringup() {
	local i j h s rank mac ip port br a b opts="" mods=(veth bridge) fab="" cmds o rc=0
	local -A swbr=() tpl=() fabtc=()
	local -a pids=() pidhost=()
	_nc_env
	_nc_t0=""
	_nc_dbg "bring-up: ${#_NC_HOSTS[@]} hosts, ${#_NC_SWITCHES[@]} switches"
	cluster_down || return 1
	if [ "$EUID" != 0 ]; then _nc_err "needs root"; return 1; fi
	for h in "${_NC_HOSTS[@]}"; do opts+=" ${_NC_HOPT[$h]}"; done
	for i in "${!_NC_TRUNKS[@]}"; do opts+=" ${_NC_TOPT[$i]}"; done
	case "$opts" in *rate=*) mods+=(sch_tbf sch_prio) ;; esac
	case "$opts" in *delay=*|*loss=*|*duplicate=*|*corrupt=*|*limit=*) mods+=(sch_netem) ;; esac
	_nc_modules "${mods[@]}" || return 1
	_nc_dbg "down + modules done"
	mkdir -p "$_NC_STATE" || return 1
	: > "$_NC_STATE/hosts"; : > "$_NC_STATE/switches"; : > "$_NC_STATE/links"
	# tc lines per distinct option string, device name left as @DEV@
	for h in "${_NC_HOSTS[@]}"; do
		o=${_NC_HOPT[$h]}
		[ -n "$o" ] && [ -z "${tpl[$o]+x}" ] && tpl[$o]=$(_nc_tc_lines @DEV@ "" "$o")
	done
	for i in "${!_NC_TRUNKS[@]}"; do
		o=${_NC_TOPT[$i]}
		[ -n "$o" ] && [ -z "${tpl[$o]+x}" ] && tpl[$o]=$(_nc_tc_lines @DEV@ "" "$o")
	done
	# 1. namespaces: recorded first, so cluster_down cleans up a half bring-up
	cmds="netns add $_NC_FAB"$'\n'
	for h in "${_NC_HOSTS[@]}"; do cmds+="netns add $_NC_P$h"$'\n'; done
	printf '%s\n' "$_NC_FAB" "${_NC_HOSTS[@]/#/$_NC_P}" > "$_NC_STATE/namespaces"
	ip -batch - <<< "$cmds" || { _nc_err "creating namespaces failed"; return 1; }
	_nc_dbg "namespaces added"
	# 2. the fabric: bridges and cables, created from inside the fabric
	#    namespace; host ends go straight into the host namespaces as eth0.
	#    (addrgenmode must be set in a message before the one setting "up":
	#    the kernel brings a link up before applying IFLA_AF_SPEC)
	j=0
	for s in "${_NC_SWITCHES[@]}"; do
		br="sw$j"; swbr[$s]=$br
		fab+="link add $br type bridge stp_state 0 forward_delay 0 ageing_time 30000 mcast_snooping 0"$'\n'
		fab+="link set $br alias $s addrgenmode none"$'\n'"link set $br up"$'\n'
		echo "$j $s $br" >> "$_NC_STATE/switches"
		j=$((j + 1))
	done
	rank=0
	for h in "${_NC_HOSTS[@]}"; do
		i=$((rank + 1)); port="hp$i"
		printf -v mac '02:00:00:00:%02x:%02x' $((i >> 8)) $((i & 255))
		printf -v ip '10.77.%d.%d' $((i >> 8)) $((i & 255))
		fab+="link add $port type veth peer name eth0 netns $_NC_P$h address $mac"$'\n'
		fab+="link set $port addrgenmode none"$'\n'
		fab+="link set $port master ${swbr[${_NC_HSW[$h]}]} up"$'\n'
		echo "$rank $h ${_NC_HSW[$h]} $mac $ip $port" >> "$_NC_STATE/hosts"
		echo "h$i $_NC_P$h eth0 $_NC_FAB $port $h ${_NC_HSW[$h]} ${_NC_HOPT[$h]}" >> "$_NC_STATE/links"
		o=${_NC_HOPT[$h]}
		[ -n "$o" ] && fabtc[$port]=${tpl[$o]//@DEV@/$port}
		rank=$((rank + 1))
	done
	for i in "${!_NC_TRUNKS[@]}"; do
		read -r a b <<< "${_NC_TRUNKS[$i]}"
		fab+="link add tk${i}a type veth peer name tk${i}b"$'\n'
		fab+="link set tk${i}a addrgenmode none"$'\n'"link set tk${i}b addrgenmode none"$'\n'
		fab+="link set tk${i}a master ${swbr[$a]} up"$'\n'
		fab+="link set tk${i}b master ${swbr[$b]} up"$'\n'
		echo "t$i $_NC_FAB tk${i}a $_NC_FAB tk${i}b $a $b ${_NC_TOPT[$i]}" >> "$_NC_STATE/links"
		o=${_NC_TOPT[$i]}
		if [ -n "$o" ]; then
			fabtc[tk${i}a]=${tpl[$o]//@DEV@/tk${i}a}
			fabtc[tk${i}b]=${tpl[$o]//@DEV@/tk${i}b}
		fi
	done
	ip -n "$_NC_FAB" -batch - <<< "$fab" ||
		{ _nc_err "building the switch fabric failed"; return 1; }
	_nc_dbg "fabric built"
	# 3. every host namespace needs its own ip (and tc) process: run them
	#    side by side (an exec costs ~50 ms under TCG, mostly latency)
	if [ ${#fabtc[@]} -gt 0 ]; then
		printf -v cmds '%s\n' "${fabtc[@]}"
		tc -n "$_NC_FAB" -batch - <<< "$cmds" &
		pids+=($!); pidhost+=("$_NC_FAB (tc)")
	fi
	rank=0
	for h in "${_NC_HOSTS[@]}"; do
		i=$((rank + 1)); rank=$i
		printf -v ip '10.77.%d.%d' $((i >> 8)) $((i & 255))
		o=${_NC_HOPT[$h]}
		{
			ip -n "$_NC_P$h" -batch - <<< "link set lo up
link set eth0 addrgenmode none
link set eth0 up
address add $ip/16 dev eth0" &&
			if [ -n "$o" ]; then
				tc -n "$_NC_P$h" -batch - <<< "${tpl[$o]//@DEV@/eth0}"
			fi
		} &
		pids+=($!); pidhost+=("$h")
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { _nc_err "configuring ${pidhost[$i]} failed"; rc=1; }
	done
	_nc_dbg "hosts configured (rc $rc)"
	return $rc
}

# --- public API ----------------------------------------------------------------------
cluster_check() { # FILE|-
	local f=${1:?usage: cluster_check FILE|-}
	if [ "$f" = - ]; then
		_nc_parse "<stdin>"
	else
		[ -r "$f" ] || { _nc_err "cannot read topology '$f'"; return 1; }
		# shellcheck disable=SC2094 # $f is only a name for messages
		_nc_parse "$f" < "$f"
	fi
}

cluster_up() { # FILE|-
	cluster_check "$@" || return 1
	_nc_bringup
}

cluster_up_text() { # TEXT [SOURCE_NAME]
	_nc_parse "${2:-<text>}" <<< "$1" || return 1
	_nc_bringup
}

cluster_gen_star() { # N [OPTS]
	local n=${1:-} i
	if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ]; then
		_nc_err "usage: cluster_star N [OPTS] (N >= 1)"; return 1
	fi
	shift
	echo "# star: $n hosts on one switch"
	echo "switch s0"
	for ((i = 1; i <= n; i++)); do echo "host h$i s0${*:+ $*}"; done
}

cluster_gen_two_switch() { # N_PER_SWITCH [HOST_OPTS] [--trunk TRUNK_OPTS]
	local n=${1:-} i hopt=() topt=() trunk=0
	if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ]; then
		_nc_err "usage: cluster_two_switch N_PER_SWITCH [HOST_OPTS] [--trunk OPTS]"; return 1
	fi
	shift
	for i in "$@"; do
		if [ "$i" = --trunk ]; then trunk=1; continue; fi
		if [ "$trunk" = 1 ]; then topt+=("$i"); else hopt+=("$i"); fi
	done
	echo "# two switches, $n hosts each, one link between them"
	echo "switch s0"
	echo "switch s1"
	for ((i = 1; i <= 2 * n; i++)); do
		echo "host h$i s$(( i > n ? 1 : 0 ))${hopt[*]:+ ${hopt[*]}}"
	done
	echo "link s0 s1${topt[*]:+ ${topt[*]}}"
}

cluster_star() { # N [OPTS]
	local t
	t=$(cluster_gen_star "$@") || return 1
	cluster_up_text "$t" "<cluster_star>"
}

cluster_two_switch() { # N_PER_SWITCH [HOST_OPTS] [--trunk TRUNK_OPTS]
	local t
	t=$(cluster_gen_two_switch "$@") || return 1
	cluster_up_text "$t" "<cluster_two_switch>"
}

# the namespaces named with our prefix (ip netns keeps them in /run/netns)
_nc_list_ns() {
	local f
	for f in /run/netns/"$_NC_P"*; do
		[ -e "$f" ] && echo "${f#/run/netns/}"
	done
	return 0
}

# --- LLDP: what a real network tells about itself -----------------------------------
# cluster_lldp_up starts lldpd(8) on every host (eth0) and, for every switch,
# one in the fabric namespace on that bridge's ports, as a switch's own
# agent would run: chassis ID the bridge's MAC, system name the switch's
# name, Bridge capability.  Each has its control socket
# $_NC_STATE/lldp/NAME.sock and sends every second (TTL 4 s); its settings
# are applied before its first frame (-O), so no neighbor ever sees another
# identity.  cluster_lldp_collect DIR waits until every node sees every
# cable it has, writes DIR/NAME.json (`lldpcli -f json show chassis`, then
# `show neighbors details`: what `nctl topo discover` reads) and stops them;
# cluster_down stops them too.
_nc_lldp_stop() {
	local pid
	[ -r "$_NC_STATE/lldp/pids" ] || return 0
	while read -r pid; do kill "$pid" 2>/dev/null; done < "$_NC_STATE/lldp/pids"
	while read -r pid; do	# 5 s each, then for good
		for _ in {1..50}; do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
	done < "$_NC_STATE/lldp/pids"
	rm -f "$_NC_STATE/lldp/pids"
}

# _nc_lldp_start NAME NS IFACES CHASSIS_ID|"" : one agent
_nc_lldp_start() {
	local d=$_NC_STATE/lldp
	{
		echo "configure system hostname $1"
		[ -n "$4" ] && echo "configure system chassisid $4"
		echo "configure lldp tx-interval 1"
	} > "$d/$1.conf"
	ip netns exec "$2" lldpd -d -u "$d/$1.sock" -I "$3" -O "$d/$1.conf" \
		> "$d/$1.log" 2>&1 &
	echo $! >> "$d/pids"
}

cluster_lldp_up() {
	local r h s m i p j br rest ports id
	local -A swports=()
	_nc_env
	[ -r "$_NC_STATE/hosts" ] || { _nc_err "no cluster is up"; return 1; }
	command -v lldpd > /dev/null || { _nc_err "lldpd is not installed"; return 1; }
	_nc_lldp_stop
	mkdir -p "$_NC_STATE/lldp" /run/lldpd || return 1	# lldpd's chroot
	while read -r r h s m i p; do
		swports[$s]+="${swports[$s]:+,}$p"
		_nc_lldp_start "$h" "$_NC_P$h" eth0 ""
	done < "$_NC_STATE/hosts"
	while read -r r rest; do
		case "$r" in t*) ;; *) continue ;; esac
		read -r i p j br s h rest <<< "$rest"	# ns a_dev ns b_dev a b
		swports[$s]+="${swports[$s]:+,}$p"
		swports[$h]+="${swports[$h]:+,}$br"
	done < "$_NC_STATE/links"
	while read -r j s br; do
		[ -n "${swports[$s]:-}" ] || continue	# no cable: nothing to tell
		id=$(ip netns exec "$_NC_FAB" cat "/sys/class/net/$br/address") || return 1
		_nc_lldp_start "$s" "$_NC_FAB" "${swports[$s]}" "$id"
	done < "$_NC_STATE/switches"
}

# _nc_lldp_seen NAME : how many neighbors NAME's agent knows
_nc_lldp_seen() {
	lldpcli -u "$_NC_STATE/lldp/$1.sock" show neighbors 2>/dev/null | grep -c '^Interface:'
}

cluster_lldp_collect() { # DIR [TIMEOUT_S]
	local dir=${1:?usage: cluster_lldp_collect DIR [TIMEOUT_S]} t=${2:-60} n want
	local r h s rest i
	local -A cables=()
	_nc_env
	[ -r "$_NC_STATE/lldp/pids" ] || { _nc_err "no LLDP agents (cluster_lldp_up)"; return 1; }
	while read -r r h s rest; do
		cables[$h]=1; cables[$s]=$((${cables[$s]:-0} + 1))
	done < "$_NC_STATE/hosts"
	while read -r r rest; do
		case "$r" in t*) ;; *) continue ;; esac
		read -r i i i i s h rest <<< "$rest"
		cables[$s]=$((${cables[$s]:-0} + 1)); cables[$h]=$((${cables[$h]:-0} + 1))
	done < "$_NC_STATE/links"
	mkdir -p "$dir" || return 1
	for n in "${!cables[@]}"; do
		want=${cables[$n]}
		while [ "$(_nc_lldp_seen "$n")" -lt "$want" ]; do
			if [ "$t" -le 0 ]; then
				_nc_err "LLDP: $n sees $(_nc_lldp_seen "$n") of its $want cables"
				_nc_lldp_stop; return 1
			fi
			sleep 1; t=$((t - 1))
		done
	done
	for n in "${!cables[@]}"; do
		{
			lldpcli -u "$_NC_STATE/lldp/$n.sock" -f json show chassis &&
			lldpcli -u "$_NC_STATE/lldp/$n.sock" -f json show neighbors details
		} > "$dir/$n.json" || { _nc_err "LLDP: lldpcli for $n failed"; _nc_lldp_stop; return 1; }
	done
	_nc_lldp_stop
}

cluster_down() { # remove every namespace of this cluster (and stale ones)
	local ns cmds=""
	_nc_env
	_nc_lldp_stop
	local -A seen=()
	if [ -r "$_NC_STATE/namespaces" ]; then
		while read -r ns; do seen[$ns]=1; done < "$_NC_STATE/namespaces"
	fi
	for ns in /run/netns/"$_NC_P"*; do
		[ -e "$ns" ] && seen[${ns#/run/netns/}]=1
	done
	for ns in "${!seen[@]}"; do
		[ -e "/run/netns/$ns" ] && cmds+="netns delete $ns"$'\n'
	done
	[ -n "$cmds" ] && ip -force -batch - <<< "$cmds" 2>/dev/null
	rm -rf "$_NC_STATE"
	ns=$(_nc_list_ns)
	[ -z "$ns" ] || { _nc_err "could not delete: $ns"; return 1; }
}

cluster_mtu() { # MTU : every interface of this cluster (hosts and fabric) but lo
	local ns cmds
	_nc_env
	for ns in $(_nc_list_ns); do
		cmds=$(ip -n "$ns" -o link show | awk -F': ' -v mtu="$1" '
			{ sub(/@.*/, "", $2); if ($2 != "lo") print "link set " $2 " mtu " mtu }')
		[ -z "$cmds" ] || ip -n "$ns" -batch - <<< "$cmds" || return 1
	done
}

_nc_hostline() { # HOST -> sets _NC_R (rank line fields); rc 1 if unknown
	local r n s m i p
	_nc_env
	if [ -r "$_NC_STATE/hosts" ]; then
		while read -r r n s m i p; do
			if [ "$n" = "$1" ]; then
				_NC_R=("$r" "$n" "$s" "$m" "$i" "$p"); return 0
			fi
		done < "$_NC_STATE/hosts"
	fi
	_nc_err "unknown host '$1' (is a cluster up?)"
	return 1
}

cluster_hosts() { # host names in rank order, one a line
	_nc_env
	[ -r "$_NC_STATE/hosts" ] || { _nc_err "no cluster is up"; return 1; }
	local r n rest
	while read -r r n rest; do echo "$n"; done < "$_NC_STATE/hosts"
}

cluster_switches() {
	_nc_env
	[ -r "$_NC_STATE/switches" ] || { _nc_err "no cluster is up"; return 1; }
	local j n rest
	while read -r j n rest; do echo "$n"; done < "$_NC_STATE/switches"
}

cluster_count() { # number of hosts
	_nc_env
	[ -r "$_NC_STATE/hosts" ] || { _nc_err "no cluster is up"; return 1; }
	local lines
	mapfile -t lines < "$_NC_STATE/hosts"
	echo "${#lines[@]}"
}

cluster_fabric_ns() { _nc_env; echo "$_NC_FAB"; }
cluster_ns() { _nc_hostline "${1:?usage: cluster_ns HOST}" && echo "$_NC_P$1"; }
cluster_rank() { _nc_hostline "${1:?usage: cluster_rank HOST}" && echo "${_NC_R[0]}"; }
cluster_mac() { _nc_hostline "${1:?usage: cluster_mac HOST}" && echo "${_NC_R[3]}"; }
cluster_ip() { _nc_hostline "${1:?usage: cluster_ip HOST}" && echo "${_NC_R[4]}"; }

cluster_members() { # all host MACs in rank order, comma separated
	_nc_env
	[ -r "$_NC_STATE/hosts" ] || { _nc_err "no cluster is up"; return 1; }
	local r n s m rest out=""
	while read -r r n s m rest; do out+="${out:+,}$m"; done < "$_NC_STATE/hosts"
	echo "$out"
}

on() { # HOST CMD... : run CMD in HOST's namespace
	local h=${1:?usage: on HOST CMD...}
	shift
	_nc_env
	if [ ! -e "/run/netns/$_NC_P$h" ]; then
		_nc_err "unknown host '$h' (no namespace $_NC_P$h)"; return 1
	fi
	ip netns exec "$_NC_P$h" "$@"
}

# cluster_set_link HOST OPTS...  |  cluster_set_link SW1 SW2 OPTS...
cluster_set_link() {
	local a=${1:?usage: cluster_set_link HOST|SW1 SW2 OPTS...} b="" found="" new
	local id nsa deva nsb devb na nb old lines=() tmp line first rest
	shift
	_nc_env
	[ -r "$_NC_STATE/links" ] || { _nc_err "no cluster is up"; return 1; }
	if grep -q "^[0-9]* $a " "$_NC_STATE/switches"; then
		b=${1:-}; shift || true
	fi
	while read -r id nsa deva nsb devb na nb old; do
		if { [ -z "$b" ] && [ "$na" = "$a" ] && [ "${id:0:1}" = h ]; } ||
			{ [ -n "$b" ] && [ "${id:0:1}" = t ] &&
			{ [ "$na $nb" = "$a $b" ] || [ "$na $nb" = "$b $a" ]; }; }; then
			found=1; break
		fi
	done < "$_NC_STATE/links"
	if [ -z "$found" ]; then
		_nc_err "no link '$a${b:+ $b}' (want a host, or two linked switches)"; return 1
	fi
	if ! new=$(_nc_opts_merge "$old" "$@"); then
		_nc_err "set_link $a${b:+ $b}: $new"; return 1
	fi
	[ "$new" = "$old" ] && return 0
	case "$new $old" in *delay=*|*loss=*|*duplicate=*|*corrupt=*|*limit=*) _nc_modules sch_netem || return 1 ;; esac
	case "$new" in *rate=*) _nc_modules sch_tbf sch_prio || return 1 ;; esac
	mapfile -t lines < <(_nc_tc_lines "$deva" "$old" "$new")
	if [ ${#lines[@]} -gt 0 ]; then
		printf '%s\n' "${lines[@]}" | tc -n "$nsa" -batch - || { _nc_err "tc in $nsa failed"; return 1; }
	fi
	mapfile -t lines < <(_nc_tc_lines "$devb" "$old" "$new")
	if [ ${#lines[@]} -gt 0 ]; then
		printf '%s\n' "${lines[@]}" | tc -n "$nsb" -batch - || { _nc_err "tc in $nsb failed"; return 1; }
	fi
	tmp="$_NC_STATE/links.tmp"
	while read -r line; do
		read -r first rest <<< "$line"
		if [ "$first" = "$id" ]; then
			echo "$id $nsa $deva $nsb $devb $na $nb${new:+ $new}"
		else
			echo "$line"
		fi
	done < "$_NC_STATE/links" > "$tmp" && mv -f "$tmp" "$_NC_STATE/links"
}

cluster_link_opts() { # HOST | SW1 SW2 : print the cable's current options
	_nc_env
	[ -r "$_NC_STATE/links" ] || { _nc_err "no cluster is up"; return 1; }
	local id nsa deva nsb devb na nb old
	while read -r id nsa deva nsb devb na nb old; do
		if { [ $# -eq 1 ] && [ "${id:0:1}" = h ] && [ "$na" = "$1" ]; } ||
			{ [ $# -eq 2 ] && [ "${id:0:1}" = t ] &&
			{ [ "$na $nb" = "$1 $2" ] || [ "$na $nb" = "$2 $1" ]; }; }; then
			echo "$old"; return 0
		fi
	done < "$_NC_STATE/links"
	_nc_err "no link '$*'"; return 1
}

cluster_show() {
	_nc_env
	[ -r "$_NC_STATE/hosts" ] || { echo "no cluster is up"; return 0; }
	local r n s m i p id nsa deva nsb devb na nb o
	echo "# rank host switch mac ipv4 namespace"
	while read -r r n s m i p; do
		echo "$r $n $s $m $i $_NC_P$n"
	done < "$_NC_STATE/hosts"
	echo "# links: ends (namespace/dev) and options"
	while read -r id nsa deva nsb devb na nb o; do
		echo "$na-$nb $nsa/$deva $nsb/$devb ${o:-(none)}"
	done < "$_NC_STATE/links"
}

# --- command line ----------------------------------------------------------------
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	cmd=${1:-}
	shift || true
	case "$cmd" in
	up) cluster_up "$@" ;;
	down) cluster_down ;;
	check) cluster_check "$@" ;;
	star) cluster_star "$@" ;;
	two-switch) cluster_two_switch "$@" ;;
	gen-star) cluster_gen_star "$@" ;;
	gen-two-switch) cluster_gen_two_switch "$@" ;;
	show) cluster_show ;;
	hosts) cluster_hosts ;;
	switches) cluster_switches ;;
	members) cluster_members ;;
	count) cluster_count ;;
	mac|ns|ip|rank) "cluster_$cmd" "$@" ;;
	set-link) cluster_set_link "$@" ;;
	link-opts) cluster_link_opts "$@" ;;
	lldp-up) cluster_lldp_up ;;
	lldp-collect) cluster_lldp_collect "$@" ;;
	on|exec) on "$@" ;;
	*) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	exit $?
fi
