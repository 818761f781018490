#!/bin/bash
# Unmodified MPI programs with and without libnetcoll-mpi.so, side by
# side in one run (in the VM, like the other benchmarks): MPI_Allreduce by
# size (allreduce_bench: Open MPI alone, netcoll's trees, netcoll's
# reduce-scatter + allgather, and the interposer sending each size the way
# it measured fastest at MPI_Init), FFTW's MPI 3-D FFT (fft_check) and Debian's
# hpcc, each mode in turn, NC_BENCH_REPEAT times.  Writes
# $NC_OUT/apps-bench.md (apps_report.py): latencies, the FFT's time and
# hpcc's own figures per run and side by side, their own verdicts, and
# where the collectives went.
#
#   NC_BENCH_TOPO (two-switch-8x2.topo), NC_BENCH_REPEAT (2),
#   NC_BENCH_PARTS ("allreduce fft hpcc"), NC_BENCH_MODES ("mpi netcoll":
#   the FFT's and hpcc's; one of them re-checks a fix, not a comparison),
#   NC_BENCH_FFT_N (64), NC_BENCH_FFT_ITERS (20), NC_BENCH_HPL_N (1000),
#   NC_BENCH_MTU (1500; every interface, for Open MPI's TCP and netcoll
#   alike: 9000 is issue 15's cluster), NC_BENCH_AR_SIZES (allreduce_bench's
#   sizes; default 8 B to 4 MiB by 4x), NC_BENCH_WAIT ("spin yield": how
#   Open MPI's waiting ranks wait in the allreduce part, in every mode;
#   docs/apps-bench.md, 2026-12-02: on 16 emulated hosts sharing two CPUs
#   a spinning rank takes CPU from every other host, which favours netcoll,
#   and yielding favours Open MPI, so the table shows both),
#   NC_BENCH_AR_MODES ("mpi trees mcast rsag tuned": the allreduce part's
#   modes; trees: every result down the trees, mcast: results of 32 KiB and
#   more multicast, the library's default; also trees1, the trees with one
#   frame an skb).  Each allreduce run leaves the module's counters it
#   moved in $T_LOG/ar-MODE-WAIT-ROUND.stats.
T_NAME=bench_apps
source "$(dirname "$0")/lib.sh"
# shellcheck source=mpi_lib.sh
source "$(dirname "$0")/mpi_lib.sh"
# shellcheck source=bench_lib.sh
source "$(dirname "$0")/bench_lib.sh"
set -u
REPORT=$NC_OUT/apps-bench.md
TOPO=${NC_BENCH_TOPO:-two-switch-8x2.topo}
REPEAT=${NC_BENCH_REPEAT:-2}
FFT_N=${NC_BENCH_FFT_N:-64}
FFT_ITERS=${NC_BENCH_FFT_ITERS:-20}
HPL_N=${NC_BENCH_HPL_N:-1000}
MTU=${NC_BENCH_MTU:-1500}
read -r -a AR_SIZES <<<"${NC_BENCH_AR_SIZES:-}"
PARTS=" ${NC_BENCH_PARTS:-allreduce fft hpcc} "
read -r -a MODES <<<"${NC_BENCH_MODES:-mpi netcoll}"
read -r -a WAITS <<<"${NC_BENCH_WAIT:-spin yield}"
read -r -a AR_MODES <<<"${NC_BENCH_AR_MODES:-mpi trees mcast rsag tuned}"
ALLREDUCE_BENCH=$NC_BUILD/selftests/mpi/allreduce_bench
export NC_MPIRUN_TIMEOUT=${NC_BENCH_RUN_TIMEOUT:-1800}

mpi_usable || { echo "no Open MPI or interposer built" >&2; exit 1; }
cluster_up "$NC_TOP/selftests/net/topologies/$TOPO" >/dev/null ||
	{ echo "cluster up failed" >&2; exit 1; }
cluster_mtu "$MTU" || { echo "MTU $MTU refused" >&2; exit 1; }
# shellcheck disable=SC2119	# no module parameters
nc_load || { echo "insmod failed" >&2; cluster_down; exit 1; }
for h in $(cluster_hosts); do
	on "$h" "$NCTL" dev attach dev eth0 || exit 1
done
P=$(cluster_count)
# The largest near-square process grid for hpcc.
PQ=$(python3 -c "import math; p=$P; q=max(d for d in range(1, int(math.isqrt(p)) + 1) if p % d == 0); print(q, p // q)")

hpcc_input() { # DIR
	mkdir -p "$1"
	sed -e "6s/^1000 /$(printf '%-5s' "$HPL_N")/" \
		-e "11s/^2 /${PQ% *} /" -e "12s/^2 /${PQ#* } /" \
		/usr/share/doc/hpcc/examples/_hpccinf.txt >"$1/hpccinf.txt"
}

# in_turn ROUND MODE... : the modes in order in odd rounds, the other way
# round in even ones (A B, B A, ...): a drift over the run (the guest's
# memory, the host's load) then favours no mode.
in_turn() {
	local round=$1
	shift
	if [ $((round % 2)) = 1 ]; then
		printf '%s\n' "$@"
	else
		printf '%s\n' "$@" | tac
	fi
}

# MPI_Allreduce: the same binary in each mode, in turn.
ar_runs=()
if [[ $PARTS == *" allreduce "* ]]; then
	for i in $(seq "$REPEAT"); do
		for wait in "${WAITS[@]}"; do
			yield=
			[ "$wait" = yield ] && yield=1
			for mode in $(in_turn "$i" "${AR_MODES[@]}"); do
				pre=()
				case $mode in
				trees | trees1) pre=(-x LD_PRELOAD="$NCMPI" -x NETCOLL_RSAG_MIN=0
					-x NETCOLL_ALLREDUCE_MCAST_MAX=0) ;;
				mcast) pre=(-x LD_PRELOAD="$NCMPI" -x NETCOLL_RSAG_MIN=0
					-x NETCOLL_ALLREDUCE_MCAST_MIN=32768) ;;
				rsag) pre=(-x LD_PRELOAD="$NCMPI" -x NETCOLL_RSAG_MIN=1) ;;
				tuned) pre=(-x LD_PRELOAD="$NCMPI" -x NETCOLL_MPI_ALLREDUCE_TUNE=1) ;;
				esac
				# trees1: the trees with one frame an skb (gso_max_segs 1)
				[ "$mode" = trees1 ] && nc_gso_segs 1
				name=ar-$mode-$wait-$i
				stats_sum "$name.stats0"
				NC_MPI_YIELD=$yield nc_mpirun "$name" "${pre[@]}" \
					"$ALLREDUCE_BENCH" "${AR_SIZES[@]}" ||
					echo "$name failed" >&2
				# what the module counted in the run (bootstrap included)
				stats_sum "$name.stats1"
				stats_delta "$name.stats0" "$name.stats1" >"$T_LOG/$name.stats"
				[ "$mode" = trees1 ] && nc_gso_segs 65535
				ar_runs+=("$mode:$wait:$i")
				echo "allreduce round $i $wait $mode done" >&2
			done
		done
	done
fi

runs=()
for i in $(seq "$REPEAT"); do
	[[ $PARTS == *" fft "* || $PARTS == *" hpcc "* ]] || break
	for mode in $(in_turn "$i" "${MODES[@]}"); do
		pre=()
		[ "$mode" = netcoll ] && pre=(-x LD_PRELOAD="$NCMPI")
		name=fft-$mode-$i
		[[ $PARTS != *" fft "* ]] ||
			nc_mpirun "$name" "${pre[@]}" "$FFT_CHECK" "$FFT_N" "$FFT_ITERS" ||
			echo "$name failed" >&2
		name=hpcc-$mode-$i
		[[ $PARTS != *" hpcc "* ]] || {
			hpcc_input "$T_LOG/$name"
			# hpcc writes to hpccoutf.txt only: a silent log is no stall
			NC_MPI_QUIET=$NC_MPIRUN_TIMEOUT \
				nc_mpirun "$name" --wdir "$T_LOG/$name" "${pre[@]}" hpcc ||
				echo "$name failed" >&2
		}
		runs+=("$mode:$i")
		echo "round $i $mode done" >&2
	done
done

{
	echo "# Unmodified MPI applications: Open MPI alone and with libnetcoll-mpi.so"
	echo
	echo "Made by \`make bench-apps\` (selftests/net/bench_apps.sh) on $(date -u +%F),"
	echo "kernel $(uname -r), in a QEMU/TCG guest: $P hosts on $TOPO (MTU $MTU), one rank"
	echo "per host, Debian's Open MPI $(mpirun --version | sed -n '1s/.* //p') over TCP (btl tcp) for"
	echo "everything the interposer does not take. Each application ran $REPEAT times"
	echo "in each mode, alternating (MPI, netcoll, netcoll, MPI, ...); times are the"
	echo "applications' own timers, in seconds."
	echo
	[[ "$PARTS" != *" fft "* ]] ||
		echo "- fft_check: FFTW's MPI 3-D complex FFT, ${FFT_N}^3, $FFT_ITERS transforms,
  checked against a serial FFTW transform (max relative error), with a
  checksum of the result's bits."
	[[ "$PARTS" != *" hpcc "* ]] ||
		echo "- hpcc 1.5: HPL N=$HPL_N on a ${PQ% *}x${PQ#* } grid and the kernels it sizes from
  that (PTRANS, MPIFFT, MPIRandomAccess, ...); hpcc checks its own results."
} >"$REPORT"

"$(dirname "$0")/apps_report.py" "$T_LOG" "${ar_runs[*]}" "${runs[*]}" "$PARTS" >>"$REPORT"
cluster_down
nc_unload
echo "report: $REPORT"
