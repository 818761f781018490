#!/bin/bash
# Topology detection on Ethernet: lldpd runs on every host and switch of
# the emulated cluster (cluster_lldp_up), and `nctl topo discover` turns
# what they learnt into a topology file.  For every file in topologies/
# the discovered one must be the same network: the same switches, every
# host on the same switch at the same rank, the same switch-to-switch
# cables.  Rates: the emulated cables are veth pairs, which report 10
# Gbit/s to ethtool (so lldpd's MAU type says 10GbaseT) whatever rate tc
# shapes them to; the discovered rate must be exactly that.
T_NAME=topo
source "$(dirname "$0")/lib.sh"
TOPO=$NC_TOP/selftests/net/topologies

if ! command -v lldpd > /dev/null; then
	t_skip "LLDP discovery" "lldpd is not installed (scripts/install-deps.sh)"
	t_done; exit 0
fi

# structure FILE: the network of a topology file, one canonical line each
# (the rank order of hosts kept; link ends and link lines sorted).
structure() {
	awk '$1 == "switch" { print "switch", $2 }
	     $1 == "host" { print "host", n++, $2, $3 }
	     $1 == "link" { print "link", ($2 < $3 ? $2 " " $3 : $3 " " $2) }' "$1" |
		sort
}

# rates FILE: the distinct rates of its cables
rates() {
	awk '$1 == "host" || $1 == "link" {
		for (i = 4; i < NF; i++) if ($i == "rate") print $(i + 1) }' "$1" | sort -u
}

for file in "$TOPO"/*.topo; do
	name=$(basename "$file" .topo)
	dir=$T_LOG/lldp-$name
	rm -rf "$dir"
	cluster_up "$file" || { t_fail "$name: cluster up"; continue; }
	if ! cluster_lldp_up || ! cluster_lldp_collect "$dir" 90; then
		t_fail "$name: LLDP agents learnt every cable"
		continue
	fi
	if "$NCTL" topo discover "$dir" > "$T_LOG/$name.found" 2> "$T_LOG/$name.err"; then
		t_ok "$name: nctl topo discover read $(ls "$dir" | wc -l) nodes' LLDP data"
	else
		t_fail "$name: nctl topo discover: $(head -c 300 "$T_LOG/$name.err")"
		continue
	fi
	if diff <(structure "$file") <(structure "$T_LOG/$name.found") > "$T_LOG/$name.diff"; then
		t_ok "$name: discovered network = the file's ($(grep -c '^host' "$file") hosts, $(grep -c '^switch' "$file") switches, same ranks and cables)"
	else
		t_fail "$name: discovered network differs: $(head -c 300 "$T_LOG/$name.diff" | tr '\n' ' ')"
	fi
	got=$(rates "$T_LOG/$name.found" | paste -sd' ')
	if [ "$got" = 10gbit ]; then
		t_ok "$name: every cable's rate from LLDP's MAU type: 10gbit (veth)"
	else
		t_fail "$name: rates from LLDP: '$got', want 10gbit"
	fi
done

# The rest of the tools take the LLDP view wherever they take a topology.
dir=$T_LOG/lldp-two-switch-8x2
if [ -d "$dir" ]; then
	path=$("$NCTL" topo path from h1 to h16 topology "lldp:$dir")
	if [ "$path" = "path h1 s0 s1 h16 hops 3 slowest 10000 mbit" ]; then
		t_ok "topo path on lldp:DIR: $path"
	else
		t_fail "topo path on lldp:DIR: '$path'"
	fi
	# a switch's data missing: its hosts' listings still name it, and
	# the other switch's its cable: the same network
	mkdir -p "$T_LOG/no-s1" "$T_LOG/hosts-only"
	cp "$dir"/h*.json "$dir/s0.json" "$T_LOG/no-s1/"
	if "$NCTL" topo discover "$T_LOG/no-s1" > "$T_LOG/no-s1.found" 2>&1 &&
	   diff -q <(structure "$TOPO/two-switch-8x2.topo") <(structure "$T_LOG/no-s1.found"); then
		t_ok "two-switch-8x2 without s1's data: the same network"
	else
		t_fail "two-switch-8x2 without s1's data: $(head -c 200 "$T_LOG/no-s1.found")"
	fi
	# the hosts' data only: no cable between the switches is known
	cp "$dir"/h*.json "$T_LOG/hosts-only/"
	t_expect_fail "two-switch-8x2 from the hosts' data only: an error, not a wrong network" \
		"not connected" "$NCTL" topo discover "$T_LOG/hosts-only"
fi

cluster_down
# the agents are gone with the data collected (and with cluster_down)
t_check "no lldpd left running" bash -c '! pgrep -x lldpd'
t_done
