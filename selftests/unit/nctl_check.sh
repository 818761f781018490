#!/bin/bash
# nctl without the module: the usage generated from its command and option
# tables, the errors of its option parser, and the offline shows (sched
# show, tree model, tree plan) in text and in JSON (valid, with their keys),
# and the planner's errors for topologies it cannot read or schedule.
# TAP lines (selftests/lib/tap.sh), then "N passed, N failed".  make unit
# and make check run it with the unit tests.
#
#   selftests/unit/nctl_check.sh [NCTL]      (default build/nctl)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
NCTL=${1:-$top/build/nctl}
[ -x "$NCTL" ] || { echo "nctl_check: no $NCTL (make user)" >&2; exit 2; }
# shellcheck source=../lib/tap.sh
source "$top/selftests/lib/tap.sh"
ok() { tap_ok "nctl: $1"; }
# fail NAME [DETAIL...] : the details become TAP diagnostics.
fail() { tap_fail "nctl: $1" "${@:2}"; }

# out STATUS PATTERN ARGS... : nctl ARGS exits STATUS, its output matches
# the extended regex PATTERN.
out() {
	local want=$1 pat=$2 got text
	shift 2
	text=$("$NCTL" "$@" 2>&1 </dev/null)
	got=$?
	if [ "$got" -eq "$want" ] && grep -qE -- "$pat" <<<"$text"; then
		ok "$* -> $want, /$pat/"
	else
		fail "$* -> $want, /$pat/" "exit $got, output: $(head -n 3 <<<"$text" | tr '\n' ' ')"
	fi
}

# json KEYS PYEXPR ARGS... : nctl -j ARGS prints one JSON value per line;
# the first has the comma-separated KEYS and PYEXPR holds on it (d).
json() {
	local keys=$1 expr=$2 text
	shift 2
	text=$("$NCTL" -j "$@" 2>/dev/null </dev/null)
	if python3 -c '
import json, sys
vals = [json.loads(l) for l in sys.argv[3].splitlines()]
d = vals[0]
missing = [k for k in sys.argv[1].split(",") if k and k not in d]
sys.exit("missing keys %s" % missing if missing else
         0 if eval(sys.argv[2]) else "false: " + sys.argv[2])' "$keys" "$expr" "$text"; then
		ok "-j $*: valid, keys"
	else
		fail "-j $*: valid, keys" "$(head -c 200 <<<"$text")"
	fi
}

# --- usage from the tables -------------------------------------------------
out 0 '^OBJECT := \{ dev \| comm \| sched \| tree \| stats \| monitor \| topo \}$' help
out 0 '^OPTIONS := \{ -j\[son\] \| -h\[elp\] \| -V\[ersion\] \}$' -h
out 2 'option "-Version" is unknown' -Version
out 0 '^nctl \(netcoll\) ' -v
out 2 '^Usage: nctl '
for obj in dev comm sched tree stats topo; do
	out 0 "^Usage: nctl $obj " "$obj" help
done
out 0 '^Usage: nctl monitor \[ -n COUNT \] \[ --timeout MS \]$' monitor help
out 0 '^       nctl dev show \[ dev IFNAME \]$' dev help
out 0 '^       nctl comm del id ID \[ rank RANK \]$' comm help
out 0 '^Usage: nctl sched show topology \{ FILE \| SPEC \} \[ kind KIND \] \[ phases \] \[ rank R \]$' sched help
out 0 '^       nctl tree model size P L R C \[ CONST \] \[ fmax F \]$' tree help
# objects and commands: the first prefix match in the order listed
out 0 '^Usage: nctl sched ' s h
out 0 '^Usage: nctl stats ' st h
out 0 '^Usage: nctl tree ' t
out 0 '^Usage: nctl topo ' to
out 2 'object "x" is unknown' x
out 2 'command "frob" of dev is unknown' dev frob

# --- the option parser ------------------------------------------------------
out 2 'sched show: unexpected argument "frob"' sched show topo star:4 frob
out 2 'sched show: "phases" is given twice' sched show topo star:4 phases phases
out 2 'comm add: "id" is given twice' comm add id 1 id 2
out 2 'tree plan: "t" is ambiguous \(trees, topology\)' tree plan size 8 degree 2 t 2
out 2 'comm add: "me" is ambiguous \(members, members-file, mem\)' comm add me x
out 2 'sched show: "topology" needs a value' sched show topo
out 2 'tree install: "model" needs L R C \[ CONST \]' tree install comm 1 model 1 2
out 2 'sched show needs topology \{ FILE \| SPEC \}' sched show kind aapc
out 2 'comm add needs id ID, dev IFNAME and rank RANK' comm add members 02:00:00:00:00:01
out 2 'comm add needs members' comm add id 1 dev eth0 rank 0
out 2 'tree model needs L R C \[ CONST \]' tree model size 8 1 2
out 2 'dev attach needs dev IFNAME' dev attach
out 2 'dev attach: unexpected argument "b"' dev attach a b
out 2 'comm del: unexpected argument "2"' comm del 1 2
out 2 'tree show needs comm ID' tree show index 1
out 2 'tree show: "comm" is given twice' tree show comm 1 id 2
out 2 'monitor: "-n" needs a value' monitor -n
# prefixes, the whole word before a longer one, values without keywords
out 0 '^best degree ' tree m s 64 12 0.5 0.1 f 4
out 0 '^best degree ' tree model 12 0.5 size 64 0.1
out 0 '^tree 0 root 0 depth 3$' tree plan size 8 degree 2 tr 1
out 2 'invalid mem "x"' comm add id 1 dev eth0 rank 0 members 02:00:00:00:00:01 mem x
out 2 'dev set: nothing to set' dev set eth0
out 2 'user-comms is on or off, not "maybe"' dev set eth0 user-comms maybe
out 2 'user-comms-max must be 1..256' dev set eth0 user-comms-max 0
out 2 'dev set needs dev IFNAME' dev set user-comms on
# bootstrap: what rank 0 hands out cannot be given; rank and size together
out 2 'members is not for bootstrap' comm add bootstrap h1:5000 members 02:00:00:00:00:01
out 2 'key is not for bootstrap' comm add bootstrap h1:5000 key /dev/null
out 2 'rank and size go together' comm add bootstrap h1:5000 rank 1
out 2 'size, wait and auth go with bootstrap' comm add id 1 dev eth0 rank 0 size 3
out 2 'invalid wait "soon"' comm add bootstrap h1:5000 wait soon

# --- offline shows, text ----------------------------------------------------
out 0 '^hosts 4 phases 3 computed in [0-9.]+ ms$' sched show topo star:4
out 0 '^verifier: ok$' sched show topo star:4
out 0 '^  syncs 8 \(12 before removing redundant ones\)$' sched show topo star:4
out 0 '^phase 2: 0->3 1->0 2->1 3->2$' sched show topo star:4 phases
out 0 '^phase 1: wait 3; send 0 recv 0; then token 1@2$' sched show topo star:4 rank 2
out 0 '^  level 1: max 4 messages per subtree and phase, B_min 3  \(above the bound\)$' \
	sched show topo ft:2:4,4 kind lin
out 0 '^  level 1: max 3 messages per subtree and phase, B_min 3$' \
	sched show topo ft:2:4,4 kind opt

# --- the planner's errors: exit 1, one line that says why -------------------
out 1 '^nctl: nosuch\.topo: No such file or directory$' sched show topo nosuch.topo
out 1 '^nctl: /: Is a directory$' sched show topo /
out 1 "^nctl: star:x: bad spec 'star:x'" sched show topo star:x
out 1 '^nctl: xgft:2:4,4:1,2: aapc needs a switch tree' sched show topo xgft:2:4,4:1,2
out 1 '^nctl: chain:2x4: opt, xor and lin need a fat tree' sched show topo chain:2x4 kind opt
out 1 '^nctl: ft:2:6,6: xor needs a power-of-two number of hosts$' \
	sched show topo ft:2:6,6 kind xor
out 1 '^nctl: nosuch\.topo: No such file or directory$' \
	tree plan topology nosuch.topo degree 2
# broadcast trees (seed 003): ranks 9..16 at a tenth of the rate, which
# rank order puts inside the tree
mixed=$(printf 'switch s0\n'; for i in $(seq 16); do
	printf 'host h%d s0 rate %s\n' "$i" "$( [ "$i" -le 8 ] && echo 10gbit || echo 1gbit)"; done)
out 0 '^dft      predicted +[0-9.]+ us  0\.3[0-9] of unaware$' \
	tree bcast topology <(echo "$mixed") size 1048576
out 0 '^best dft ' tree bcast topology <(echo "$mixed") size 1048576
out 0 '^unaware  predicted +[0-9.]+ us  1\.00 of unaware$' tree bcast topology star:8@1000
out 0 '^best unaware ' tree bcast topology star:8@1000
out 2 'root must be below 4' tree bcast topology star:4 root 4
# a per-message cost of 100 us: star:4 from root 0 in degree 2 sends
# twice on its critical path (0 -> 2 -> 3): 2 * (2 hops + 100)
out 0 '^unaware  predicted +204\.000 us  1\.00 of unaware$' \
	tree bcast topology star:4 msg-us 100 size 0
out 2 'invalid msg-us "-1"' tree bcast topology star:4 msg-us -1
json hosts,degree,root,size,hop_us,msg_us,delay_min_us,delay_median_us,delay_max_us,orders,best \
	'd["orders"][0]["ranks"] == [2, 3, 0, 1] and d["best"] == "unaware" and d["orders"][0]["predicted_us"] == 4.0' \
	tree bcast topology star:4 root 2
# topo: offline show and path (the service's side is selftests/ib/t_ib_topo.sh)
out 0 '^hosts 16 switches 5 links 20 tree true routed false$' topo show topology ft:2:4,4
out 0 '^rank 15 h16$' topo show topology ft:2:4,4
out 0 '^path h1 s1_0 s2_0 s1_3 h16 hops 4 slowest 1000 mbit$' \
	topo path from h1 to h16 topology ft:2:4,4@1000
out 1 '^nctl: no host s1_0$' topo path from h1 to s1_0 topology ft:2:4,4
out 2 'topo path needs topology TOPOLOGY or service ADDR' topo path from h1 to h2
out 1 'unix:/nonexistent: No such file or directory' topo path from h1 to h2 service unix:/nonexistent
out 0 '^    8       2     2     0       32.400  \*$' tree model size 64 12 0.5 0.1
out 0 '^P 64  L 12  r 0.5  c 0.1  C 0  \(us\)$' tree model size 64 12 0.5 0.1
out 0 '^size 16 degree 3 trees 2$' tree plan size 16 degree 3 trees 2
out 0 '^    8       6    root$' tree plan size 16 degree 3 trees 2

# --- offline shows, JSON ----------------------------------------------------
json hosts,phases,ok,why,pairs_missing,pairs_repeated,bottleneck_load,max_edge_load,contended_phases,syncs,syncs_unpruned,compute_ms,bound_ns_per_byte,levels \
	'd["hosts"] == 4 and d["ok"] is True and d["levels"] == []' sched show topo star:4 phases rank 2
json hosts,levels \
	'd["levels"] == [{"level": 1, "max": 4, "bmin": 3}]' \
	sched show topo ft:2:4,4 kind lin
json ok,why,levels 'd["ok"] is True and d["why"] == "" and d["levels"] == [{"level": 1, "max": 3, "bmin": 3}]' \
	sched show topo ft:2:4,4 kind opt
json size,L,r,c,C,fmax,best,degrees \
	'd["best"] == 8 and len(d["degrees"]) == 15 and d["degrees"][6] == {"f": 8, "phases": 2, "full_phases": 2, "last_children": 0, "t_us": 32.4}' \
	tree model size 64 12 0.5 0.1
json hosts,switches,links,tree,routed,ranks,links \
	'd["hosts"] == 4 and d["ranks"] == ["h1", "h2", "h3", "h4"] and d["links"][0] == {"a": "h1", "b": "s0", "rate_mbit": 100}' \
	topo show topology star:4@100
json nodes,hops,slowest_mbit 'd == {"nodes": ["h1", "s0", "h2"], "hops": 2, "slowest_mbit": 100}' \
	topo path from h1 to h2 topology star:4@100
json size,degree,trees \
	'd["trees"][1]["root"] == 8 and d["trees"][1]["parents"][8] == 8 and len(d["trees"][0]["parents"]) == 16 and set(d["trees"][0]) == {"index", "root", "depth", "parents"}' \
	tree plan size 16 degree 3 trees 2
# reduction trees aware of speed: ranks 8..15 ($mixed above) at a tenth
# of the rate are inner nodes in rank order; the tree puts them on leaves
mixed_file=$(mktemp)
trap 'rm -f "$mixed_file"' EXIT
echo "$mixed" >"$mixed_file"
json size,degree,trees \
	'd["trees"][0]["root"] == 0 and max(d["trees"][0]["parents"]) < 8' \
	tree plan topology "$mixed_file" degree 2
json size,degree,trees \
	'd["trees"][0]["parents"][9] == 8' tree plan topology star:16@1000 degree 2

tap_done
