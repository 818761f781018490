#!/bin/bash
# Lifetimes under churn (nc_churn): while workers run collectives and
# bind again after every error, communicators are deleted and re-created
# with the same id, the device goes down and up, a deleted communicator's
# device is detached while an endpoint still holds it, members are killed with
# SIGKILL mid-operation, and devices and whole namespaces are deleted.
# NC_RACE_ITERS (default 200) rounds of each.  Pass: every worker error is
# one the churn explains and came within the time budget, the kernel logs
# no warning (the VM runner checks dmesg), and kernel memory (unreclaimable
# slab and vmalloc) is back where it started once everything is deleted
# (a leak of one operation per round would show as about 1 MiB).
T_NAME=races
source "$(dirname "$0")/lib.sh"

N=${NC_RACE_ITERS:-200}
CHURN=$NC_BUILD/selftests/net/nc_churn

cluster_star 2 >/dev/null || { t_fail "cluster up"; t_done; exit 1; }
nc_load || { t_fail "insmod"; t_done; exit 1; }
on h1 "$NCTL" dev attach dev eth0
on h2 "$NCTL" dev attach dev eth0
# Slab caches grow on first use and keep their pages: a short warm-up of
# every round first, so that the baseline after it shows leaks, not caches.
for round in recreate updown detach "kill --peer /run/netns/nc-h2" netns; do
	# shellcheck disable=SC2086
	on h1 "$CHURN" $round --iters 30 --seed 2 >/dev/null 2>&1
done
sleep 2
base=$(kmem_kb)

for round in recreate updown detach "kill --peer /run/netns/nc-h2" netns; do
	# shellcheck disable=SC2086
	on h1 "$CHURN" $round --iters "$N" >"$T_LOG/${round%% *}.log" 2>&1
	t_tally <"$T_LOG/${round%% *}.log"
	grep -q '^[0-9]* passed, 0 failed$' "$T_LOG/${round%% *}.log" ||
		t_fail "$round: nc_churn did not finish ($(tail -n 1 "$T_LOG/${round%% *}.log"))"
done

# Namespaces are torn down by a worker after their last reference.
for i in 1 2 3 4 5 6 7 8 9 10; do
	after=$(kmem_kb)
	[ $((after - base)) -le 512 ] && break
	sleep 1
done
t_check "kernel memory back to where it started: $((after - base)) KiB after ${i} s" \
	test $((after - base)) -le 512
on h1 "$NCTL" dev detach dev eth0
on h2 "$NCTL" dev detach dev eth0
t_check "rmmod after it all" nc_unload
cluster_down
t_done
