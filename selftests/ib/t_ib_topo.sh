#!/bin/bash
# The InfiniBand topology reader (userlib/topo_ib.c) against the real tools
# on simulated fabrics: ibsim runs a fabric described by mkfabric.py,
# OpenSM (-o, one sweep) assigns LIDs and routes it, ibnetdiscover and
# dump_fts capture it, and the model built from those dumps must match
# what the fabric is: the host, switch and cable counts, each host link's
# rate, and for every ordered pair of hosts the path, port by port, that
# ibtracert walks through the switches' forwarding tables.  Then the
# topology query service (netcoll-topod) on those dumps: 100 concurrent
# clients, malformed requests, its client limit and idle timeout, reloads.
# Then malformed dumps: each refused with FILE:LINE: reason.  No module, no VM; the
# simulator runs in a network namespace of its own (its sockets are
# abstract unix sockets), so two runs do not meet.
#
#   selftests/ib/t_ib_topo.sh [IB_MODEL]     (default build/selftests/ib/ib_model;
#        nctl: $NCTL, default build/nctl; the service: $TOPOD, default build/netcoll-topod)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
MODEL=${1:-$top/build/selftests/ib/ib_model}
NCTL=${NCTL:-$top/build/nctl}
TOPOD=${TOPOD:-$top/build/netcoll-topod}
# shellcheck source=../lib/tap.sh
source "$top/selftests/lib/tap.sh"
SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so

missing=""
for tool in ibsim opensm ibnetdiscover dump_fts ibtracert; do
	command -v "$tool" >/dev/null || missing+=" $tool"
done
[ -f "$SIM" ] || missing+=" libumad2sim0"
if [ -n "$missing" ]; then
	tap_skip "ib: topology from the real tools" "missing:$missing (make deps)"
	tap_done
	exit
fi
[ -x "$MODEL" ] || { echo "t_ib_topo: no $MODEL (make user)" >&2; exit 2; }
if [ "${NC_IB_NETNS:-0}" != 1 ] && [ "$EUID" = 0 ]; then
	NC_IB_NETNS=1 exec unshare --net "$0" "$@"
fi

work=$(mktemp -d)
sim_pid=
topod_pids=()
cleanup() {
	[ -z "$sim_pid" ] || kill "$sim_pid" 2>/dev/null
	[ ${#topod_pids[@]} -eq 0 ] || kill "${topod_pids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export OSM_TMP_DIR=$work OSM_CACHE_DIR=$work
under_sim() { LD_PRELOAD=$SIM "$@" 2>>"$work/tools.err"; }
# check NAME CMD...: one result, CMD's status (returned); $diag, if set,
# becomes the failure's diagnostics.
diag=
check() {
	local name=$1
	shift
	if "$@"; then
		tap_ok "$name"
	else
		tap_fail "$name" "$diag"
		diag=
		return 1
	fi
	diag=
}

# fabric NAME ROUTING MKFABRIC_ARGS...: simulate, route, capture into
# $work/NAME.{net,expect,nd,lfts,model}.
fabric() {
	local name=$1 routing=$2
	shift 2
	python3 "$top/selftests/ib/mkfabric.py" "$@" --expect "$work/$name.expect" \
		>"$work/$name.net" || return 1
	[ -z "$sim_pid" ] || { kill "$sim_pid"; wait "$sim_pid" 2>/dev/null; }
	ibsim -s "$work/$name.net" >"$work/$name.ibsim.log" 2>&1 &
	sim_pid=$!
	for _ in $(seq 50); do
		grep -q "Parsing" "$work/$name.ibsim.log" 2>/dev/null && break
		sleep 0.1
	done
	sleep 0.3
	under_sim opensm -o -R "$routing" >"$work/$name.osm.log" &&
		under_sim ibnetdiscover >"$work/$name.nd" &&
		under_sim dump_fts >"$work/$name.lfts" &&
		"$MODEL" "$work/$name.nd" "$work/$name.lfts" >"$work/$name.model"
}

# The host's LIDs from ibnetdiscover: "NAME LID" (NAME: the description's
# first word, as the reader names hosts).
host_lids() {
	awk '/^Ca/ { match($0, /# "[^"]*"/); d = substr($0, RSTART + 3, RLENGTH - 4)
		     split(d, w, " "); next }
	     d != "" && /^\[/ { match($0, /# lid [0-9]+/)
		     print w[1], substr($0, RSTART + 6, RLENGTH - 6); d = "" }' "$1"
}

# ibtracert's walk in the model's form: "A OUT>IN X OUT>IN ... B".
trace() {
	under_sim ibtracert "$1" "$2" | awk '
		/^From/ { match($0, /"[^"]*"/); n = substr($0, RSTART + 1, RLENGTH - 2)
			  split(n, w, " "); s = w[1] }
		/^\[/ { o = substr($1, 2, length($1) - 2)
			match($0, /\}\[[0-9]+\]/); i = substr($0, RSTART + 2, RLENGTH - 3)
			match($0, /"[^"]*"/); n = substr($0, RSTART + 1, RLENGTH - 2)
			split(n, w, " "); s = s " " o ">" i " " w[1] }
		END { print s }'
}

# check_fabric NAME: the model against the expectation and ibtracert.
check_fabric() {
	local name=$1 m=$work/$1.model e=$work/$1.expect
	local what n want got bad=0 pairs=0 a b la line
	for what in hosts switches links; do
		want=$(awk -v k="$what" '$1 == k { print $2 }' "$e")
		case $what in
		hosts) got=$(awk 'NR == 1 { print $2 }' "$m") ;;
		switches) got=$(awk 'NR == 1 { print $4 }' "$m") ;;
		links) got=$(awk 'NR == 1 { print $6 }' "$m") ;;
		esac
		check "ib: $name: $what $got (want $want)" [ "$got" = "$want" ]
	done
	# every host link's rate, from the width x speed ibnetdiscover printed
	n=$(awk 'FNR == NR && $1 == "rate" { want[$2] = $3; next }
		 FNR != NR && $1 == "link" && ($2 in want) {
			 if ($4 != want[$2]) print $2, $4, "want", want[$2]; seen++ }
		 END { if (seen != length(want)) print "seen", seen + 0 }' "$e" "$m")
	diag=$n
	check "ib: $name: each host link's rate as its width x speed says" [ -z "$n" ]
	# routed paths, port by port, against ibtracert
	declare -A lid=()
	while read -r a la; do lid[$a]=$la; done < <(host_lids "$work/$name.nd")
	while read -r line; do
		a=$(awk '{ print $2 }' <<<"$line")
		b=$(awk '{ print $3 }' <<<"$line"); b=${b%:}
		want=$(trace "${lid[$a]}" "${lid[$b]}")
		got=$(sed -E 's/^path [^ ]+ [^ ]+: //; s/ hops .*//' <<<"$line")
		pairs=$((pairs + 1))
		if [ "$got" != "$want" ]; then
			bad=$((bad + 1))
			[ $bad -gt 3 ] || diag+="$a -> $b: model '$got', ibtracert '$want'"$'\n'
		fi
	done < <(grep '^path ' "$m")
	check "ib: $name: $pairs routed paths, port by port, as ibtracert walks them ($bad differ)" \
		test "$pairs" -gt 0 -a "$bad" -eq 0
}

# two-level fat tree, 4 leaves of 4 hosts, 2 spines, 2 cables from each
# leaf to each spine; hosts alternate SDR and DDR (seed 003's mixed cluster)
if check "ib: two-level fat tree with trunks of 2 and mixed SDR/DDR hosts: simulated, routed (updn), captured" \
	fabric ft2 updn xgft 2 4,4 1,2 --cables 2 --speeds SDR,DDR --host-desc "n%02d HCA-1"; then
	check_fabric ft2
	# OpenSM spreads destinations over both cables of a trunk
	used=$(grep '^path ' "$work/ft2.model" |
		grep -oE 'sw1_0 [0-9]+>[0-9]+ sw2_0' | sort -u | wc -l)
	check "ib: ft2: paths from leaf sw1_0 to spine sw2_0 use both cables ($used)" \
		[ "$used" -eq 2 ]
	check "ib: ft2: the slowest link of n01 -> n02 is n01's SDR (8000 Mbit/s)" \
		grep -qE '^path n01 n02: .* slowest 8000$' "$work/ft2.model"
fi

# three-level XGFT(3; 2,2,2; 1,2,2): 8 hosts, many paths between leaves
if check "ib: three-level XGFT(3; 2,2,2; 1,2,2): simulated, routed (minhop), captured" \
	fabric xgft3 minhop xgft 3 2,2,2 1,2,2 --speeds QDR; then
	check_fabric xgft3
fi

# a single switch: the model is a star, a tree
if check "ib: one switch of 6 QDR hosts: simulated, routed, captured" \
	fabric star minhop xgft 1 6 1 --speeds QDR; then
	check_fabric star
	check "ib: star: the model is a tree" grep -q ' tree 1$' "$work/star.model"
	# nctl takes the dumps wherever it takes a topology
	out=$("$NCTL" sched show topo "ib:$work/star.nd,$work/star.lfts" 2>&1)
	diag=$out
	check "ib: nctl sched show topo ib:star.nd,star.lfts: 6 hosts, verified" \
		grep -qzE '^hosts 6 phases [0-9]+ .*verifier: ok' <<<"$out"
fi
if [ -f "$work/ft2.lfts" ]; then
	out=$("$NCTL" sched show topo "ib:$work/ft2.nd,$work/ft2.lfts" 2>&1)
	diag=$out
	check "ib: nctl sched show on the routed fat tree: aapc needs a switch tree" \
		grep -q 'aapc needs a switch tree' <<<"$out"
	out=$("$NCTL" tree plan topology "ib:$work/ft2.nd,$work/ft2.lfts" degree 4 2>&1)
	diag=$out
	check "ib: nctl tree plan on the routed fat tree: 16 ranks" \
		grep -q '^size 16 degree 4 trees 1$' <<<"$out"
fi

# --- the topology query service (netcoll-topod) ------------------------------
# ask ADDR LINE...: the service's answers to the lines, one connection
ask() {
	local addr=$1
	shift
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1][5:])
s.sendall("".join(l + "\n" for l in sys.argv[2:]).encode())
s.shutdown(socket.SHUT_WR)
sys.stdout.write(s.makefile().read())' "$addr" "$@"
}
# topod NAME ARGS...: start a service on unix:$work/NAME.sock
topod() {
	local name=$1
	shift
	"$TOPOD" --listen "unix:$work/$name.sock" "$@" 2>"$work/$name.topod.log" &
	topod_pids+=("$!")
	for _ in $(seq 50); do
		[ -S "$work/$name.sock" ] && return 0
		sleep 0.1
	done
	return 1
}
topod_pids=()
if [ -f "$work/ft2.lfts" ] && [ -x "$TOPOD" ]; then
	q=unix:$work/q.sock
	check "topod: serves the routed fat tree" topod q --clients 128 "ib:$work/ft2.nd,$work/ft2.lfts"
	out=$(python3 "$top/selftests/ib/topod_clients.py" "$q" "$work/ft2.model" 100 20 2>&1)
	diag=$out
	check "topod: 100 concurrent clients, 20 queries each, every answer the routed path: $out" \
		grep -q '^ok 100 clients, 2000 answers$' <<<"$out"
	out=$(ask "$q" "query n01:n16")
	want=$(awk '$1 == "path" && $2 == "n01" && $3 == "n16:"' "$work/ft2.model" |
		sed -E 's/^path [^ ]+ [^ ]+: /path /; s/ [0-9]+>[0-9]+//g; s/ slowest / slowest_mbit /; s/$/ delay_us 0 known 0/')
	diag="got '$out', want '$want'"
	check "topod: query n01:n16 as seed 003 asks it: $out" test "$out" = "$want"
	out=$("$NCTL" topo path from n01 to n16 service "$q" 2>&1)
	want=$("$NCTL" topo path from n01 to n16 topology "ib:$work/ft2.nd,$work/ft2.lfts" 2>&1)
	diag="service '$out', topology '$want'"
	check "topod: nctl topo path through the service = computed here" test "$out" = "$want"
	# seed 003's broadcast trees from the service's answers, pair by pair
	for args in "root 0 size 65536" "root 5 size 1048576 degree 4 hop-us 0.5"; do
		# shellcheck disable=SC2086 # the words of args
		out=$("$NCTL" tree bcast service "$q" $args 2>&1)
		# shellcheck disable=SC2086
		want=$("$NCTL" tree bcast topology "ib:$work/ft2.nd,$work/ft2.lfts" $args 2>&1)
		diag=$(diff <(echo "$want") <(echo "$out") | head -n 8)
		check "topod: nctl tree bcast $args through the service = computed here ($(grep -c . <<<"$out") lines, $(grep '^best' <<<"$out"))" \
			test "$out" = "$want"
	done
	# the service's model wherever a topology is named (topology
	# service:ADDR): node by node, link by link, and the routed paths
	fab="ib:$work/ft2.nd,$work/ft2.lfts"
	out=$("$NCTL" topo show topology "service:$q" 2>&1)
	want=$("$NCTL" topo show topology "$fab" 2>&1)
	diag=$(diff <(echo "$want") <(echo "$out") | head -n 8)
	check "topod: topology service:ADDR is the routed fat tree itself (nctl topo show, $(grep -c . <<<"$out") lines)" \
		test "$out" = "$want"
	paths_of() { # TOPOLOGY: the path of every ordered pair
		local a b
		for a in n01 n04 n09 n16; do
			for b in n01 n02 n08 n13 n16; do
				[ $a = $b ] || "$NCTL" topo path from $a to $b topology "$1" 2>&1
			done
		done
	}
	out=$(paths_of "service:$q")
	want=$(paths_of "$fab")
	diag=$(diff <(echo "$want") <(echo "$out") | head -n 8)
	check "topod: ... with the routes the subnet manager set ($(grep -c '^path' <<<"$out") paths)" \
		test "$out" = "$want" -a "$(grep -c '^path' <<<"$out")" = 18
	out=$("$NCTL" tree plan topology "service:$q" degree 4 2>&1)
	want=$("$NCTL" tree plan topology "$fab" degree 4 2>&1)
	diag=$(diff <(echo "$want") <(echo "$out") | head -n 8)
	check "topod: nctl tree plan on topology service:ADDR = on the dumps" \
		test "$out" = "$want"
	# alltoall schedules from a service: a tree with fat trunks (their
	# rates shape the schedule), the same phases as from the file
	ft=$top/selftests/net/topologies/two-level-ft.topo
	if topod tree "$ft"; then
		out=$("$NCTL" sched show topo "service:unix:$work/tree.sock" phases 2>&1 | grep -v computed)
		want=$("$NCTL" sched show topo "$ft" phases 2>&1 | grep -v computed)
		# what nctl said first (once, at 2026-11-29, one line instead of
		# the phases: not seen here, so shown in full next time)
		diag="nctl: $(head -n 3 <<<"$out"); service log: $(tail -n 3 "$work/tree.topod.log")
$(diff <(echo "$want") <(echo "$out") | head -n 8)"
		check "topod: nctl sched show on topology service:ADDR = on the file ($(grep -c '^phase' <<<"$out") phases, $(grep -c 'verifier: ok' <<<"$out") verified)" \
			test "$out" = "$want" -a "$(grep -c 'verifier: ok' <<<"$out")" = 1
	else
		check "topod: serves $ft" false
	fi
	out=$("$NCTL" sched show topo "service:unix:$work/nobody.sock" 2>&1)
	diag=$out
	check "topod: topology service:ADDR without a service: nctl says which and why" \
		grep -q "service unix:$work/nobody.sock: No such file or directory" <<<"$out"
	# a service whose answers do not hold together: refused, not believed
	fake() { # SCENARIO: a one-client service on $work/fake-SCENARIO.sock
		python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
ans = {"info": "info hosts 2 switches 1 links 2 generation 1",
       "node 0": "node h1 host level 0", "node 1": "node h2 host level 0",
       "node 2": "node s1 switch level 0", "shape": "shape 0",
       "link 0": "link h1 s1 rate_mbit 1000 delay_us 0 lanes 0 ports 0 0",
       "link 1": "link h2 s1 rate_mbit 1000 delay_us 0 lanes 0 ports 0 0"}
if sys.argv[2] == "badlink":
    ans["link 1"] = "link h2 nowhere rate_mbit 1000 delay_us 0 lanes 0 ports 0 0"
if sys.argv[2] == "hosts":	# says 0 hosts, 3 switches, then names hosts
    ans["info"] = "info hosts 0 switches 3 links 2 generation 1"
c, _ = s.accept(); f = c.makefile("rw")
for line in f:
    q = line.strip()
    if q == "quit": break
    if sys.argv[2] == "cut" and q.startswith("route "):
        f.write("route s1 0"); f.flush(); break	# no newline, then gone
    f.write(ans.get(q, "error malformed request") + "\n"); f.flush()
c.close()' "$work/fake-$1.sock" "$1" &
		for _ in $(seq 50); do [ -S "$work/fake-$1.sock" ] && return 0; sleep 0.1; done
		return 1
	}
	for sc in badlink hosts cut; do
		fake $sc
		out=$("$NCTL" topo show topology "service:unix:$work/fake-$sc.sock" 2>&1)
		diag=$out
		check "topod: a service that lies ($sc): Protocol error, no topology" \
			grep -q "service unix:$work/fake-$sc.sock: Protocol error" <<<"$out"
		wait $! 2>/dev/null
	done
	# a generated fat tree keeps its shape (levels, m, w) through the service
	if topod xgft xgft:2:4,4:1,2; then
		out=$("$NCTL" sched show topo "service:unix:$work/xgft.sock" kind lin phases 2>&1 | grep -v computed)
		want=$("$NCTL" sched show topo xgft:2:4,4:1,2 kind lin phases 2>&1 | grep -v computed)
		diag=$(diff <(echo "$want") <(echo "$out") | head -n 8)
		check "topod: xgft:2:4,4:1,2 through the service: the fat-tree kind lin, the spec's $(grep -c '^phase' <<<"$out") phases" \
			test "$out" = "$want" -a "$(grep -c '^phase' <<<"$out")" -gt 0
	else
		check "topod: serves xgft:2:4,4:1,2" false
	fi
	# a text topology's link delays reach a planner through the service
	printf '%s\n' "switch s0" "switch s1" "host h1 s0 rate 1gbit delay 10us" \
		"host h2 s0 rate 1gbit" "host h3 s1 rate 100mbit delay 20us" \
		"host h4 s1 rate 1gbit" "link s0 s1 rate 10gbit delay 100us" >"$work/delays.topo"
	if topod delays "$work/delays.topo"; then
		out=$("$NCTL" tree bcast service "unix:$work/delays.sock" size 1000 2>&1)
		want=$("$NCTL" tree bcast topology "$work/delays.topo" size 1000 2>&1)
		path=$(ask "unix:$work/delays.sock" "query h1:h3")
		diag="service '$out', file '$want', query '$path'"
		# h1 to h3: 10 + 100 + 20 us, and 1000 bytes at 100 Mbit/s, 80 us
		check "topod: link delays (query: $path): tree bcast through the service as from the file" \
			test "$out" = "$want" -a \
			"$path" = "path h1 s0 s1 h3 hops 3 slowest_mbit 100 delay_us 130 known 3" -a \
			"$(grep -c '^delay min 19.000 median [0-9.]* max 210.000 us$' <<<"$out")" = 1
	else
		check "topod: serves a text topology with link delays" false
	fi
	out=$("$NCTL" tree bcast service "$q" hosts n16,n01,n09,n05 2>&1)
	diag=$out
	check "topod: tree bcast for 4 of its hosts, in the job's order" \
		grep -q '^hosts 4 degree 2 root 0' <<<"$out"
	out=$("$NCTL" tree bcast service "$q" hosts n01,nobody 2>&1)
	diag=$out
	check "topod: tree bcast for an unknown host: the service's error" \
		grep -q "error unknown host 'nobody'" <<<"$out"
	out=$(ask "$q" "query n01" "query n01:n02:n03" "" "query nobody:n01" \
		"query n01:sw1_0" "hello" "node 99" "link 32" "node 1x" "route n01" "info")
	diag=$out
	check "topod: malformed requests and unknown hosts, nodes and links each get one error line, the connection stays" \
		test "$(grep -c '^error malformed request' <<<"$out")" = 5 -a \
		"$(grep -c '^error no node 99 (22 nodes)$' <<<"$out")" = 1 -a \
		"$(grep -c '^error no link 32 (32 links)$' <<<"$out")" = 1 -a \
		"$(grep -c "^error unknown switch 'n01'$" <<<"$out")" = 1 -a \
		"$(grep -c "^error unknown host 'nobody'" <<<"$out")" = 1 -a \
		"$(grep -c "^error unknown host 'sw1_0'" <<<"$out")" = 1 -a \
		"$(grep -c '^info hosts 16 switches 6 links 32 generation 1$' <<<"$out")" = 1
	out=$(ask "$q" "query $(printf 'x%.0s' $(seq 300)):n01" "info")
	diag=$out
	check "topod: a line over 255 bytes: an error, then the connection is closed" \
		test "$out" = "error line longer than 255 bytes"
	out=$("$NCTL" topo path from nobody to n01 service "$q" 2>&1)
	diag=$out
	check "topod: nctl names the service's error" grep -q "error unknown host 'nobody'" <<<"$out"

	# a limit on clients, and idle ones closed
	check "topod: a service for 4 clients, 1 s idle limit" \
		topod lim --clients 4 --idle 1 "ib:$work/ft2.nd,$work/ft2.lfts"
	out=$(python3 -c 'import socket, sys, time
held = []
for i in range(4):
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1][5:]); held.append(s)
time.sleep(0.2)
s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(sys.argv[1][5:])
print(s.makefile().readline().strip())
held[0].settimeout(10)
print("closed" if held[0].recv(100) == b"" else "open")' \
		"unix:$work/lim.sock" 2>&1)
	diag=$out
	check "topod: the 5th of 4 clients gets 'error busy', an idle one is closed" \
		test "$out" = $'error busy: 4 clients\nclosed'

	# reloads when the dumps change; a broken dump keeps the last good one
	cp "$work/ft2.nd" "$work/live.nd"
	cp "$work/ft2.lfts" "$work/live.lfts"
	check "topod: a service on files that will change (reload every 100 ms)" \
		topod live --reload-ms 100 "ib:$work/live.nd,$work/live.lfts"
	cp "$work/star.nd" "$work/live.nd.new" && mv "$work/live.nd.new" "$work/live.nd"
	cp "$work/star.lfts" "$work/live.lfts.new" && mv "$work/live.lfts.new" "$work/live.lfts"
	for _ in $(seq 50); do
		out=$(ask "unix:$work/live.sock" info)
		[[ $out == *"hosts 6 "* ]] && break
		sleep 0.1
	done
	diag=$out
	check "topod: the dumps replaced by the star's: reloaded ($out)" \
		grep -qE '^info hosts 6 switches 1 links 6 generation [2-9]' <<<"$out"
	gen=${out##* }
	echo "Switch 8 \"broken" >"$work/live.nd"
	sleep 1
	out=$(ask "unix:$work/live.sock" info "query h1:h2")
	diag="$out / $(tail -n 2 "$work/live.topod.log")"
	check "topod: a broken dump is refused (logged with FILE:LINE) and the last good model still answers" \
		test "$(head -n 1 <<<"$out")" = "info hosts 6 switches 1 links 6 generation $gen" -a \
		"$(sed -n 2p <<<"$out")" = "path h1 sw1_0 h2 hops 2 slowest_mbit 32000 delay_us 0 known 0" -a \
		"$(grep -c "live.nd:1: want a quoted node id" "$work/live.topod.log")" -gt 0
	kill "${topod_pids[@]}" 2>/dev/null
fi

# --- malformed dumps: FILE:LINE: reason ------------------------------------
# bad NAME EXPECTED_REGEX ND LFTS: ib_model refuses with that message
bad() {
	local out
	out=$("$MODEL" "$3" ${4:+"$4"} 2>&1)
	diag="got: $out"
	check "ib: refuses $1" grep -qE -- "$2" <<<"$out"
}
if [ -f "$work/ft2.nd" ]; then
	nd=$work/ft2.nd lf=$work/ft2.lfts
	ln=$(grep -n '^\[' "$nd" | head -n 1 | cut -d: -f1)
	sed "${ln}s/\"/'/" "$nd" >"$work/b1.nd"
	bad "a port line without its quotes" "b1.nd:$ln: bad port line" "$work/b1.nd"
	id=$(grep -m1 '^Ca' "$nd" | grep -oE '"[^"]+"' | head -n 1)
	awk -v id="$id" '$0 ~ "^Ca" && index($0, id) { skip = 1 } /^$/ { skip = 0 } !skip' \
		"$nd" >"$work/b2.nd"
	ln=$(grep -n -F "$id" "$work/b2.nd" | head -n 1 | cut -d: -f1)
	bad "a cable to a node without a record" "b2.nd:$ln: no record of node $id" "$work/b2.nd"
	ln=$(grep -n '^\[' "$nd" | sed -n 2p | cut -d: -f1)
	sed -E "${ln}s/\"\[([0-9]+)\]/\"[9\1]/" "$nd" >"$work/b3.nd"
	bad "ends that disagree on a cable" "b3.nd:$ln: .* (has no port|says it is)" "$work/b3.nd"
	printf 'Switch\t8 "S-1"\nbogus line\n' >"$work/b4.nd"
	bad "a line it cannot read" "b4.nd:2: cannot read 'bogus line'" "$work/b4.nd"
	: >"$work/b5.nd"
	bad "an empty dump" "b5.nd: no switch or CA records" "$work/b5.nd"
	sed -E '0,/guid 0x[0-9a-f]+/s//guid 0x00000000deadbeef/' "$lf" >"$work/b6.lfts"
	bad "a forwarding table of a switch not in the fabric" \
		"b6.lfts:1: switch guid 0x00000000deadbeef is not in the fabric" "$nd" "$work/b6.lfts"
	ln=$(grep -n '^0x' "$lf" | awk -F: '$2 ~ / 00[1-9] / { print $1; exit }')
	sed -E "${ln}s/ 00[1-9] / 099 /" "$lf" >"$work/b7.lfts"
	bad "a route out of a port without a cable" "b7.lfts:$ln: switch .* to port 99, which has no cable" \
		"$nd" "$work/b7.lfts"
	bad "a missing file" "nosuch.nd: No such file or directory" "$work/nosuch.nd"
	bad "a directory" "$work: Is a directory" "$work"
fi

tap_done
