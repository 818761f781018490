#!/bin/bash
# Failures end operations with a clear error, never a hang, and leave
# nothing behind: a peer dying mid-operation, a signal, the communicator
# deleted or the device going down under a running operation, rmmod while
# busy.  Also the endpoint's error contract (ep_errors).
T_NAME=faults
source "$(dirname "$0")/lib.sh"

cluster_star 8 >/dev/null || { t_fail "cluster up"; t_done; exit 1; }
nc_load || { t_fail "insmod"; t_done; exit 1; }
t_check "attach + comm add on 8 hosts" nc_comm_up 3
for h in $(cluster_hosts); do
	on "$h" "$NCTL" comm add id 4 dev eth0 rank "$(cluster_rank "$h")" \
		members "$(cluster_members)" timeout 20000 || t_fail "comm 4 on $h"
done

on h1 "$NCTL" comm add id 6 dev eth0 rank 0 members "$(cluster_members)"
on h1 "$EP_ERRORS" -c 6 -r 0 -a 77 -p 8 -m "$(on h1 cat /sys/class/net/eth0/mtu)" >"$T_LOG/ep_errors.log" 2>&1
t_tally <"$T_LOG/ep_errors.log"
# The MTU an endpoint reports is the device's now (the library's split
# asks for it when an operation starts, as the kernel cuts it then).
mtu_now() {
	local old rc=0
	old=$(on h1 cat /sys/class/net/eth0/mtu)
	on h1 ip link set eth0 mtu 4000 &&
		on h1 "$EP_ERRORS" -c 6 -r 0 -a 77 -p 8 -m 4000 >"$T_LOG/ep_errors_4000.log" 2>&1 ||
		rc=1
	on h1 ip link set eth0 mtu "$old" || rc=1
	return $rc
}
t_check "an endpoint reports its device's MTU after a change (4000)" mtu_now
on h1 "$NCTL" comm del id 6

# --- rank 0 never answers the join: one event, however often it is tried ----
# A caller may retry with a 1 ms budget; each try was an event multicast
# to every listener of the namespace.
on h2 "$NCTL" comm add id 13 dev eth0 rank 1 members "$(cluster_mac h1),$(cluster_mac h2)"
on h2 "$NCTL" monitor -n 5 --timeout 6000 >"$T_LOG/monitor-join.log" 2>&1 &
mon=$!
sleep 1
joins_timed_out() {
	local i
	for i in 1 2 3 4 5; do
		on h2 "$NC_CHECK" --comm 13 --rank 1 --size 2 --op barrier \
			--timeout 20 --expect-error ETIMEDOUT || return 1
	done
}
t_check "rank 0 silent: 5 barriers of 20 ms each get ETIMEDOUT" joins_timed_out
wait $mon
t_check "... and post one op-failed event, not five" \
	test "$(grep -c 'op-failed comm 13 ' "$T_LOG/monitor-join.log")" = 1
on h2 "$NCTL" comm del id 13

# --- a peer dies mid-operation: the others fail with ETIMEDOUT -------------
on h1 "$NCTL" monitor -n 1 --timeout 30000 >"$T_LOG/monitor.log" 2>&1 &
mon=$!
pids=()
for h in h1 h2 h3 h4 h5 h6 h7; do
	on "$h" "$NC_CHECK" --comm 3 --rank "$(cluster_rank "$h")" --size 8 \
		--op alltoall --bytes 65536 --iters 1000000 --timeout 3000 \
		--expect-error ETIMEDOUT >"$T_LOG/death.$h.log" 2>&1 &
	pids+=($!)
done
on h8 "$NC_CHECK" --comm 3 --rank 7 --size 8 --op alltoall --bytes 65536 \
	--iters 1000000 >"$T_LOG/death.h8.log" 2>&1 &
victim=$!
sleep 4
# `on` runs in a subshell: kill the process inside the namespace itself.
ip netns pids nc-h8 | xargs -r kill -9
wait $victim 2>/dev/null
ip netns del nc-h8
killed=$(date +%s%N)
ok=1
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || { ok=0; echo "h$((i + 1)): $(tail -n 1 "$T_LOG/death.h$((i + 1)).log")"; }
done
elapsed=$((($(date +%s%N) - killed) / 1000000))
[ $ok = 1 ] && t_ok "peer killed mid-alltoall: 7 others got ETIMEDOUT, last after ${elapsed} ms" ||
	t_fail "peer killed mid-alltoall: not every other rank got ETIMEDOUT"
[ $elapsed -lt 10000 ] && t_ok "failure reported within the 3 s budget (+ slack): ${elapsed} ms" ||
	t_fail "failure took ${elapsed} ms for a 3000 ms budget"
wait $mon
t_check "op-failed event with ETIMEDOUT on the events group" \
	grep -q "op-failed comm 3 .*ETIMEDOUT" "$T_LOG/monitor.log"

# --- a signal cancels a blocked operation with EINTR ----------------------
t_check "signal during a barrier nobody else joins: EINTR" \
	on h1 "$NC_CHECK" --comm 4 --rank 0 --size 8 --op barrier --timeout 20000 \
	--interrupt-after 500 --expect-error EINTR
t_check "after EINTR the endpoint is released and the op sequence moved on" \
	nc_json h1 'd[0]["bound"] == False and d[0]["agg_seq"] == 1' comm show id 4
# Closing the file cancelled the barrier it had started: ranks may now
# disagree on which operation is which, so the communicator is broken.
t_check "the close cancelled the barrier: comm 4 is broken on h1 (ops_cancelled)" \
	nc_json h1 'd[0]["state"] == "broken"' comm show id 4
t_check "... its next operation fails at once with ENOTRECOVERABLE" \
	on h1 "$NC_CHECK" --comm 4 --rank 0 --size 8 --op barrier --timeout 20000 \
	--expect-error ENOTRECOVERABLE

# An alltoall that failed on one rank never tells its peers that their
# data arrived.  h1 (rank 0 of 2) sends all of its 64 KiB to h2, which
# has not posted (held and acked there), and is interrupted while it
# waits for h2's part.  Then h2 posts: it has h1's part, and h1 answered
# its data with "all received" -- data h1's process never got -- so h2
# succeeded while h1 failed.  Now h1 does not answer, and h2 times out.
failed_no_ack() {
	nc_comm_on 10 h1 h2 || return 1
	on h1 "$NC_CHECK" --comm 10 --rank 0 --size 2 --op alltoall --bytes 65536 \
		--timeout 20000 --interrupt-after 1000 --expect-error EINTR &&
	on h2 "$NC_CHECK" --comm 10 --rank 1 --size 2 --op alltoall --bytes 65536 \
		--timeout 2000 --expect-error ETIMEDOUT
}
t_check "an alltoall interrupted on rank 0 after it sent everything: rank 1 times out, not told its data arrived" \
	failed_no_ack
on h1 "$NCTL" comm del id 10
on h2 "$NCTL" comm del id 10

# --- the communicator is deleted under a running operation: ESHUTDOWN -----
on h1 "$NCTL" comm add id 9 dev eth0 rank 0 members "$(cluster_members)"
on h1 "$NC_CHECK" --comm 9 --rank 0 --size 8 --op barrier --timeout 20000 \
	--expect-error ESHUTDOWN >"$T_LOG/shutdown.log" 2>&1 &
p=$!
nc_wait_bound h1 9 && sleep 0.2
on h1 "$NCTL" comm del id 9
t_check "comm deleted mid-operation: ESHUTDOWN" wait $p
on h1 "$NCTL" comm del id 4

# --- the device goes down under a running operation: ENETDOWN ------------
on h2 "$NCTL" monitor -n 2 --timeout 20000 >"$T_LOG/monitor2.log" 2>&1 &
mon=$!
on h2 "$NC_CHECK" --comm 4 --rank 1 --size 8 --op barrier --timeout 20000 \
	--expect-error ENETDOWN >"$T_LOG/netdown.log" 2>&1 &
p=$!
nc_wait_bound h2 4 && sleep 0.2
on h2 ip link set eth0 down
t_check "device down mid-operation: ENETDOWN" wait $p
wait $mon
t_check "op-failed ENETDOWN and dev-detached events" grep -q "dev-detached dev eth0" "$T_LOG/monitor2.log"
t_check "device down detached it" nc_json h2 'd == []' dev show
t_expect_fail "an op on a communicator whose device is gone: ENETDOWN" "ENETDOWN|Network is down" \
	on h2 "$NC_CHECK" --comm 3 --rank 1 --size 8 --op barrier --timeout 1000

# --- rmmod while an endpoint is open fails cleanly; after close it works --
on h3 "$NC_CHECK" --comm 4 --rank 2 --size 8 --op barrier --timeout 60000 \
	>"$T_LOG/busy.log" 2>&1 &
p=$!
nc_wait_bound h3 4
t_expect_fail "rmmod with an open endpoint is refused" "in use|busy" rmmod netcoll
ip netns pids nc-h3 | xargs -r kill
wait $p 2>/dev/null
t_check "rmmod after the endpoint closed (devices, comms alive)" nc_unload
cluster_down
t_done
