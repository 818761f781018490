#!/bin/bash
# abi-check.sh - the library boundary holds:
#   - build/libnetcoll.so exports exactly the functions the public headers
#     declare (scripts/abi-symbols.sh), all in the version script, under
#     the soname libnetcoll.so.<major>; nothing else is visible;
#   - debian/libnetcoll0.symbols (the Debian symbols file) names exactly
#     the version script's symbols, each under its version node;
#   - the public headers are self-contained: a C program that includes
#     only them (no uapi, no kernel header) builds and links against the
#     shared library, as an application would; each header compiles on
#     its own, as C11 with -Wpedantic and as C++;
#   - README.md names the wire version uapi/linux/netcoll.h defines.
set -euo pipefail
cd "$(dirname "$0")/.."
so=build/libnetcoll.so
[ -e "$so" ] || { echo "abi-check: $so missing (make user)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

scripts/abi-symbols.sh >"$tmp/headers"
nm -D --defined-only "$so" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' |
	sort >"$tmp/exported"
sed -n 's/^\t\(nc_[a-z0-9_]*\);$/\1/p' userlib/libnetcoll.map | sort >"$tmp/map"
status=0
if ! diff -u "$tmp/headers" "$tmp/exported" >"$tmp/d1"; then
	echo "abi-check: exported functions differ from the public headers (- header, + exported):"
	sed -n '3,$p' "$tmp/d1" | grep '^[-+]'
	status=1
fi
if ! diff -u "$tmp/headers" "$tmp/map" >"$tmp/d2"; then
	echo "abi-check: userlib/libnetcoll.map differs from the public headers (- header, + map):"
	sed -n '3,$p' "$tmp/d2" | grep '^[-+]'
	status=1
fi
other=$(nm -D --defined-only "$so" | awk '$2 != "T" && $2 != "A" { print $3 }')
if [ -n "$other" ]; then
	echo "abi-check: other exported symbols: $other"
	status=1
fi
# name@NODE for every symbol of the version script, and the same from the
# symbols file (dpkg-gensymbols checks that file against the built library).
awk '/^NETCOLL_[0-9.]+ *\{/ { node = $1 }
     /^\tnc_[a-z0-9_]*;$/ { s = $1; sub(/;$/, "", s); print s "@" node }' \
	userlib/libnetcoll.map | sort >"$tmp/map-nodes"
awk '/^ nc_/ { print $1 }' debian/libnetcoll0.symbols | sort >"$tmp/deb-symbols"
if ! diff -u "$tmp/map-nodes" "$tmp/deb-symbols" >"$tmp/d3"; then
	echo "abi-check: debian/libnetcoll0.symbols differs from the version script (- map, + symbols):"
	sed -n '3,$p' "$tmp/d3" | grep '^[-+]'
	status=1
fi
major=$(awk '$2 == "NC_LIB_VERSION_MAJOR" { print $3 }' userlib/include/netcoll.h)
soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
if [ "$soname" != "libnetcoll.so.$major" ]; then
	echo "abi-check: soname $soname, want libnetcoll.so.$major"
	status=1
fi

cat >"$tmp/app.c" <<'C'
#include <netcoll.h>
#include <netcoll_plan.h>
#include <stdio.h>

int main(void)
{
	struct nc_red_args a = { .comp_mask = 0, .count = 1 };
	uint32_t parents[8];

	(void)a;
	if (nc_tree_fnomial(8, 2, NULL, parents))
		return 1;
	printf("%s\n", nc_strerror(-NC_ENOMODULE));
	return 0;
}
C
if ! cc -std=c99 -Wall -Wextra -Werror -Iuserlib/include -o "$tmp/app" "$tmp/app.c" \
	-Lbuild -lnetcoll 2>"$tmp/cc"; then
	echo "abi-check: an application using only the public headers does not build:"
	cat "$tmp/cc"
	status=1
elif ! LD_LIBRARY_PATH=build "$tmp/app" >/dev/null; then
	echo "abi-check: that application does not run against $so"
	status=1
fi
# Each public header alone, first in its translation unit: as C (C11,
# pedantic) and as C++ (when a C++ compiler is installed), warnings as
# errors.  A header that leans on another one being included first, or
# on a C-only construct, fails here.
cxx=${CXX:-c++}
command -v "$cxx" >/dev/null 2>&1 || cxx=
for h in userlib/include/*.h; do
	name=$(basename "$h")
	if ! printf '#include <%s>\n' "$name" |
		cc -std=c11 -Wall -Wextra -Wpedantic -Werror -Iuserlib/include \
			-fsyntax-only -x c - 2>"$tmp/h"; then
		echo "abi-check: $name does not compile on its own as C11:"
		cat "$tmp/h"
		status=1
	fi
	if [ -n "$cxx" ] && ! printf '#include <%s>\n' "$name" |
		"$cxx" -Wall -Wextra -Wpedantic -Werror -Iuserlib/include \
			-fsyntax-only -x c++ - 2>"$tmp/h"; then
		echo "abi-check: $name does not compile on its own as C++:"
		cat "$tmp/h"
		status=1
	fi
done
# The design card names the wire version hosts must share: the header's.
wire=$(sed -n 's/^#define NETCOLL_WIRE_VERSION[[:space:]]*\([0-9]*\).*/\1/p' \
	uapi/linux/netcoll.h)
if ! grep -q "^- \*\*Wire (version $wire;" README.md; then
	echo "abi-check: README.md's \"Wire (version N; ...)\" is not uapi's $wire"
	status=1
fi
[ -n "$cxx" ] || echo "abi-check: no C++ compiler (${CXX:-c++}): C++ not checked"
[ $status -eq 0 ] && echo "abi-check: $(wc -l <"$tmp/headers") functions exported, $soname, headers self-contained (each alone as C11${cxx:+ and as C++})"
exit $status
