#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_apps.sh's report: the tables of docs/apps-bench.md from the runs' logs.

  apps_report.py LOG AR_RUNS RUNS PARTS

LOG: the benchmark's log directory; AR_RUNS: the allreduce part's runs,
"mode:wait:round ..."; RUNS: the FFT's and hpcc's, "mode:round ...";
PARTS: "allreduce fft hpcc" or a part of it.  A file of its own so that a
report can be made again from the logs of a run, on the host, without
running it again.

hpcc is reported by its own figures (hpccoutf.txt's summary), not by wall
time: its latency-bandwidth part sizes its loops from a first ping-pong,
so a faster first ping-pong makes that part last longer, not shorter.
"""
import math
import os
import re
import statistics
import sys
log = sys.argv[1]
ar_runs = [r.split(":") for r in sys.argv[2].split()]
runs = [r.split(":") for r in sys.argv[3].split()]
parts = sys.argv[4].split()

def read(path):
    try:
        return open(path).read()
    except OSError:
        return ""

def summary(name):
    d = {}
    for line in read(os.path.join(log, name, "hpccoutf.txt")).splitlines():
        m = re.match(r"^(\w+)=(\S+)$", line)
        if m:
            d[m.group(1)] = m.group(2)
    return d

def calls(name):
    return "; ".join(l.split(" ", 1)[1] for l in read(os.path.join(log, name + ".log")).splitlines()
                     if l.startswith("netcoll-mpi: MPI_"))

def ar_table():
    # (waiting, size) -> mode -> [p50 of each run]
    d, verdict = {}, {}
    for mode, wait, i in ar_runs:
        out = read(os.path.join(log, "ar-%s-%s-%s.log" % (mode, wait, i)))
        for m in re.finditer(r"^allreduce (\d+) ([\d.]+) ([\d.]+) (\d+)$", out, re.M):
            d.setdefault((wait, int(m.group(1))), {}).setdefault(mode, []).append(float(m.group(2)))
        v = ("right" if "results right" in out else "WRONG" if "WRONG RESULTS" in out
             else "not reported (the run ended early: %s)" % (
                 "; ".join(sorted(set(re.findall(r"MPI_Allreduce: ([^\n]+)", out)))) or "see its log"))
        verdict[mode] = v if verdict.get(mode, "right") == "right" else verdict[mode]
    if not d:
        return
    print("\n## MPI_Allreduce (doubles, MPI_SUM), p50 in ms\n")
    print("The same binary (`allreduce_bench`), each mode in turn: Open MPI alone;")
    print("with libnetcoll-mpi.so and `NETCOLL_RSAG_MIN=0` (every size on the kernel's")
    print("aggregation trees: `NETCOLL_ALLREDUCE_MCAST_MAX=0`, every result down them,")
    print("\"trees\"; `NETCOLL_ALLREDUCE_MCAST_MIN=32768`, results of 32 KiB and more")
    print("multicast, the default, \"mcast\"); with `NETCOLL_RSAG_MIN=1` (every size as the library's")
    print("reduce-scatter + allgather on the kernel's alltoall); with")
    print("`NETCOLL_MPI_ALLREDUCE_TUNE=1` (each size the way that measured fastest at")
    print("MPI_Init, Open MPI's own included: \"tuned\"). Each cell is the")
    print("median over the runs of each run's p50 (an iteration lasts until its")
    print("slowest rank is done). Results checked: " +
          ", ".join("%s %s" % (k, v) for k, v in sorted(verdict.items())) + ".")
    print("Open MPI's waiting ranks (every mode): spin, its default, or yield")
    print("(`mpi_yield_when_idle`). The emulated hosts share the guest's CPUs: a")
    print("spinning rank takes CPU from every other host, which on a real cluster")
    print("it could not; spinning favours netcoll, yielding Open MPI.\n")
    title = {"mpi": "Open MPI", "trees": "netcoll trees", "trees1": "trees, one frame an skb",
             "mcast": "trees, results multicast",
             "rsag": "netcoll RS+AG", "tuned": "tuned"}
    modes = [m for m in title if any(m in row for row in d.values())]
    print("| waiting ranks | bytes | " + " | ".join(title[m] for m in modes) +
          " | best netcoll / Open MPI (speed-up) | tuned / Open MPI |")
    print("|---|---:|" + "---:|" * (len(modes) + 2))
    for wait, size in sorted(d, key=lambda k: (k[0] != "spin", k)):
        row = d[(wait, size)]
        med = {k: statistics.median(v) / 1000 for k, v in row.items()}
        best = min([med[k] for k in ("trees", "mcast", "rsag") if k in med] or [0])
        ratio = "%.2f" % (med["mpi"] / best) if best and "mpi" in med else "?"
        tuned = "%.2f" % (med["mpi"] / med["tuned"]) if med.get("tuned") and "mpi" in med else "?"
        print("| %s | %d | %s | %s | %s |" % (
            wait, size, " | ".join("%.2f" % med[k] if k in med else "?" for k in modes), ratio, tuned))
    for mode, wait, i in ar_runs:
        if mode == "tuned":
            out = read(os.path.join(log, "ar-%s-%s-%s.log" % (mode, wait, i)))
            picks = re.findall(r"^netcoll-mpi: MPI_Allreduce of (\d+) bytes .*: (\S+)$", out, re.M)
            print("\nMeasured at MPI_Init, run %s (%s): %s." % (i, wait, ", ".join(
                "%s B %s" % p for p in picks) or "nothing (see its log)"))

if "allreduce" in parts:
    ar_table()
if "fft" not in parts and "hpcc" not in parts:
    sys.exit(0)

def fft_table():
    print("\n## FFTW MPI 3-D FFT\n")
    print("| run | mode | transforms (s) | max rel. error | checksum | verdict |")
    print("|---:|---|---:|---:|---|---|")
    times = {}
    for mode, i in runs:
        out = read(os.path.join(log, "fft-%s-%s.log" % (mode, i)))
        m = re.search(r"transforms in ([\d.]+) s, max relative error (\S+), checksum (\w+): (\w+)", out)
        if m:
            print("| %s | %s | %s | %s | %s | %s |" % (i, mode, m.group(1), m.group(2), m.group(3), m.group(4)))
            if m.group(4) == "ok":
                times.setdefault(mode, []).append(float(m.group(1)))
        else:
            print("| %s | %s | failed | | | |" % (i, mode))
    side_by_side("The FFT", [("transforms (s)", False, times)])

# hpcc's headline figures, as its summary names them: (key, title, unit,
# True when more is better, scale to the unit, the ping-pong pairs it is
# the worst of: "latency", "bandwidth" or None).  Each takes part in the
# communication the interposer may take (collectives) or not (point to
# point); the embarrassingly parallel Star and Single kernels are left out.
FIGURES = [
    ("HPL_Tflops", "HPL", "Gflop/s", True, 1e3, None),
    ("PTRANS_GBs", "PTRANS", "GB/s", True, 1, None),
    ("MPIFFT_Gflops", "MPIFFT", "Gflop/s", True, 1, None),
    ("MPIRandomAccess_GUPs", "MPIRandomAccess", "MUP/s", True, 1e3, None),
    ("MPIRandomAccess_LCG_GUPs", "MPIRandomAccess (LCG)", "MUP/s", True, 1e3, None),
    ("MaxPingPongLatency_usec", "max ping-pong latency", "us", False, 1, "latency"),
    ("RandomlyOrderedRingLatency_usec", "random-ring latency", "us", False, 1, None),
    ("MinPingPongBandwidth_GBytes", "min ping-pong bandwidth", "MB/s", True, 1e3, "bandwidth"),
    ("NaturallyOrderedRingBandwidth_GBytes", "natural-ring bandwidth", "MB/s", True, 1e3, None),
    ("RandomlyOrderedRingBandwidth_GBytes", "random-ring bandwidth", "MB/s", True, 1e3, None),
]
# hpcc's timed kernels: (key, title); MPIFFT_forward: its forward
# transform, the sum of its stages' times (MPIFFT_time0..6).
TIMES = [("HPL_time", "HPL"), ("PTRANS_time", "PTRANS"), ("MPIFFT_forward", "MPIFFT forward"),
         ("MPIRandomAccess_time", "MPIRandomAccess"),
         ("MPIRandomAccess_LCG_time", "MPIRandomAccess (LCG)")]
CHECKS = [("MPIFFT_maxErr", "MPIFFT max error"), ("HPL_RnormI", "HPL residual"),
          ("MPIRandomAccess_ErrorsFraction", "RandomAccess errors")]


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def fmt(v):
    return "?" if v is None else "%.4g" % v


def pairs(name):
    """How many ping-pong pairs hpcc measured: {"latency": n, "bandwidth": n}.

    It plans from a first ping-pong: one that took 16 ms (the other ranks
    spinning in Open MPI's broadcast) leaves time for 12 of 240 pairs, one
    of 0.06 ms (them asleep in netcoll's) for all.  The worst of 240 pairs
    is no figure to set beside the worst of 12.
    """
    out = read(os.path.join(log, name, "hpccoutf.txt"))
    return {m.group(2): int(m.group(1)) for m in
            re.finditer(r"-\s+(\d+) pairs of processes for (latency|bandwidth) benchmarking", out)}


def hpcc_table():
    print("\n## hpcc, by its own figures\n")
    print("Each run's figures as hpcc's summary (`hpccoutf.txt`) gives them, in the")
    print("units of the header; its own checks alongside.\n")
    print("| run | mode | Success | " + " | ".join("%s (%s)" % (f[1], f[2]) for f in FIGURES) +
          " | ping-pong pairs (latency, bandwidth) | " + " | ".join(c[1] for c in CHECKS) + " |")
    print("|---:|---|---|" + "---:|" * (len(FIGURES) + 1 + len(CHECKS)))
    values = {}  # key -> mode -> [(value, ping-pong pairs or None)]
    for mode, i in runs:
        s = summary("hpcc-%s-%s" % (mode, i))
        n = pairs("hpcc-%s-%s" % (mode, i))
        row = []
        for key, _, _, _, scale, of in FIGURES:
            v = num(s.get(key))
            v = None if v is None else v * scale
            if v is not None and s.get("Success") == "1":
                values.setdefault(key, {}).setdefault(mode, []).append((v, n.get(of)))
            row.append(fmt(v))
        print("| %s | %s | %s | %s | %s, %s | %s |" % (
            i, mode, s.get("Success", "failed"), " | ".join(row), n.get("latency", "?"),
            n.get("bandwidth", "?"), " | ".join(s.get(c[0], "?") for c in CHECKS)))
    print("\nThe kernels' own times (s), the work the rates above divide:\n")
    print("| run | mode | " + " | ".join(t[1] for t in TIMES) + " |")
    print("|---:|---|" + "---:|" * len(TIMES))
    for mode, i in runs:
        s = summary("hpcc-%s-%s" % (mode, i))
        s["MPIFFT_forward"] = sum(num(s.get("MPIFFT_time%d" % k)) or 0 for k in range(7)) or None
        print("| %s | %s | %s |" % (i, mode, " | ".join(fmt(num(s.get(t[0]))) for t in TIMES)))
    print("\nThe latency-bandwidth part has no such time: it sizes its loops from a")
    print("first ping-pong, so a faster first ping-pong makes it last longer.")
    rows = []
    for key, title, unit, better, _, of in FIGURES:
        d = values.get(key, {})
        title = "%s (%s)" % (title, unit)
        plain = {k: [v for v, _ in runs_] for k, runs_ in d.items()}
        counts = {k: sorted({p for _, p in runs_}) for k, runs_ in d.items()}
        if not of or len({p for c in counts.values() for p in c}) < 2:
            rows.append((title, better, plain))
            continue
        rows.append((title, better, plain, "not comparable: the worst of %s pairs" % ", ".join(
            "%s (%s)" % ("/".join(str(p) for p in c), MODE_TITLE.get(k, k))
            for k, c in sorted(counts.items()))))
        # the runs of either mode that measured as many pairs, if any did
        common = set.intersection(*(set(c) for c in counts.values()))
        for p in sorted(common, reverse=True)[:1]:
            rows.append(("%s, runs that measured %d pairs" % (title, p), better,
                         {k: [v for v, q in runs_ if q == p] for k, runs_ in d.items()}))
    side_by_side("hpcc", rows)


MODE_TITLE = {"mpi": "Open MPI", "netcoll": "with netcoll"}

# Runs of each mode a verdict takes: with 3 and 3, runs that do not
# overlap come by chance once in 10.
MIN_RUNS = 3


def side_by_side(what, rows):
    """rows: (title, more_is_better, {mode: [value of each run]}[, why
    the modes' figures are not comparable])."""
    if not any("mpi" in r[2] and "netcoll" in r[2] for r in rows):
        return
    n = max(len(r[2].get("mpi", [])) for r in rows)
    m = max(len(r[2].get("netcoll", [])) for r in rows)
    print("\n### %s side by side\n" % what)
    print("Means over the runs (lowest-highest). Speed-up: with netcoll over Open")
    print("MPI alone, inverted for times and latencies: more than 1 is netcoll")
    print("faster. A verdict only where the runs do not overlap, every run of one")
    print("mode better than every run of the other, and only from %d runs of each" % MIN_RUNS)
    if min(n, m) >= MIN_RUNS:
        print("on: with %d and %d runs that happens by chance alone once in %d when" % (
            n, m, math.comb(n + m, n) // 2))
        print("the modes do not differ.")
    else:
        print("on (here %d and %d)." % (n, m))
    print()
    print("| figure | Open MPI | with netcoll | speed-up | verdict |")
    print("|---|---:|---:|---:|---|")
    for title, better, d, *apart in rows:
        a, b = d.get("mpi", []), d.get("netcoll", [])
        if not a or not b:
            print("| %s | %s | %s | ? | |" % (title, cell(a), cell(b)))
            continue
        ma, mb = statistics.mean(a), statistics.mean(b)
        speed = (mb / ma if better else ma / mb) if ma and mb else None
        above, below = min(b) > max(a), max(b) < min(a)
        if apart and apart[0]:
            verdict = apart[0]
        elif min(len(a), len(b)) < MIN_RUNS:
            verdict = ""
        elif above or below:
            verdict = "faster" if above == better else "SLOWER"
        else:
            verdict = "within the runs' spread"
        print("| %s | %s | %s | %s | %s |" % (title, cell(a), cell(b),
                                              "?" if speed is None else "%.2f" % speed, verdict))


def cell(v):
    if not v:
        return "?"
    return "%s (%s-%s)" % (fmt(statistics.mean(v)), fmt(min(v)), fmt(max(v)))


if "fft" in parts:
    fft_table()
if "hpcc" in parts:
    hpcc_table()
print("\n## Where the calls went (netcoll runs, summed over the ranks)\n")
for app in ("fft", "hpcc"):
    if app in parts:
        print("- %s: %s" % (app, calls("%s-netcoll-1" % app) or "?"))
