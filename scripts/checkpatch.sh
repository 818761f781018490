#!/bin/bash
# checkpatch.pl --strict over the kernel-side sources, from Debian's linux-source.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build/checkpatch
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n1)
	[ -n "$tarball" ] || { echo "checkpatch: install linux-source (make deps)" >&2; exit 1; }
	top=$(basename "$tarball" .tar.xz)
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
fi
files=$(ls kmod/*.c kmod/*.h kmod/shared/*.h uapi/linux/*.h | grep -v '\.mod\.c$')
status=0
for f in $files; do
	out=$(perl "$dir/scripts/checkpatch.pl" --no-tree --strict --quiet -f "$f" 2>&1) || status=1
	[ -z "$out" ] || { echo "$out"; status=1; }
done
[ $status -eq 0 ] && echo "checkpatch: $(echo "$files" | wc -w) files clean"
exit $status
