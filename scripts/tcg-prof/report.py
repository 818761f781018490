#!/usr/bin/env python3
"""Instructions per kernel function from tbprof.c's output.

  report.py PROF KALLSYMS [--top N]
  report.py PROF_A KALLSYMS_A PROF_B KALLSYMS_B [--top N]   (B against A)
  report.py PROF KALLSYMS --lines KO FUNCTION                (per source line)

With two marks in PROF only the phase between them counts. KALLSYMS: the
guest's /proc/kallsyms, read while the module was loaded. --lines needs
the module's .ko with debug info (objdump -dl).
"""
import argparse
import bisect
import collections
import os
import signal
import subprocess


def symbols(kallsyms):
    syms = []
    with open(kallsyms) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[1] in "tTwW" and int(p[0], 16):
                syms.append((int(p[0], 16), p[2] + (" " + p[3] if len(p) > 3 else "")))
    syms.sort()
    return [a for a, _ in syms], syms


def blocks(prof):
    """(vaddr, insns, execs) of each block, in the marked phase if there is one."""
    with open(prof) as f:
        lines = f.read().splitlines()
    marks = max([int(l.split()[2]) for l in lines if l.startswith("# marks")] or [0])
    for line in lines:
        if line.startswith("#"):
            continue
        va, n, e, m0, m1 = (int(x, 16) if i == 0 else int(x) for i, x in enumerate(line.split()))
        yield va, n, (m1 - m0 if marks >= 2 else e)


def per_function(prof, kallsyms):
    addrs, syms = symbols(kallsyms)
    c = collections.Counter()
    for va, n, e in blocks(prof):
        i = bisect.bisect_right(addrs, va) - 1
        c[syms[i][1] if i >= 0 else "?"] += n * e
    return c


def per_line(prof, kallsyms, ko, func):
    addrs, syms = symbols(kallsyms)
    start = dict((name.split()[0], a) for a, name in syms)[func]
    nm = subprocess.run(["nm", "--defined-only", ko], capture_output=True, text=True).stdout
    base = next(int(p[0], 16) for p in (l.split() for l in nm.splitlines())
                if len(p) == 3 and p[2] == func)
    dis = subprocess.run(["objdump", "-dl", "--no-show-raw-insn", "--disassemble=" + func, ko],
                         capture_output=True, text=True).stdout
    where, insns, cur = {}, [], "?"
    for line in dis.splitlines():
        s = line.strip()
        if s.startswith("/") and ":" in s:
            cur = os.path.basename(s.split()[0])
            continue
        head = s.split(":")[0]
        if ":" in s and head and all(ch in "0123456789abcdef" for ch in head):
            where[int(head, 16)] = cur
            insns.append(int(head, 16))
    insns.sort()
    c = collections.Counter()
    for va, n, e in blocks(prof):
        i = bisect.bisect_right(addrs, va) - 1
        if i < 0 or syms[i][1].split()[0] != func:
            continue
        k = bisect.bisect_left(insns, base + va - start)
        for a in insns[k:k + n]:
            c[where[a]] += e
    return c


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # a pager or head(1) may stop reading
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--lines", nargs=2, metavar=("KO", "FUNCTION"))
    a = ap.parse_args()
    if a.lines:
        c = per_line(a.files[0], a.files[1], *a.lines)
        total = sum(c.values())
        print("%s: %d instructions" % (a.lines[1], total))
        for k, v in c.most_common(a.top):
            print("%12d %5.1f%%  %s" % (v, 100 * v / total, k))
        return
    x = per_function(a.files[0], a.files[1])
    if len(a.files) < 4:
        total = sum(x.values())
        print("total %d" % total)
        for k, v in x.most_common(a.top):
            print("%12d %5.2f%%  %s" % (v, 100 * v / total, k))
        return
    y = per_function(a.files[2], a.files[3])
    tx, ty = sum(x.values()), sum(y.values())
    mx = sum(v for k, v in x.items() if k.endswith("[netcoll]"))
    my = sum(v for k, v in y.items() if k.endswith("[netcoll]"))
    print("total %d -> %d (%.3f); netcoll %d -> %d" % (tx, ty, ty / tx, mx, my))
    for k in sorted(set(x) | set(y), key=lambda k: -abs(y[k] - x[k]))[:a.top]:
        print("%12d %12d %+12d  %s" % (x[k], y[k], y[k] - x[k], k))


if __name__ == "__main__":
    main()
