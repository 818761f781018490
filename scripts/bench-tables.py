#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Turn the tables of a benchmark report (docs/*-bench.md) into gnuplot data.

  bench-tables.py alltoall REPORT OUTDIR   one OUTDIR/a2a-<topology>.dat per
      "## <topology>" section: blocks (gnuplot index) per order, rows
      "size_kib mbit_s bound_mbit_s"; prints "<topology> <order>,<order>..."
  bench-tables.py reduce REPORT OUTDIR     OUTDIR/reduce.dat from section
      (a): blocks per (transport, noise), rows "size_label p50 p99 max" in us;
      prints the block names in order
  bench-tables.py loss REPORT OUTDIR       OUTDIR/loss.dat, rows "operation
      slowdown_at_each_loss..." (wall time over the clean one, "?" for a
      line that failed); prints the loss rates, comma separated
  bench-tables.py auth REPORT OUTDIR       OUTDIR/auth-a2a.dat, rows
      "kib none keyed" (Mbit/s), and OUTDIR/auth-red.dat, rows "kib none
      keyed" (p50 us)

The reports are the benchmarks' only output format, so the plots are drawn
from exactly the numbers a reader sees in the tables.
"""
import os
import re
import sys


def tables(path):
    """Yield (section title, header cells, rows) for every table."""
    section, header, rows = "", None, []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("## "):
            section = line[3:].strip()
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if header is None:
                header = cells
            elif not all(re.fullmatch(r":?-+:?", c) for c in cells):
                rows.append(cells)
            continue
        if header is not None:
            yield section, header, rows
            header, rows = None, []
    if header is not None:
        yield section, header, rows


def kib(label):
    num, unit = label.split()
    return float(num) * {"B": 1 / 1024, "KiB": 1, "MiB": 1024}[unit]


def alltoall(report, outdir):
    for section, header, rows in tables(report):
        if header[:3] != ["size/peer", "order", "p50 ms"]:
            continue
        topo = section.split(":")[0].strip()
        col = {h: i for i, h in enumerate(header)}
        orders = []
        by_order = {}
        for r in rows:
            if r[col["p50 ms"]] in ("failed", ""):
                continue
            mbit = float(r[col["Mbit/s"]])
            p50, bound = float(r[col["p50 ms"]]), float(r[col["bound ms"]])
            o = r[col["order"]]
            if o not in by_order:
                orders.append(o)
                by_order[o] = []
            # the bound's throughput: the same bytes in the bound's time
            by_order[o].append((kib(r[col["size/peer"]]), mbit, mbit * p50 / bound))
        with open(os.path.join(outdir, "a2a-%s.dat" % topo), "w") as f:
            for o in orders:
                f.write("# %s\n" % o)
                for row in by_order[o]:
                    f.write("%g %g %g\n" % row)
                f.write("\n\n")
        print(topo, ",".join(orders))


def reduce(report, outdir):
    for section, header, rows in tables(report):
        if header[:3] != ["size", "transport", "noise"]:
            continue
        blocks, names = {}, []
        for r in rows:
            name = "%s, noise %s" % (r[1], r[2])
            if name not in blocks:
                names.append(name)
                blocks[name] = []
            blocks[name].append((r[0].replace(" ", ""), r[3], r[4], r[5]))
        with open(os.path.join(outdir, "reduce.dat"), "w") as f:
            for n in names:
                f.write("# %s\n" % n)
                for row in blocks[n]:
                    f.write("%s %s %s %s\n" % row)
                f.write("\n\n")
        print("\n".join(names))
        return


def loss(report, outdir):
    for _, header, rows in tables(report):
        if header[:3] != ["operation", "loss", "wall time"]:
            continue
        ops, by_op, rates = [], {}, []
        for r in rows:
            op, rate = r[0], r[1]
            if op not in by_op:
                ops.append(op)
                by_op[op] = {}
            if rate not in rates:
                rates.append(rate)
            done, failed = int(r[3]), int(r[4])
            by_op[op][rate] = None if failed else float(r[2].split()[0])
        clean, lossy = rates[0], rates[1:]
        with open(os.path.join(outdir, "loss.dat"), "w") as f:
            for op in ops:
                t0 = by_op[op].get(clean)
                cells = []
                for rate in lossy:
                    t = by_op[op].get(rate)
                    cells.append("?" if not t or not t0 else "%g" % (t / t0))
                f.write('"%s" %s\n' % (op, " ".join(cells)))
        print(",".join(lossy))
        return


def auth(report, outdir):
    for section, header, rows in tables(report):
        name = {"Alltoall throughput": "auth-a2a.dat",
                "Allreduce latency (double sum)": "auth-red.dat"}.get(section)
        if not name:
            continue
        with open(os.path.join(outdir, name), "w") as f:
            for r in rows:
                f.write("%g %s %s\n" % (kib(r[0]), r[1], r[2]))


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("alltoall", "reduce", "loss", "auth"):
        sys.exit(__doc__)
    globals()[sys.argv[1]](sys.argv[2], sys.argv[3])
