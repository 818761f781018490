#!/bin/bash
# The netcoll demo, run in the test VM by `make demo`: an emulated cluster
# of 8 hosts behind one switch (100 Mbit/s links), a communicator across
# them, a byte-verified alltoall through the kernel module, and an
# OSU-style benchmark table.
T_NAME=demo
source "$(dirname "$0")/lib.sh"
set -e

say() { printf '\n== %s\n' "$*"; }

say "emulated cluster: selftests/net/topologies/star8.topo"
cat "$NC_TOP/selftests/net/topologies/star8.topo"
cluster_up "$NC_TOP/selftests/net/topologies/star8.topo" >/dev/null
nc_load

say "attach eth0 and create communicator 1 on every host (nctl)"
members=$(cluster_members)
r=0
for h in $(cluster_hosts); do
	on "$h" "$NCTL" dev attach dev eth0
	on "$h" "$NCTL" comm add id 1 dev eth0 rank $r members "$members" cookie 0xc0113c7
	r=$((r + 1))
done
on h1 "$NCTL" dev show
on h1 "$NCTL" comm show id 1

say "alltoall on 8 ranks, every received byte checked (nc_check)"
nc_check_all demo --comm 1 --op alltoall --bytes-list 1,1500,65536,1048576
cat "$T_LOG"/demo.h1.log

say "benchmark (ncbench, all 8 ranks at once; table printed by rank 0)"
n=$(cluster_count)
pids=()
r=0
for h in $(cluster_hosts); do
	if [ $r -eq 0 ]; then
		on "$h" "$NCBENCH" --comm 1 --rank 0 --op all --min 8 --max 262144 \
			--iters 20 --warmup 3 &
	else
		on "$h" "$NCBENCH" --comm 1 --rank $r --op all --min 8 --max 262144 \
			--iters 20 --warmup 3 >/dev/null &
	fi
	pids+=($!)
	r=$((r + 1))
done
for p in "${pids[@]}"; do wait "$p"; done

say "counters of h1 (nctl stats)"
on h1 "$NCTL" stats
nc_unload
cluster_down
say "demo done: $n hosts, alltoall verified byte for byte"
