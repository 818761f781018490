#!/bin/bash
# Every module test, in the test VM (selftests/vm/run-vm.sh -- this).
# Each t_*.sh prints ok/FAIL lines and its own count; this adds them up.
cd "$(dirname "$0")" || exit 1
passed=0
failed=0
for t in t_netlink.sh t_alltoall.sh t_lossy.sh t_inject.sh t_faults.sh t_sched.sh t_reduce.sh \
	 t_security.sh t_races.sh t_fuzz.sh; do
	start=$(date +%s)
	out=$(bash "./$t" 2>&1 | tee /dev/stderr | grep -E '^[0-9]+ passed, [0-9]+ failed$')
	rc=${PIPESTATUS[0]}
	p=$(echo "$out" | awk '{print $1}')
	f=$(echo "$out" | awk '{print $3}')
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ -z "$out" ] || { [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; }; then
		echo "FAIL - $t ended early (exit $rc)"
		failed=$((failed + 1))
	fi
	echo "# $t: $(( $(date +%s) - start )) s" >&2
	lsmod | grep -q '^netcoll ' && rmmod netcoll 2>/dev/null
	bash -c "source ./cluster.sh; cluster_down" >/dev/null 2>&1
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
