#!/bin/bash
# Contention-free alltoall: every host computes the schedule from the same
# topology file and installs its slice; the kernel runs the phases with
# pairwise synchronisation.  Every byte verified, on several switch trees,
# under loss, and with a peer dying mid-schedule.
T_NAME=sched
source "$(dirname "$0")/lib.sh"
TOPO=$NC_TOP/selftests/net/topologies

nc_load || { t_fail "insmod"; t_done; exit 1; }

# install_all ID FILE [KIND] : every host installs its slice of FILE's
# schedule (Faraj-Yuan, or a fat-tree KIND).
install_all() {
	local h
	for h in $(cluster_hosts); do
		on "$h" "$NCTL" sched install id "$1" topology "$2" ${3:+kind "$3"} || return 1
	done
}

# control_first HOST : the acks and synchronisation tokens HOST sent (frames
# without payload, TC_PRIO_CONTROL) went through the first band of its
# cable's prio queue, its data through the second.
control_first() {
	tc -n "$(cluster_ns "$1")" -s -j qdisc show dev eth0 | python3 -c '
import json, sys
q = {d["handle"]: d for d in json.load(sys.stdin)}
ctl, data = q["21:"], q["22:"]
print("control %d frames %d bytes, data %d frames %d bytes" % (
    ctl["packets"], ctl["bytes"], data["packets"], data["bytes"]))
# Ethernet + netcoll header only, against full data fragments.
sys.exit(not (ctl["packets"] and ctl["bytes"] <= 80 * ctl["packets"] and
              data["bytes"] > 1000 * data["packets"]))'
}

# The benchmark's topologies (one switch, two switches, a chain, a fat
# tree) and the paper's Figure 1.
cluster_gen_star 16 rate 100mbit >"$T_LOG/star16.topo"
for file in "$T_LOG/star16.topo" "$TOPO/two-switch-8x2.topo" "$TOPO/figure1.topo" \
	    "$TOPO/chain3x4.topo" "$TOPO/two-level-ft.topo"; do
	topo=$(basename "$file" .topo)
	cluster_up "$file" >/dev/null || { t_fail "$topo: cluster up"; continue; }
	t_check "$topo: attach + comm add on $(cluster_count) hosts" nc_comm_up 1
	t_check "$topo: every host installs its slice" install_all 1 "$file"
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
	t_check "$topo: acks and tokens in the control band, data behind" control_first "$first"
	if [ "$topo" = two-level-ft ]; then
		for kind in opt xor lin; do
			t_check "$topo: Prisacari's $kind installed" install_all 1 "$file" "$kind"
			# the fat links' lanes give the fat-tree exchanges tokens too
			t_check "$topo: $kind slice sends tokens" \
				nc_json "$first" 'd[0]["sched_syncs"] > 0' comm show id 1
			t_check "$topo: $kind alltoall, sizes 1..65537, verified" \
				nc_check_all "$kind" --comm 1 --op alltoall --algo sched \
				--bytes-list 1,1453,65537
		done
	fi
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
	t_fail "member killed mid-schedule: not every other rank got ETIMEDOUT ($(grep -l "^not ok" "$T_LOG"/death.*.log | head -3))"

cluster_down
t_check "rmmod" nc_unload
t_done
