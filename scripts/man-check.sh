#!/bin/bash
# man-check.sh - the manual pages stay valid and complete:
#   - groff renders every page without a warning;
#   - every long option of ncbench (its getopt table) is in ncbench.1, and
#     every nctl object and command word of the usage texts is in nctl.8;
#   - the example program of libnetcoll.3 builds against the public
#     headers and the shared library.
set -euo pipefail
cd "$(dirname "$0")/.."
pages=(tools/nctl/nctl.8 tools/ncbench/ncbench.1 userlib/libnetcoll.3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for p in "${pages[@]}"; do
	if ! man --warnings -E UTF-8 -l -Tutf8 -Z "$p" >/dev/null 2>"$tmp/w" || [ -s "$tmp/w" ]; then
		echo "man-check: $p:"; cat "$tmp/w"; status=1
	fi
done
# ncbench: long options from its struct option table.
for o in $(sed -n 's/^\t\t{ "\([a-z-]*\)",.*/\1/p' tools/ncbench/ncbench.c); do
	grep -q -- "\\\\-\\\\-${o//-/\\\\-}\\b" tools/ncbench/ncbench.1 ||
		{ echo "man-check: ncbench.1 lacks --$o"; status=1; }
done
# nctl: the words of every "Usage: nctl OBJECT COMMAND" line.
for w in $(grep -ho '"\(Usage: \|       \)nctl [a-z]*\( [a-z]*\)\?' tools/nctl/*.c |
	   sed 's/^.*nctl //; s/ /./' | sort -u); do
	words="nctl ${w/./ }"
	grep -q "${words% }\b" tools/nctl/nctl.8 ||
		{ echo "man-check: nctl.8 lacks '$words'"; status=1; }
done
# libnetcoll.3's example, as the page renders it.
man -l -Tutf8 userlib/libnetcoll.3 2>/dev/null | col -b |
	sed -n '/^EXAMPLE/,/^FILES/p' | sed 's/^       //' | sed -n '/^#include/,/^}/p' >"$tmp/ex.c"
if ! cc -std=c99 -Wall -Wextra -Werror -Iuserlib/include -o "$tmp/ex" "$tmp/ex.c" \
	-Lbuild -lnetcoll 2>"$tmp/cc"; then
	echo "man-check: libnetcoll.3's example does not build:"; cat "$tmp/cc"; status=1
fi
[ $status -eq 0 ] && echo "man-check: ${#pages[@]} pages clean and complete"
exit $status
