#!/bin/bash
# Operations under loss (run in the VM): a star of 4 hosts, netem loss on
# every cable (both directions of each host's link), NC_BENCH_OPS (200)
# verified operations per line: alltoall 1 MiB and 64 KiB, allreduce 8 B,
# 1 KiB and 128 KiB (double sum).  Writes $NC_OUT/loss-bench.md: the wall
# time of each line and how many operations failed (a failed operation
# breaks the communicator, so every later one of the line fails too; the
# line stops there).  Beside it, from the counters of every host, what
# the line cost per operation: frames sent, data frames sent again, and
# retransmission timeouts (each one a wait the acks did not spare).
# NC_BENCH_GSO (single): "single" sets gso_max_segs 1 on every eth0, so
# the module sends one frame an skb: netem drops an skb whole, and a NIC
# puts a group's frames on its cable one by one, so a lossy cable is
# emulated with single frames; "whole" keeps the module's groups (then a
# loss takes a group of frames at once).
T_NAME=bench_loss
source "$(dirname "$0")/lib.sh"
set -u
REPORT=$NC_OUT/loss-bench.md
OPS=${NC_BENCH_OPS:-200}
LOSSES=${NC_BENCH_LOSSES:-0 5 10}
TIMEOUT=${NC_BENCH_OP_TIMEOUT:-30000}
SPECS=${NC_BENCH_SPECS:-alltoall:1048576 alltoall:65536 allreduce:8 allreduce:1024 allreduce:131072}
GSO=${NC_BENCH_GSO:-single}

cluster_star 4 >/dev/null || { echo "cluster up failed" >&2; exit 1; }
# shellcheck disable=SC2119	# no module parameters
nc_load || { echo "insmod failed" >&2; exit 1; }
for h in $(cluster_hosts); do on "$h" "$NCTL" dev attach dev eth0; done
[ "$GSO" = single ] && nc_gso_segs 1
ID=0

# a fresh communicator for every line (ID): a failure breaks one
fresh_comm() {
	local h r=0
	for h in $(cluster_hosts); do
		on "$h" "$NCTL" comm add id $ID dev eth0 rank $r members "$(cluster_members)" \
			timeout "$TIMEOUT" || return 1
		r=$((r + 1))
	done
}

# counters KIND... : each counter summed over the hosts, on one line
counters() {
	local h
	for h in $(cluster_hosts); do on "$h" "$NCTL" -j stats; done |
		python3 -c 'import json, sys
text, dec, at, tot = sys.stdin.read(), json.JSONDecoder(), 0, {}
while text[at:].strip():
	d, at = dec.raw_decode(text, len(text) - len(text[at:].lstrip()))
	for k, v in d.items():
		tot[k] = tot.get(k, 0) + v
print(" ".join(str(tot.get(k, 0)) for k in sys.argv[1:]))' "$@"
}

# line KIND SIZE : OPS verified operations on every rank; prints
# "seconds done failed" (done: operations every rank finished).
line() {
	local kind=$1 size=$2 h r=0 pids=() t0 t1 done=$OPS failed=0 p n
	fresh_comm || { echo "0 0 $OPS"; return; }
	t0=$(date +%s%N)
	for h in $(cluster_hosts); do
		if [ "$kind" = alltoall ]; then
			on "$h" "$NC_CHECK" --comm $ID --rank $r --size 4 --op alltoall \
				--bytes "$size" --iters "$OPS" --timeout "$TIMEOUT" \
				>"$T_LOG/$kind-$size-$ID.$h.log" 2>&1 &
		else
			on "$h" "$NC_RED_CHECK" --comm $ID --rank $r --size 4 --all --ops sum \
				--dtypes double --count-list $((size / 8)) --iters "$OPS" \
				--timeout "$TIMEOUT" >"$T_LOG/$kind-$size-$ID.$h.log" 2>&1 &
		fi
		pids+=($!)
		r=$((r + 1))
	done
	for p in "${pids[@]}"; do wait "$p"; done
	t1=$(date +%s%N)
	for h in $(cluster_hosts); do
		if ! grep -q '^ok - ' "$T_LOG/$kind-$size-$ID.$h.log"; then
			# nc_check: "iteration K failed"; nc_red_check: "(iteration K)"
			n=$(grep -oE 'iteration [0-9]+' "$T_LOG/$kind-$size-$ID.$h.log" | head -n 1 |
				awk '{ print $2 }')
			[ -n "$n" ] && [ "$n" -lt "$done" ] && done=$n
			failed=$((OPS - done))
		fi
	done
	echo "$(( (t1 - t0) / 1000000 )) $done $failed"
}

{
	echo "# Collectives under loss"
	echo
	echo "Made by selftests/net/bench_loss.sh (make bench-loss) in a QEMU/TCG guest,"
	echo "$(nproc) vCPUs, kernel $(uname -r), $(date -u +%Y-%m-%d).  A star of 4 hosts on"
	echo "unshaped veth cables; netem drops the given share of the frames in both"
	echo "directions of every host's cable.  $OPS verified operations per line, back"
	echo "to back, each with a $TIMEOUT ms budget.  A failed operation breaks the"
	echo "communicator (ENOTRECOVERABLE afterwards), so a line stops at its first"
	echo "failure: the failures counted are that one and every one after it."
	if [ "$GSO" = single ]; then
		echo "The module sent one frame an skb (gso_max_segs 1): netem drops an skb whole,"
		echo "and a NIC puts frames on a cable one by one."
	else
		echo "The module sent a destination's frames as one skb where it could: a loss"
		echo "took such a group at once."
	fi
	echo
	echo "| operation | loss | wall time | done | failed | frames / op | resent / op | timeouts / op |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
} >"$REPORT"
for spec in $SPECS; do
	kind=${spec%%:*} size=${spec#*:}
	label=$( [ "$size" -ge 1048576 ] && echo "$((size >> 20)) MiB" ||
		{ [ "$size" -ge 1024 ] && echo "$((size >> 10)) KiB" || echo "$size B"; })
	for loss in $LOSSES; do
		for h in $(cluster_hosts); do
			if [ "$loss" = 0 ]; then
				cluster_set_link "$h" clear >/dev/null
			else
				cluster_set_link "$h" loss "$loss%" >/dev/null
			fi
		done
		ID=$((ID + 1))
		read -r tx0 rtx0 rto0 < <(counters tx_frames retransmits rto_expired)
		read -r ms done failed < <(line "$kind" "$size")
		read -r tx1 rtx1 rto1 < <(counters tx_frames retransmits rto_expired)
		printf '| %s %s | %s %% | %d.%01d s | %d | %d | %d | %d.%01d | %d.%02d |\n' \
			"$kind" "$label" "$loss" $((ms / 1000)) $(( (ms % 1000) / 100 )) \
			"$done" "$failed" $(( (tx1 - tx0) / OPS )) \
			$(( (rtx1 - rtx0) / OPS )) $(( (rtx1 - rtx0) * 10 / OPS % 10 )) \
			$(( (rto1 - rto0) / OPS )) $(( (rto1 - rto0) * 100 / OPS % 100 )) >>"$REPORT"
		echo "$kind $label loss $loss%: $ms ms, $done done, $failed failed" >&2
	done
done
cluster_down
nc_unload
