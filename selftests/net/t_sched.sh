#!/bin/bash
# Contention-free alltoall: every host computes the schedule from the same
# topology file and installs its slice; the kernel runs the phases with
# pairwise synchronisation.  Every byte verified, on several switch trees,
# under loss, and with a peer dying mid-schedule.
T_NAME=sched
source "$(dirname "$0")/lib.sh"
TOPO=$NC_TOP/selftests/net/topologies

nc_load || { t_fail "insmod"; t_done; exit 1; }

# install_all ID FILE : every host installs its slice of FILE's schedule.
install_all() {
	local h
	for h in $(cluster_hosts); do
		on "$h" "$NCTL" sched install id "$1" topo "$2" || return 1
	done
}

for topo in two-switch-8x2 figure1 chain3x4; do
	cluster_up "$TOPO/$topo.topo" >/dev/null || { t_fail "$topo: cluster up"; continue; }
	t_check "$topo: attach + comm add on $(cluster_count) hosts" nc_comm_up 1
	t_check "$topo: every host installs its slice" install_all 1 "$TOPO/$topo.topo"
	first=$(cluster_hosts | head -n 1)
	t_check "$topo: the slice is installed" nc_json "$first" 'd[0]["sched_phases"] > 0' comm show id 1
	t_check "$topo: scheduled alltoall, sizes 1..65537, verified" \
		nc_check_all sched --comm 1 --op alltoall --algo sched --bytes-list 1,1453,8192,65537
	t_check "$topo: scheduled alltoall 4 KiB x20" \
		nc_check_all sched_it --comm 1 --op alltoall --algo sched --bytes 4096 --iters 20
	for algo in linear pairwise ring; do
		t_check "$topo: $algo alltoall verified" \
			nc_check_all "$algo" --comm 1 --op alltoall --algo $algo --bytes-list 1,5000
	done
	cluster_down
done

# Loss on every host cable, then a member dies mid-schedule.
cluster_up "$TOPO/two-switch-8x2.topo" >/dev/null || { t_fail "cluster up"; t_done; exit 1; }
nc_comm_up 2 >/dev/null
install_all 2 "$TOPO/two-switch-8x2.topo"
for h in $(cluster_hosts); do cluster_set_link "$h" loss 2% >/dev/null; done
t_check "scheduled alltoall under 2% loss, verified" \
	nc_check_all lossy --comm 2 --op alltoall --algo sched --bytes-list 1453,65537 --timeout 20000
for h in $(cluster_hosts); do cluster_set_link "$h" loss off >/dev/null; done

pids=()
for h in $(cluster_hosts); do
	[ "$h" = h16 ] && continue
	on "$h" "$NC_CHECK" --comm 2 --rank "$(cluster_rank "$h")" --size 16 --op alltoall \
		--algo sched --bytes 16384 --iters 1000000 --timeout 3000 \
		--expect-error ETIMEDOUT >"$T_LOG/death.$h.log" 2>&1 &
	pids+=($!)
done
on h16 "$NC_CHECK" --comm 2 --rank 15 --size 16 --op alltoall --algo sched \
	--bytes 16384 --iters 1000000 >"$T_LOG/death.h16.log" 2>&1 &
victim=$!
sleep 4
ip netns pids nc-h16 | xargs -r kill -9
wait $victim 2>/dev/null
ok=1
for p in "${pids[@]}"; do wait "$p" || ok=0; done
[ $ok = 1 ] && t_ok "member killed mid-schedule: the 15 others got ETIMEDOUT" ||
	t_fail "member killed mid-schedule: not every other rank got ETIMEDOUT ($(grep -l FAIL "$T_LOG"/death.*.log | head -3))"

cluster_down
t_check "rmmod" nc_unload
t_done
