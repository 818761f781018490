# shellcheck shell=bash
# What the benchmark scripts share (sourced after lib.sh): ncbench on every
# host of the cluster at once, and the clean-up of a run that failed.

# kill_hosts : whatever still runs in a host's namespace (a failed run).
kill_hosts() {
	local h
	for h in $(cluster_hosts); do
		ip netns pids "$(cluster_ns "$h")" | xargs -r kill -9 2>/dev/null
	done
}

# stats_sum NAME : the module's counters summed over the hosts, as
# "name value" lines in $T_LOG/NAME.
stats_sum() {
	local h
	for h in $(cluster_hosts); do on "$h" "$NCTL" -j stats >"$T_LOG/$1.$h.json"; done
	python3 - "$T_LOG"/"$1".*.json >"$T_LOG/$1" <<'PY'
import collections, json, sys
t = collections.Counter()
for name in sys.argv[1:]:
    with open(name) as f:
        t.update({k: v for k, v in json.load(f).items() if isinstance(v, int)})
print("\n".join("%s %d" % kv for kv in sorted(t.items())))
PY
}

# stats_delta A B : the counters that moved from stats_sum A to B.
stats_delta() {
	join "$T_LOG/$1" "$T_LOG/$2" | awk '$3 != $2 { print $1, $3 - $2 }'
}

# run NAME ARGS... : ncbench on every host at once, rank = host order,
# each run at most $RUN_TIMEOUT seconds; rank 0's JSON kept as
# $T_LOG/NAME.json (every rank's output as $T_LOG/NAME.rR.out/err).
run() {
	local name=$1 h r=0 p pids=() rc=0
	shift
	# RUN_HOSTS: the ranks' hosts in rank order (a host may come twice)
	for h in ${RUN_HOSTS:-$(cluster_hosts)}; do
		on "$h" timeout "${RUN_TIMEOUT:-900}" "$NCBENCH" --rank $r "$@" -j \
			>"$T_LOG/$name.r$r.out" 2>"$T_LOG/$name.r$r.err" &
		pids+=($!)
		r=$((r + 1))
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	if [ $rc -ne 0 ]; then
		kill_hosts
		echo "$name failed: $(sort -u "$T_LOG/$name".r*.err | head -n 3 | tr '\n' ' ')" >&2
		return 1
	fi
	cp "$T_LOG/$name.r0.out" "$T_LOG/$name.json"
	echo "$name done" >&2
}

# bcast_comms TOPO FIRST KIND... : a communicator of every host per
# broadcast order, ids FIRST, FIRST + 1, ... (one that a timeout breaks
# leaves the others measured): "unaware" keeps rank order, the others get
# the planner's placement for TOPO installed (nctl tree bcast ... install
# ID order KIND).  Sets BCOMM[KIND] to the id (the caller's declare -A).
bcast_comms() {
	local topo=$1 id=$2 kind h
	shift 2
	for kind in "$@"; do
		# shellcheck disable=SC2046	# one host name per word
		nc_comm_on "$id" $(cluster_hosts) >/dev/null ||
			{ echo "comm add $id failed" >&2; return 1; }
		BCOMM[$kind]=$id
		if [ "$kind" != unaware ]; then
			for h in $(cluster_hosts); do
				on "$h" "$NCTL" tree bcast topology "$topo" install "$id" \
					order "$kind" >/dev/null ||
					{ echo "order install failed" >&2; return 1; }
			done
		fi
		id=$((id + 1))
	done
}
