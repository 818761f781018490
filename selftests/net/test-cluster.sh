#!/bin/bash
# test-cluster.sh - self-test of the emulated-cluster builder (cluster.sh).
# Needs root and a kernel with veth/bridge/tbf/netem: run it in the VM:
#   selftests/vm/run-vm.sh -- selftests/net/test-cluster.sh
# TAP lines through selftests/lib/tap.sh, then "N passed, N failed"; exits
# non-zero if any check failed.  make check runs it (run-all.sh).

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source-path=SCRIPTDIR source=cluster.sh
source "$HERE/cluster.sh"
TOPO="$HERE/topologies"

# shellcheck source=../lib/tap.sh
source "$HERE/../lib/tap.sh"
ok() { tap_ok "cluster: $*"; }
fail() { tap_fail "cluster: $*"; }
check() { # NAME CMD... : ok if CMD succeeds
	local name=$1
	shift
	if "$@"; then ok "$name"; else fail "$name"; fi
}
not() { ! "$@" 2>/dev/null; }  # expected failure (its message hidden)
ms_since() { echo $(( (${EPOCHREALTIME/./} - ${1/./}) / 1000 )); }

if command -v busybox >/dev/null; then PING=(busybox ping); else PING=(ping); fi

# all_pairs: every host pings every other host once; prints unreachable pairs.
# One process per source host, its pings run side by side.
all_pairs() {
	local h ips=() bad=""
	for h in $(cluster_hosts); do ips+=("$(cluster_ip "$h")"); done
	[ ${#ips[@]} -gt 1 ] || { echo " (no cluster)"; return; }
	for h in $(cluster_hosts); do
		# shellcheck disable=SC2016 # expanded by the inner shell
		bad+=$(on "$h" bash -c '
			self=$1; shift
			pids=(); dst=()
			for ip in "$@"; do
				[ "$ip" = "$self" ] && continue
				'"${PING[*]}"' -c 1 -W 3 "$ip" >/dev/null 2>&1 &
				pids+=($!); dst+=("$ip")
			done
			for i in "${!pids[@]}"; do
				wait "${pids[$i]}" || printf " %s->%s" "$self" "${dst[$i]}"
			done' _ "$(cluster_ip "$h")" "${ips[@]}")
	done
	echo "$bad"
}

ping_ok() { # SRC DST_HOST : one ping, 2 tries
	on "$1" "${PING[@]}" -c 2 -W 2 "$(cluster_ip "$2")" >/dev/null 2>&1
}

# ---------------------------------------------------------------------------
# Parser checks (no root needed)
# ---------------------------------------------------------------------------
bad_topo() { # NAME EXPECTED_MESSAGE_REGEX TEXT
	local out
	out=$(cluster_check - 2>&1 <<< "$3")
	local rc=$?
	if [ $rc -ne 0 ] && [[ "$out" =~ $2 ]]; then ok "rejects $1"; else
		fail "rejects $1 (rc $rc, got: $out)"; fi
}
bad_topo "unknown switch" '<stdin>:2: unknown switch .s9.' $'switch s0\nhost h1 s9'
bad_topo "duplicate name" '<stdin>:3: duplicate name .h1.' $'switch s0\nhost h1 s0\nhost h1 s0'
bad_topo "host named like a switch" '<stdin>:2: duplicate name .s0.' $'switch s0\nhost s0 s0'
bad_topo "bad rate" '<stdin>:3: bad rate' $'# c\nswitch s0\nhost h1 s0 rate fast'
bad_topo "unknown option" '<stdin>:2: unknown option .speed.' $'switch s0\nhost h1 s0 speed 1'
bad_topo "loss over 100%" '<stdin>:2: bad loss' $'switch s0\nhost h1 s0 loss 101%'
bad_topo "reorder without delay" '<stdin>:2: reorder needs delay' $'switch s0\nhost h1 s0 reorder 5%'
bad_topo "unknown statement" '<stdin>:1: unknown statement' $'router r0\nswitch s0\nhost h1 s0'
bad_topo "reserved name fabric" '<stdin>:2: name .fabric. is reserved' $'switch s0\nhost fabric s0'
bad_topo "link to unknown switch" '<stdin>:3: unknown switch .s1.' $'switch s0\nhost h1 s0\nlink s0 s1'
bad_topo "a carriage return inside a name" "<stdin>:1: bad name 's"$'\r'"0'" $'switch s\r0'
crlf_same() { # a CRLF file reads as its LF form (the planner reads both)
	[ "$(cluster_check - <<< $'switch s0\r\nhost h1 s0 # c\r\nhost h2 s0\r' 2>&1)" = \
	  "$(cluster_check - <<< $'switch s0\nhost h1 s0 # c\nhost h2 s0' 2>&1)" ]
}
check "a CRLF topology file reads as its LF form" crlf_same
for f in "$TOPO"/*.topo; do
	check "topology file $(basename "$f") parses" cluster_check "$f"
done

if [ "$EUID" != 0 ] || { [ "${NC_VM:-0}" != 1 ] && [ "${NC_CLUSTER_ON_HOST:-0}" != 1 ]; }; then
	# outside the VM only with NC_CLUSTER_ON_HOST=1 (it creates namespaces)
	tap_skip "cluster: network checks" "not root in the VM (run: selftests/vm/run-vm.sh -- $0)"
	tap_done
	exit
fi
trap 'cluster_down >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------
# Star of 8 hosts (generator)
# ---------------------------------------------------------------------------
t0=$EPOCHREALTIME
if cluster_star 8; then
	ok "star8 up ($(ms_since "$t0") ms)"
else
	fail "star8 up"
fi
check "star8 host names h1..h8" [ "$(cluster_hosts | tr '\n' ' ')" = "h1 h2 h3 h4 h5 h6 h7 h8 " ]
exp=$(for i in 1 2 3 4 5 6 7 8; do printf '02:00:00:00:00:%02x,' "$i"; done)
check "cluster_members lists MACs in rank order" [ "$(cluster_members)," = "$exp" ]
check "cluster_mac/ip/rank/ns of h3" [ "$(cluster_mac h3) $(cluster_ip h3) $(cluster_rank h3) $(cluster_ns h3)" = \
	"02:00:00:00:00:03 10.77.0.3 2 nc-h3" ]
check "h5 eth0 carries its MAC" [ "$(on h5 cat /sys/class/net/eth0/address)" = 02:00:00:00:00:05 ]
brinfo=$(ip -d -n nc-fabric link show sw0)
check "bridge: stp off, forward_delay 0, multicast snooping off" \
	grep -q 'forward_delay 0 .*stp_state 0 .*mcast_snooping 0' <<< "$brinfo"
no_ipv6() {
	local h
	for h in $(cluster_hosts); do
		[ -z "$(ip -n "$(cluster_ns "$h")" -6 addr show dev eth0)" ] || return 1
	done
	[ -z "$(ip -n nc-fabric -6 addr show)" ]
}
check "no IPv6 address on any host eth0 or fabric interface" no_ipv6
t0=$EPOCHREALTIME
bad=$(all_pairs)
if [ -z "$bad" ]; then ok "star8: all 56 pairs ping ($(ms_since "$t0") ms)"; else
	fail "star8: unreachable:$bad"; fi
check "h1's ARP entry for h6 is h6's MAC" \
	grep -q "lladdr 02:00:00:00:00:06" <<< "$(ip -n nc-h1 neigh show 10.77.0.6)"

# multicast is flooded: ping the all-hosts group, count distinct responders
for h in $(cluster_hosts); do
	on "$h" sh -c 'echo 0 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts'
done
resp=$(on h1 "${PING[@]}" -c 2 -W 3 -I eth0 224.0.0.1 2>/dev/null |
	grep -o 'from 10\.77\.[0-9.]*' | sort -u | grep -vc 'from 10.77.0.1$')
check "multicast to 224.0.0.1 reaches all 7 other hosts (got $resp)" [ "$resp" = 7 ]

# netem loss on, off
cluster_set_link h2 loss 100%
check "set_link h2 loss 100%: netem on both cable ends" \
	grep -q 'netem.*loss 100%' <<< "$(tc -n nc-h2 qdisc show dev eth0; tc -n nc-fabric qdisc show dev hp2)"
check "loss 100%: h1 cannot reach h2" not ping_ok h1 h2
check "loss 100%: h1 still reaches h3" ping_ok h1 h3
cluster_set_link h2 loss off
check "loss off: qdiscs removed" [ -z "$(tc -n nc-h2 qdisc show dev eth0 | grep -v noqueue)" ]
check "loss off: h1 reaches h2 again" ping_ok h1 h2

# delay: RTT through a 50 ms (each direction) cable
cluster_set_link h3 delay 50ms
rtt=$(on h1 "${PING[@]}" -c 2 -W 3 10.77.0.3 2>/dev/null | sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' | tail -n 1)
check "delay 50ms: RTT h1->h3 >= 100 ms (got ${rtt:-none} ms)" \
	awk -v r="${rtt:-0}" 'BEGIN { exit !(r >= 100 && r < 1000) }'
# rate + netem together, then clear
cluster_set_link h3 rate 10mbit loss 1%
netem_over_tbf() {
	local q
	q=$(tc -n nc-h3 qdisc show dev eth0)
	grep -q "netem 1: root.*delay 50ms.*loss 1%" <<< "$q" &&
		grep -q "tbf 10: parent 1:1 rate 10Mbit" <<< "$q"
}
check "rate+delay+loss: netem root with tbf child" netem_over_tbf
check "link options remembered" [ "$(cluster_link_opts h3)" = "rate=10mbit delay=50ms loss=1%" ]
cluster_set_link h3 delay off loss off
tbf_only() {
	local q
	q=$(tc -n nc-fabric qdisc show dev hp3)
	grep -q "tbf 1: root.*rate 10Mbit" <<< "$q" && ! grep -q netem <<< "$q"
}
check "netem removed, tbf root stays" tbf_only
cluster_set_link h3 clear
check "clear: no qdisc left" [ -z "$(tc -n nc-fabric qdisc show dev hp3 | grep -v noqueue)" ]
check "set_link rejects jitter without delay" not cluster_set_link h3 jitter 5ms
check "set_link rejects an unknown host" not cluster_set_link h99 loss 1%

check "cluster_down" cluster_down
check "cluster_down leaves no namespace" [ -z "$(ip netns list | grep '^nc-')" ]
check "cluster_down again (idempotent)" cluster_down

# ---------------------------------------------------------------------------
# Two switches from a file, via the command line
# ---------------------------------------------------------------------------
t0=$EPOCHREALTIME
check "cluster.sh up two-switch.topo (command line)" "$HERE/cluster.sh" up "$TOPO/two-switch.topo"
up_ms=$(ms_since "$t0")
check "state shared with this shell: 8 hosts ($up_ms ms)" [ "$(cluster_count)" = 8 ]
check "two-switch: no IPv6 addresses" no_ipv6
check "h5 is on s1" [ "$(ip -n nc-fabric -o link show hp5 | grep -o 'master sw[0-9]*')" = "master sw1" ]
t0=$EPOCHREALTIME
bad=$(all_pairs)
if [ -z "$bad" ]; then ok "two-switch: all 56 pairs ping ($(ms_since "$t0") ms)"; else
	fail "two-switch: unreachable:$bad"; fi
cluster_set_link s0 s1 loss 100%
check "inter-switch link loss 100%: h1 cannot reach h5" not ping_ok h1 h5
check "inter-switch link loss 100%: h1 still reaches h4" ping_ok h1 h4
cluster_set_link s1 s0 loss off
check "inter-switch link restored: h1 reaches h8" ping_ok h1 h8
check "cluster.sh down (command line)" "$HERE/cluster.sh" down
check "no namespace left" [ -z "$(ip netns list | grep '^nc-')" ]

# ---------------------------------------------------------------------------
# 16 hosts (2 x 8): bring-up time
# ---------------------------------------------------------------------------
t0=$EPOCHREALTIME
cluster_up "$TOPO/two-switch-8x2.topo"
rc=$?
ms=$(ms_since "$t0")
check "two-switch-8x2 up: 16 hosts in $ms ms (limit 10000)" [ "$rc.$((ms < 10000))" = 0.1 ]
check "h16 has MAC 02:00:00:00:00:10" [ "$(on h16 cat /sys/class/net/eth0/address)" = 02:00:00:00:00:10 ]
check "h1 reaches h16 across the trunk" ping_ok h1 h16
t0=$EPOCHREALTIME
cluster_down
check "16 hosts down ($(ms_since "$t0") ms), no namespace left" [ -z "$(ip netns list | grep '^nc-')" ]

tap_done
