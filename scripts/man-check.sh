#!/bin/bash
# The man pages stay valid and complete:
#   - every page lints clean: man --warnings, groff -ww and, when installed,
#     mandoc -T lint (style notes included);
#   - every word nctl's dispatch compares its arguments with (objects,
#     commands, keywords, schedule kinds) appears in nctl.8;
#   - every long option of ncbench, and every --op, --dist and --transport
#     value, appears in ncbench.1, and ncbench.1 names no option that
#     ncbench does not have;
#   - the SEE ALSO references between the project's pages resolve;
#   - the example program of libnetcoll.3 compiles against build/libnetcoll.a
#     (skipped, not failed, before `make user`).
# TAP lines through selftests/lib/tap.sh, then "N passed, N failed".
#
#   scripts/man-check.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

NCTL_MAN=tools/nctl/nctl.8
NCBENCH_MAN=tools/ncbench/ncbench.1
LIB_MAN=userlib/libnetcoll.3
PAGES=$(find tools userlib mpi -name '*.[1-8]' -type f | sort)

# shellcheck source=../selftests/lib/tap.sh
source selftests/lib/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { tap_ok "man: $1"; }
fail() {
	tap_fail "man: $1" "$(cat "$tmp/why")"
	: >"$tmp/why"
}
: >"$tmp/why"

# A page as plain text on one line: no hyphenation, no overstrike, single
# blanks, so that a word can be looked for whatever the line breaks.
render() {
	if command -v mandoc >/dev/null; then
		mandoc -T ascii -O width=250 "$1"
	else
		groff -man -Tascii -rHY=0 -rLL=250n "$1" 2>/dev/null
	fi | sed -e 's/.\x08//g' | tr -s ' \t\n' '   '
}

# has TEXTFILE WORD: WORD stands alone in the text (grep -w rules).
has() { grep -qFw -- "$2" "$1"; }

# --- lint ---------------------------------------------------------------------
have_linter=0
for p in $PAGES; do
	: >"$tmp/why"
	if command -v man >/dev/null; then
		have_linter=1
		man --warnings -E UTF-8 -l -Tutf8 -Z "$p" 2>>"$tmp/why" >/dev/null
	fi
	if command -v groff >/dev/null; then
		have_linter=1
		groff -ww -man -z "$p" 2>>"$tmp/why"
	fi
	if command -v mandoc >/dev/null; then
		have_linter=1
		mandoc -T lint "$p" >>"$tmp/why" 2>&1
	fi
	if [ -s "$tmp/why" ]; then fail "lint $p"; else ok "lint $p"; fi
done
if [ $have_linter -eq 0 ]; then
	echo "no man, groff or mandoc: cannot lint" >"$tmp/why"
	fail "lint"
fi

# --- nctl.8 against nctl's dispatch ------------------------------------------
render "$NCTL_MAN" >"$tmp/nctl.txt"
# matches(x, "word"), strcmp(x, "word") == 0, table rows { "word", ... }
# (also designated: [A_ID] = { "id", ... }) and { "letter", "word" } pairs
sed -nE -e 's/.*matches\([^,()]+, "([^"]+)"\).*/\1/p' \
	-e 's/.*strcmp\([^,()]+, "([^"]+)"\) == 0.*/\1/p' \
	-e 's/.*\{ "[^"]+", "([^"]+)" \}.*/\1/p' \
	-e 's/^[[:space:]]*(\[[A-Z0-9_]+\][[:space:]]*=[[:space:]]*)?\{ "([^"]+)",.*/\2/p' \
	tools/nctl/*.c | sort -u >"$tmp/words"
# a line can hold two comparisons: pick up the second ones too
grep -ohE '(matches|strcmp)\([^,()]+, "[^"]+"\)' tools/nctl/*.c |
	sed -E 's/.*"([^"]+)"\)/\1/' >>"$tmp/words"
sort -u -o "$tmp/words" "$tmp/words"
missing=
while IFS= read -r w; do
	[ "$w" = - ] && continue	# "-": standard input, not a keyword
	has "$tmp/nctl.txt" "$w" || missing+=" $w"
done <"$tmp/words"
if [ -z "$missing" ] && [ -s "$tmp/words" ]; then
	ok "nctl.8 has all $(wc -l <"$tmp/words") words of nctl's dispatch"
else
	echo "not in $NCTL_MAN:${missing:- (no words found in tools/nctl/*.c)}" >"$tmp/why"
	fail "nctl.8 has every word of nctl's dispatch"
fi

# --- ncbench.1 against ncbench's options ---------------------------------------
render "$NCBENCH_MAN" >"$tmp/ncbench.txt"
sed -nE 's/^[[:space:]]*\{ "([a-z-]+)",[[:space:]]*(required|no|optional)_argument.*/\1/p' \
	tools/ncbench/ncbench.c | sort -u >"$tmp/longopts"
missing=
while IFS= read -r o; do
	has "$tmp/ncbench.txt" "--$o" || missing+=" --$o"
done <"$tmp/longopts"
# values: the --op table and the strcmp(optarg, ...) of --dist and --transport
{
	grep -oE '\{ "[a-z]+", OP_' tools/ncbench/ncbench.c | sed -E 's/.*"([a-z]+)".*/\1/'
	grep -oE 'strcmp\(optarg, "[a-z]+"\)' tools/ncbench/ncbench.c | sed -E 's/.*"([a-z]+)".*/\1/'
} | sort -u >"$tmp/values"
while IFS= read -r v; do
	has "$tmp/ncbench.txt" "$v" || missing+=" $v"
done <"$tmp/values"
if [ -z "$missing" ] && [ -s "$tmp/longopts" ]; then
	ok "ncbench.1 has all $(wc -l <"$tmp/longopts") long options and $(wc -l <"$tmp/values") values of ncbench"
else
	echo "not in $NCBENCH_MAN:${missing:- (no options found in tools/ncbench/ncbench.c)}" >"$tmp/why"
	fail "ncbench.1 has every option of ncbench"
fi
extra=
while IFS= read -r o; do
	grep -qxF -- "$o" "$tmp/longopts" || extra+=" --$o"
done < <(grep -oE -- '(^|[ (\[{|,])--[a-z][a-z-]*[a-z]' "$tmp/ncbench.txt" |
	 sed -E 's/^[^-]*--//' | sort -u)
if [ -z "$extra" ]; then
	ok "ncbench.1 names no option ncbench lacks"
else
	echo "in $NCBENCH_MAN but not in ncbench.c:$extra" >"$tmp/why"
	fail "ncbench.1 names no option ncbench lacks"
fi

# --- SEE ALSO between the project's pages ------------------------------------
missing=
for p in $PAGES; do
	while IFS= read -r ref; do
		echo "$PAGES" | grep -q "/$ref\$" || missing+=" $p:$ref"
	done < <(sed -nE 's/^\.BR (nctl|ncbench|libnetcoll) \(([1-8])\).*/\1.\2/p' "$p" | sort -u)
done
if [ -z "$missing" ]; then
	ok "references between the pages resolve"
else
	echo "no such page:$missing" >"$tmp/why"
	fail "references between the pages resolve"
fi

# --- the example of libnetcoll.3 compiles --------------------------------------
sed -n '/^\.\\" example-begin/,/^\.\\" example-end/p' "$LIB_MAN" | sed '1d;$d' |
	sed -e 's/\\e/\\/g' -e 's/\\-/-/g' >"$tmp/example.c"
if [ ! -s "$tmp/example.c" ]; then
	echo "no example between .\\\" example-begin and .\\\" example-end" >"$tmp/why"
	fail "libnetcoll.3 example compiles"
elif [ ! -f build/libnetcoll.a ] || ! pkg-config --exists libnl-genl-3.0 json-c 2>/dev/null; then
	tap_skip "man: libnetcoll.3 example compiles" "no build/libnetcoll.a (make user) or libnl, json-c"
elif read -ra nl_libs < <(pkg-config --libs libnl-genl-3.0 json-c) &&
	${CC:-cc} -Wall -Wextra -Werror -Iuserlib/include "$tmp/example.c" \
	build/libnetcoll.a "${nl_libs[@]}" -pthread \
	-o "$tmp/example" >"$tmp/why" 2>&1; then
	ok "libnetcoll.3 example compiles against build/libnetcoll.a"
else
	fail "libnetcoll.3 example compiles"
fi

tap_done
