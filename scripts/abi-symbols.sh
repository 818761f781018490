#!/bin/bash
# abi-symbols.sh - the functions libnetcoll's public headers declare, one
# per line, sorted: what userlib/libnetcoll.map must export.
set -euo pipefail
cd "$(dirname "$0")/.."
# A declaration: a line starting with a type, then nc_name( ; comments and
# the struct bodies do not match (they are indented or start with '*').
cat userlib/include/netcoll.h userlib/include/netcoll_plan.h |
	grep -E '^[a-z][a-z0-9_ ]*[ *](nc_[a-z0-9_]+)\(' |
	sed -E 's/^.*[ *](nc_[a-z0-9_]+)\(.*/\1/' | sort -u
