#!/bin/bash
# Configuration over generic netlink: attach/detach, communicators, strict
# rejection of bad requests with the exact errno, admin-only mutations,
# per-namespace isolation, the nctl user interface.
T_NAME=netlink
source "$(dirname "$0")/lib.sh"

cluster_star 2 >/dev/null || { t_fail "cluster up"; t_done; exit 1; }
nc_load || { t_fail "insmod"; t_done; exit 1; }

t_check "attach eth0 on h1" on h1 "$NCTL" dev attach dev eth0
t_expect_fail "attach twice is EEXIST" "already attached" on h1 "$NCTL" dev attach dev eth0
t_expect_fail "attach lo is refused" "not supported" on h1 "$NCTL" dev attach dev lo
t_expect_fail "attach unknown device" "nctl: .*(No such device|does not exist|unknown)" \
	on h1 "$NCTL" dev attach dev nosuch0
t_check "dev show -j names the bearer eth:eth0" \
	nc_json h1 'd[0]["bearer"] == "eth:eth0" and d[0]["mtu"] == 1500' dev show
t_check "h2 sees no device of h1 (a namespace is a host)" nc_json h2 'd == []' dev show

on h1 "$NL_REJECT" --ifname eth0 >"$T_LOG/nl_reject.log" 2>&1
t_tally <"$T_LOG/nl_reject.log"

members=$(cluster_members)
t_check "comm add" on h1 "$NCTL" comm add id 9 dev eth0 rank 0 members "$members" cookie 0xabc timeout 3000
t_check "comm show -j has the members" \
	nc_json h1 'd[0]["size"] == 2 and len(d[0]["members"]) == 2 and d[0]["cookie"] == 0xabc' comm show id 9
t_check "comm show -j: the admin's own has no owner, rank 0 drew an epoch" \
	nc_json h1 '"owner" not in d[0] and d[0]["epoch"] != 0 and d[0]["state"] == "ready" and not d[0]["auth"]' comm show id 9
t_check "comm show -j: no round trip measured yet, so the timeouts are rto_min_ms (2 ms)" \
	nc_json h1 'all(d[0][k] == {"srtt_us": 0, "rttvar_us": 0, "rto_us": 2000} for k in ("rtt_alltoall", "rtt_agg"))' comm show id 9
on h1 "$NL_REJECT" --ifname eth0 --unpriv --comm 9 >"$T_LOG/nl_reject_unpriv.log" 2>&1
t_tally <"$T_LOG/nl_reject_unpriv.log"
t_expect_fail "rank whose address is not the device's" "not the device" \
	on h1 "$NCTL" comm add id 10 dev eth0 rank 1 members "$members"
t_expect_fail "comm add on a device not attached" "not attached" \
	on h2 "$NCTL" comm add id 9 dev eth0 rank 1 members "$members"
t_expect_fail "nctl: unknown object, one line" "^nctl: " on h1 "$NCTL" frobnicate
t_check "sched del on a linear communicator" on h1 "$NCTL" sched del id 9
t_expect_fail "sched del of an unknown communicator" "no such communicator" \
	on h1 "$NCTL" sched del id 4711
t_check "comm del" on h1 "$NCTL" comm del id 9
t_expect_fail "comm del again is ENOENT" "no such communicator" on h1 "$NCTL" comm del id 9
t_check "stats lists every counter" nc_json h1 '"drop_cookie" in d and "tx_frames" in d' stats
# A communicator joins its group address (result multicast) while bound;
# a detach that unbinds it must leave the group (COMM_DEL finds no bearer).
nc_groups_joined() { on h1 ip maddr show dev eth0 | grep -c "03:6e:63:"; }
t_check "comm add 11" on h1 "$NCTL" comm add id 11 dev eth0 rank 0 members "$members"
t_check "comm 11 joined one group address" test "$(nc_groups_joined)" = 1
t_check "detach with communicator 11 still there" on h1 "$NCTL" dev detach dev eth0
t_check "the detach left the group address" test "$(nc_groups_joined)" = 0
t_check "comm del of the unbound communicator" on h1 "$NCTL" comm del id 11
t_expect_fail "detach again" "not attached" on h1 "$NCTL" dev detach dev eth0

# A device dump comes in parts of a few KiB; one resumes by position, so a
# device attached or detached between two parts shifts the list under it.
# nl_reject reads a dump of 120 devices (veth ends) part by part, moves one
# meanwhile, and checks the kernel's mark on the dump (NLM_F_DUMP_INTR).
on h1 ip -batch - <<<"$(for i in $(seq 0 119); do
	echo "link add ncd$i type veth peer name ncp$i"
	echo "link set ncd$i up"
	echo "link set ncp$i up"
done)" || t_fail "120 veth pairs on h1"
on h1 "$NL_REJECT" --dump-intr 120 >"$T_LOG/nl_reject_dump_intr.log" 2>&1
t_tally <"$T_LOG/nl_reject_dump_intr.log"
on h1 ip -batch - <<<"$(for i in $(seq 0 119); do echo "link del ncd$i"; done)"

cluster_down
t_check "rmmod" nc_unload
t_done
