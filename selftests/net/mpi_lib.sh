# shellcheck shell=bash
# Open MPI and MPICH on the emulated cluster (sourced after lib.sh, the
# cluster up): one rank per host, mpirun on the first host, the others
# reached through selftests/mpi/nc-rsh (each host its own network and UTS
# namespace, so MPI sees one node per host), MPI's own traffic over TCP
# on eth0.

NCMPI=$NC_BUILD/libnetcoll-mpi.so
MPI_CHECK=$NC_BUILD/selftests/mpi/mpi_check
FFT_CHECK=$NC_BUILD/selftests/mpi/fft_check
MPI_CHECK_F=$NC_BUILD/selftests/mpi/mpi_check_f
NC_RSH=$NC_TOP/selftests/mpi/nc-rsh
# The interposer, mpi_check and mpi_check_f built with MPICH (mpi/build.mk)
NCMPI_MPICH=$NC_BUILD/mpich/libnetcoll-mpi.so
MPI_CHECK_MPICH=$NC_BUILD/mpich/selftests/mpi/mpi_check
MPI_CHECK_F_MPICH=$NC_BUILD/mpich/selftests/mpi/mpi_check_f

# mpi_usable : Open MPI and the interposer were built.
mpi_usable() { command -v mpirun >/dev/null && [ -x "$MPI_CHECK" ] && [ -e "$NCMPI" ]; }

# mpi_launch LOGNAME LAUNCHER ARGS... : LAUNCHER (mpirun) in the first
# host's network namespace and a UTS namespace named after it, NC_RSH_PREFIX
# set for nc-rsh, output in $T_LOG/LOGNAME.log.
# Ten seconds before the timeout, where the ranks are goes into the log
# and to stderr (mpi_stuck); and once when the job printed nothing for
# NC_MPI_QUIET seconds (120): an operation that stalls under MPI's hour
# of budget is seen while it stalls, not only at the limit.
mpi_launch() {
	local name=$1 first ns pid limit=${NC_MPIRUN_TIMEOUT:-600}
	local quiet=${NC_MPI_QUIET:-120} size last=-1 start=$SECONDS
	local changed=$SECONDS dumped_quiet=0 dumped_end=0
	shift
	first=$(cluster_hosts | head -n 1)
	ns=$(cluster_ns "$first")
	NC_RSH_PREFIX=${ns%"$first"} HOME=${HOME:-/tmp} \
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	timeout "$limit" ip netns exec "$ns" unshare --uts \
		sh -c 'hostname "$0" && exec "$@"' "$first" "$@" >"$T_LOG/$name.log" 2>&1 &
	pid=$!
	# Deadlines in seconds ($SECONDS), not loop turns: on a slow guest
	# a turn takes longer than its sleep, and the dumps never came.
	while kill -0 "$pid" 2>/dev/null; do
		if [ $dumped_end = 0 ] && [ $((SECONDS - start)) -ge $((limit - 10)) ]; then
			mpi_stuck | tee -a "$T_LOG/$name.log" >&2
			dumped_end=1
		fi
		size=$(stat -c %s "$T_LOG/$name.log" 2>/dev/null || echo 0)
		if [ "$size" != "$last" ]; then
			last=$size
			changed=$SECONDS
		elif [ $dumped_quiet = 0 ] && [ $((SECONDS - changed)) -ge "$quiet" ]; then
			{ echo "stuck: no output for $quiet s"; mpi_stuck; } |
				tee -a "$T_LOG/$name.log" >&2
			dumped_quiet=1
		fi
		sleep 0.2
	done
	wait "$pid"
}

# mpi_stuck: every host's counters that tell a stuck or repairing
# operation and where its communicators stand (id:state:alltoall
# sequence:reduction sequence: a rank behind the others is the one
# waited for), what each reduction in flight waits for
# (/proc/net/netcoll_ops: pieces, children, acks), then each rank's
# kernel wait channel and stack top: in a
# netcoll operation (nck_*), or polling in MPI's own progress.
mpi_stuck() {
	local h p
	for h in $(cluster_hosts); do
		echo "stuck: $h comms: $(on "$h" "$NCTL" -j comm show | python3 -c '
import json, sys
print(" ".join("%s:%s:%s:%s" % (c.get("id"), c.get("state"), c.get("op_seq"),
      c.get("agg_seq")) for c in json.load(sys.stdin)))')"
		echo "stuck: $h: $(on "$h" "$NCTL" -j stats | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(f"{k}={d[k]}" for k in ("agg_ops", "ops_failed", "ops_timedout",
      "rto_expired", "agg_repairs", "drop_ratelimit", "rx_frames") if d.get(k)))')"
		on "$h" cat /proc/net/netcoll_ops 2>&1 | sed "s/^/stuck: $h ops: /"
	done
	for p in $(pgrep -x 'mpi_check|mpi_check_f|fft_check|hpcc|allreduce_bench'); do
		echo "stuck: pid $p $(cat "/proc/$p/comm") in $(cat "/proc/$p/wchan" 2>/dev/null): $(head -n 4 "/proc/$p/stack" 2>/dev/null | sed 's/^.*] //' | paste -sd' ')"
	done
}

# nc_mpirun LOGNAME MPIRUN_ARGS... PROGRAM ARGS : Open MPI on every host of
# the cluster, NC_MPI_PPN ranks per host (default 1; ranks 0, 1, ... fill
# the first host first), output in $T_LOG/LOGNAME.log;
# NETCOLL_MPI_VERBOSE=1 always.  NC_MPI_YIELD=1: idle ranks yield the CPU
# (mpi_yield_when_idle) instead of spinning: every emulated host shares
# the guest's two CPUs, so Open MPI, which sees a host's slots free,
# spins ranks that wait against the ones that work (tests; benchmarks
# keep Open MPI's default).
nc_mpirun() {
	local name=$1 ppn=${NC_MPI_PPN:-1}
	shift
	mpi_launch "$name" mpirun --host "$(cluster_hosts | sed "s/\$/:$ppn/" | paste -sd,)" \
		-np "$(($(cluster_count) * ppn))" --mca plm_rsh_agent "$NC_RSH" \
		${NC_MPI_YIELD:+--mca mpi_yield_when_idle 1} \
		--mca plm_rsh_no_tree_spawn 1 --mca btl self,tcp --mca pml ob1 \
		--mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
		-x NC_RSH_PREFIX -x NETCOLL_MPI_VERBOSE=1 "$@"
}

# mpich_usable : MPICH and the interposer built with it.
mpich_usable() {
	command -v mpirun.mpich >/dev/null && [ -x "$MPI_CHECK_MPICH" ] && [ -e "$NCMPI_MPICH" ]
}

# nc_mpirun_mpich LOGNAME MPIEXEC_ARGS... PROGRAM ARGS : nc_mpirun with
# MPICH's launcher (hydra, its rsh launcher being nc-rsh).
nc_mpirun_mpich() {
	local name=$1
	shift
	mpi_launch "$name" mpirun.mpich -launcher rsh -launcher-exec "$NC_RSH" \
		-hosts "$(cluster_hosts | paste -sd,)" -n "$(cluster_count)" \
		-iface eth0 -genv NETCOLL_MPI_VERBOSE 1 "$@"
}

# mpi_calls LOGNAME : where the calls went, one line ("MPI_Allreduce: 3
# netcoll, 0 MPI; ...").
mpi_calls() {
	grep "^netcoll-mpi: MPI_" "$T_LOG/$1.log" | cut -d' ' -f2- | paste -sd';' | sed 's/;/; /g'
}
