#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Describe an InfiniBand fabric for ibsim (its ibnetdiscover-like net file).

    mkfabric.py xgft H M1,..,MH W1,..,WH [--cables C] [--speeds S,...]
                [--host-desc FMT] [--expect FILE]

XGFT(h; m1..mh; w1..wh) (Ohring et al.): level-l switches have m_l children
and each node below level h has w_(l+1) parents; --cables C joins each
switch pair of the top level by C parallel cables.  --speeds gives the
hosts' link speeds in turn (SDR, DDR, QDR; default QDR), all links 4x;
switch links run at the fastest host speed.  Host descriptions follow
--host-desc (default "h%d", numbered from 1; e.g. "n%02d HCA-1").

--expect FILE writes what a correct reader must find: "hosts N",
"switches N", "links N", and one "rate NAME MBIT" per host link.
"""
import argparse
import sys

# ibsim's LinkSpeedEnabled bits, and data rates of one 4x link in Mbit/s
SPEED_BIT = {"SDR": 1, "DDR": 2, "QDR": 4}
RATE_4X = {"SDR": 8000, "DDR": 16000, "QDR": 32000}
WIDTH_4X = 2  # LinkWidthEnabled bit of 4x


def xgft(h, m, w, cables):
    """Nodes by level as label tuples, and the cables (lower, upper)."""
    levels = []
    for lvl in range(h + 1):
        labels = [()]
        # label: (a_h .. a_(lvl+1), b_lvl .. b_1), a_i < m_i, b_i < w_i
        for i in range(h, lvl, -1):
            labels = [x + (a,) for x in labels for a in range(m[i - 1])]
        for i in range(lvl, 0, -1):
            labels = [x + (b,) for x in labels for b in range(w[i - 1])]
        levels.append(labels)
    links = []
    for lvl in range(1, h + 1):
        for lo in levels[lvl - 1]:
            # lo = (a_h..a_lvl, b_(lvl-1)..b_1): parents drop a_lvl and
            # put each b_lvl in its place
            head, tail = lo[:h - lvl], lo[h - lvl + 1:]
            for b in range(w[lvl - 1]):
                up = head + (b,) + tail
                for _ in range(cables if lvl == h and lvl > 1 else 1):
                    links.append(((lvl - 1, lo), (lvl, up)))
    return levels, links


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["xgft"])
    ap.add_argument("h", type=int)
    ap.add_argument("m")
    ap.add_argument("w")
    ap.add_argument("--cables", type=int, default=1)
    ap.add_argument("--speeds", default="QDR")
    ap.add_argument("--host-desc", default="h%d")
    ap.add_argument("--expect")
    a = ap.parse_args()
    m = [int(x) for x in a.m.split(",")]
    w = [int(x) for x in a.w.split(",")]
    speeds = a.speeds.split(",")
    if len(m) != a.h or len(w) != a.h or w[0] != 1:
        sys.exit("mkfabric: want h values of m and of w, w1 = 1")
    top = max(speeds, key=lambda s: SPEED_BIT[s])
    levels, links = xgft(a.h, m, w, a.cables)

    names = {}
    for i, lab in enumerate(levels[0]):
        names[(0, lab)] = a.host_desc % (i + 1)
    for lvl in range(1, a.h + 1):
        for i, lab in enumerate(levels[lvl]):
            names[(lvl, lab)] = "sw%d_%d" % (lvl, i)
    host_speed = {lab: speeds[i % len(speeds)] for i, lab in enumerate(levels[0])}

    ports = {n: [] for n in names}   # node -> [(peer, speed)] in port order
    for lo, up in links:
        sp = host_speed[lo[1]] if lo[0] == 0 else top
        ports[lo].append((up, sp))
        ports[up].append((lo, sp))
    # port numbers of each cable at each end
    cable_port = {}
    for n, plist in ports.items():
        for p, (peer, _) in enumerate(plist, 1):
            cable_port.setdefault((n, peer), []).append(p)

    out = []
    used = {}
    for lvl in range(a.h, -1, -1):
        for lab in levels[lvl]:
            n = (lvl, lab)
            kind = "Hca" if lvl == 0 else "Switch"
            out.append('%s\t%d "%s"' % (kind, max(len(ports[n]), 1), names[n]))
            for p, (peer, sp) in enumerate(ports[n], 1):
                # the k-th cable n->peer meets the k-th cable peer->n
                k = used.get((n, peer), 0)
                used[(n, peer)] = k + 1
                rp = cable_port[(peer, n)][k]
                out.append('[%d]\t"%s"[%d]\tw=%d s=%d' %
                           (p, names[peer], rp, WIDTH_4X, SPEED_BIT[sp]))
            out.append("")
    print("\n".join(out))
    if a.expect:
        with open(a.expect, "w") as f:
            f.write("hosts %d\nswitches %d\nlinks %d\n" %
                    (len(levels[0]), sum(len(x) for x in levels[1:]), len(links)))
            for lab in levels[0]:
                f.write("rate %s %d\n" % (names[(0, lab)].split()[0],
                                          RATE_4X[host_speed[lab]]))


if __name__ == "__main__":
    main()
