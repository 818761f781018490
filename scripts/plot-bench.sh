#!/bin/bash
# Plots of the benchmark reports, drawn with gnuplot from their tables
# (scripts/bench-tables.py), committed next to them:
#   DIR/plots/alltoall-<topology>.svg  alltoall throughput against message
#       size, one line per order, and the physical bound's throughput;
#   DIR/plots/reduce-latency.svg       allreduce latency distribution
#       (p50, bar to p99, max) in the kernel and over UDP, quiet and noisy;
#   DIR/plots/loss-slowdown.svg        each collective's wall time under
#       loss over its clean time, per loss rate, with the 2x goal;
#   DIR/plots/auth-alltoall.svg, auth-allreduce.svg  keyed against unkeyed.
# Each report gets (or has replaced) a last section "## Plots" linking them.
# --dumb FILE: also print the alltoall plot of topology FILE's name (or the
# first) as text on stdout, for a terminal (make demo).
#
#   scripts/plot-bench.sh DIR [--dumb TOPOLOGY]
set -euo pipefail
dir=${1:?usage: plot-bench.sh DIR [--dumb TOPOLOGY]}
dumb=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
command -v gnuplot >/dev/null || { echo "plot-bench: gnuplot missing (make deps)" >&2; exit 1; }
out=$dir/plots
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# alltoall_plot DAT ORDERS TITLE TERMINAL-LINES
alltoall_plot() {
	local dat=$1 orders=$2 title=$3 term=$4 i=0 o plot=""
	IFS=, read -r -a list <<<"$orders"
	for o in "${list[@]}"; do
		plot+="'$dat' index $i using 1:2 with linespoints title '$o', "
		i=$((i + 1))
	done
	# the bound is the same for every order: draw it from the first block
	plot+="'$dat' index 0 using 1:3 with lines dashtype 2 lw 2 lc rgb 'black' title 'physical bound'"
	gnuplot <<-GP
	$term
	set title "$title"
	set logscale x 2
	set xlabel "message size per peer (KiB)"
	set ylabel "aggregate throughput (Mbit/s)"
	set yrange [0:*]
	set key outside right
	set grid
	plot $plot
	GP
}

report=$dir/alltoall-bench.md
if [ -f "$report" ]; then
	"$here/bench-tables.py" alltoall "$report" "$tmp" >"$tmp/a2a.list"
	while read -r topo orders; do
		alltoall_plot "$tmp/a2a-$topo.dat" "$orders" "alltoall on $topo (p50 of each size)" \
			"set terminal svg size 800,440 dynamic font 'sans,11'; set output '$out/alltoall-$topo.svg'"
		if [ -n "$dumb" ] && { [ "$dumb" = "$topo" ] || [ "$dumb" = first ]; }; then
			alltoall_plot "$tmp/a2a-$topo.dat" "$orders" "alltoall on $topo" \
				"set terminal dumb size 100,24"
			dumb=""
		fi
	done <"$tmp/a2a.list"
fi

report=$dir/reduce-bench.md
if [ -f "$report" ]; then
	mapfile -t blocks < <("$here/bench-tables.py" reduce "$report" "$tmp")
	n=${#blocks[@]}
	plot=""
	for i in "${!blocks[@]}"; do
		# sizes side by side, the transports/noise levels grouped around each
		x="(\$0 + ($i - ($n - 1) / 2.0) * 0.15)"
		plot+="'$tmp/reduce.dat' index $i using $x:2:2:3 with yerrorbars lc $((i + 1)) pt 7 title '${blocks[$i]}: p50 to p99', "
		plot+="'$tmp/reduce.dat' index $i using $x:4 with points lc $((i + 1)) pt 2 notitle, "
	done
	plot+="'$tmp/reduce.dat' index 0 using 0:(NaN):xtic(1) notitle, "
	gnuplot <<-GP
	set terminal svg size 800,440 dynamic font 'sans,11'
	set output '$out/reduce-latency.svg'
	set title "allreduce on 8 hosts: latency distribution (x: max)"
	set logscale y
	set ylabel "latency (us)"
	set xlabel "vector size"
	set xrange [-0.5:*]
	set offsets 0, 0.5, 0, 0
	set key top left
	set grid ytics
	plot ${plot%, }
	GP
fi
report=$dir/loss-bench.md
if [ -f "$report" ]; then
	rates=$("$here/bench-tables.py" loss "$report" "$tmp")
	IFS=, read -r -a list <<<"$rates"
	plot=""
	for i in "${!list[@]}"; do
		plot+="'$tmp/loss.dat' using $((i + 2)):xtic(1) title '${list[$i]} loss', "
	done
	gnuplot <<-GP
	set terminal svg size 800,440 dynamic font 'sans,11'
	set output '$out/loss-slowdown.svg'
	set title "under loss on every cable: wall time over the clean run's"
	set style data histograms
	set style histogram clustered gap 1
	set style fill solid 0.8 border -1
	set datafile missing '?'
	set logscale y 2
	set yrange [0.5:*]
	set ylabel "slowdown (x, log scale)"
	set xtics rotate by -25
	set key top left
	set grid ytics
	plot ${plot}2 with lines dashtype 2 lw 2 lc rgb 'black' title 'goal: 2x'
	GP
fi

report=$dir/auth-bench.md
if [ -f "$report" ]; then
	"$here/bench-tables.py" auth "$report" "$tmp"
	gnuplot <<-GP
	set terminal svg size 800,440 dynamic font 'sans,11'
	set output '$out/auth-alltoall.svg'
	set title "alltoall on 8 hosts: throughput without and with frame authentication"
	set logscale x 2
	set xlabel "message size per peer (KiB)"
	set ylabel "aggregate throughput (Mbit/s)"
	set yrange [0:*]
	set key top left
	set grid
	plot '$tmp/auth-a2a.dat' using 1:2 with linespoints title 'no key', \
	     '$tmp/auth-a2a.dat' using 1:3 with linespoints title 'HMAC-SHA256 keyed'
	set output '$out/auth-allreduce.svg'
	set title "allreduce on 8 hosts: p50 latency without and with frame authentication"
	set xlabel "vector size (KiB)"
	set ylabel "p50 latency (us)"
	set logscale y
	set yrange [*:*]
	plot '$tmp/auth-red.dat' using 1:2 with linespoints title 'no key', \
	     '$tmp/auth-red.dat' using 1:3 with linespoints title 'HMAC-SHA256 keyed'
	GP
fi

# plots_section REPORT SVG... : REPORT's last section links the plots.
plots_section() {
	local report=$1 f
	shift
	python3 - "$report" <<'PY'
import sys
p = sys.argv[1]
text = open(p, encoding="utf-8").read()
i = text.find("\n## Plots\n")
open(p, "w", encoding="utf-8").write((text if i < 0 else text[:i]).rstrip("\n") + "\n")
PY
	{
		echo
		echo "## Plots"
		echo
		echo "Drawn from the tables above by \`scripts/plot-bench.sh docs\`."
		echo
		for f in "$@"; do
			echo "![$(basename "$f" .svg)](plots/$(basename "$f"))"
			echo
		done
	} >>"$report"
}
# shellcheck disable=SC2046	# one plot name per topology, no spaces
[ ! -f "$dir/alltoall-bench.md" ] ||
	plots_section "$dir/alltoall-bench.md" $(sed 's|^\([^ ]*\) .*|alltoall-\1.svg|' "$tmp/a2a.list")
[ ! -f "$dir/reduce-bench.md" ] || plots_section "$dir/reduce-bench.md" reduce-latency.svg
[ ! -f "$dir/loss-bench.md" ] || plots_section "$dir/loss-bench.md" loss-slowdown.svg
[ ! -f "$dir/auth-bench.md" ] ||
	plots_section "$dir/auth-bench.md" auth-alltoall.svg auth-allreduce.svg
ls "$out"/*.svg
