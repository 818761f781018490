#!/bin/bash
# Every module test, in the test VM (selftests/vm/run-vm.sh -- this): each
# t_*.sh (and the cluster builder's self-test) as it runs, its results
# numbered and counted into one TAP stream (selftests/lib/tap.sh).
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/tap.sh
source ../lib/tap.sh
source ./cluster.sh
cleanup() {
	lsmod | grep -q '^netcoll ' && rmmod netcoll 2>/dev/null
	cluster_down >/dev/null 2>&1
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Every test, or those named (run-all.sh t_reduce.sh ...: a smoke subset).
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(test-cluster.sh t_netlink.sh t_alltoall.sh t_lossy.sh
	t_inject.sh t_faults.sh t_sched.sh t_topo.sh t_reduce.sh t_bcast.sh t_bootstrap.sh t_ranks_per_host.sh t_mpi.sh t_security.sh t_races.sh t_fuzz.sh)
# NC_SKIP="t_topo.sh ...": those are reported skipped (make check's guest
# on the second kernel line leaves out what runs only user space there,
# and two suites whose kernel parts the others use too).
# NC_EXCEPT="t_mpi.sh ...": those left out without a word (make check
# runs them in another guest: selftests/check.sh).
for t in "${tests[@]}"; do
	[[ " ${NC_EXCEPT:-} " == *" $t "* ]] && continue
	if [[ " ${NC_SKIP:-} " == *" $t "* ]]; then
		tap_skip "$t" "NC_SKIP: run in the first kernel line's guest only"
		continue
	fi
	start=$(date +%s)
	failed_before=$TAP_FAILED
	tap_relay "" < <(bash "./$t" 2>&1)
	relayed=$?
	wait $!			# the process substitution: the script's status
	rc=$?
	# No summary line, or a failing exit with no failed test: it broke.
	if [ $relayed -ne 0 ] || { [ $rc -ne 0 ] && [ "$TAP_FAILED" -eq "$failed_before" ]; }; then
		tap_fail "$t ended early (exit $rc)"
	fi
	echo "# $t: $(( $(date +%s) - start )) s"
	cleanup
done
tap_done
