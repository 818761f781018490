# shellcheck shell=bash
# tap.sh - the one test-result emitter of netcoll's tests (sourced by every
# test script, the in-guest runner and check.sh).  TAP: one line per test,
#   ok N - name
#   not ok N - name
#   ok N - name # SKIP why
# diagnostics as "# ..." lines, the plan "1..N" at the end (the count is
# known only then), then the line every caller greps: "N passed, N failed"
# (skips are neither; "# N skipped" precedes it when there are any).
#
# Leaf programs (the C harness and test programs) print the same lines
# without numbers ("ok - name", "not ok - name"), which TAP allows; the
# scripts that run them relay those lines with tap_relay, which numbers
# and counts them, so a whole make check is one numbered TAP stream.

TAP_N=0
TAP_PASSED=0
TAP_FAILED=0
TAP_SKIPPED=0

tap_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_PASSED=$((TAP_PASSED + 1))
	echo "ok $TAP_N - $1"
}

# tap_fail NAME [DETAIL...] : details become diagnostic lines.
tap_fail() {
	local d
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $1"
	shift
	for d in "$@"; do
		[ -n "$d" ] && sed 's/^/#   /' <<<"$d"
	done
	return 0
}

tap_skip() {
	TAP_N=$((TAP_N + 1))
	TAP_SKIPPED=$((TAP_SKIPPED + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

# tap_relay PREFIX < FILE : the result lines of a sub-run, numbered and
# counted here under PREFIX; its diagnostics (and any other output, made
# one) pass through unless TAP_DIAG=0; its own plan and summary are
# dropped.  Returns 1 if the sub-run's summary line is
# missing (it ended early).  Read a file or < <(cmd), not a pipe: the
# counts must stay in this shell.
tap_relay() {
	local prefix=$1 line name summary=1
	while IFS= read -r line; do
		case "$line" in
		"ok "* | "not ok "*)
			if [[ $line =~ ^(not\ )?ok\ ([0-9]+\ )?-\ (.*)$ ]]; then
				name=${BASH_REMATCH[3]}
			else
				name=${line#*ok }
			fi
			if [ -n "${BASH_REMATCH[1]}" ]; then
				tap_fail "$prefix$name"
			elif [[ $name =~ ^(.*)\ \#\ SKIP\ ?(.*)$ ]]; then
				tap_skip "$prefix${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
			else
				tap_ok "$prefix$name"
			fi
			;;
		[0-9]*" passed, "[0-9]*" failed") summary=0 ;;
		"1.."[0-9]*) ;;
		"") ;;
		*)
			[ "${TAP_DIAG:-1}" = 0 ] && continue
			case "$line" in
			"#"*) echo "$line" ;;
			*) echo "# $line" ;;	# anything else it said
			esac
			;;
		esac
	done
	return $summary
}

# tap_done : the plan and the summary; fails if a test failed.
tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_SKIPPED" -eq 0 ] || echo "# $TAP_SKIPPED skipped"
	echo "$TAP_PASSED passed, $TAP_FAILED failed"
	[ "$TAP_FAILED" -eq 0 ]
}
