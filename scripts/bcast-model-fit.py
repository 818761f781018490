#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The broadcast model against measured broadcasts, with a fitted
per-message cost.

    bcast-model-fit.py --nctl NCTL --topology TOPO --degree F RESULTS.json

RESULTS.json is an ncbench --per-rank run (its "results": size and the
slowest rank's mean, rank_mean_us.max) of broadcasts from rank 0 down
the kernel's tree.  The model is `nctl tree bcast` (seed 003: hops x
1 us + size / the slowest link per send, a parent sending to its
children one after another) plus a cost per message, msg-us, added to
every send (nc_bcast_msg_cost).  The links alone put a small broadcast
at microseconds where it takes milliseconds; one cost per send fits it.
msg-us is the one value that minimises the squared log ratios of
measured to model over every size (golden-section search: the model is
the largest of straight lines in msg-us, so the error has one minimum
in practice).  Prints a markdown section: the fitted cost, then per
size the model without and with it, and measured / model.
"""
import argparse
import json
import math
import subprocess
import sys


def model(nctl, topo, degree, size, msg_us, cache={}):
    key = (size, round(msg_us, 3))
    if key not in cache:
        out = subprocess.run(
            [nctl, "-j", "tree", "bcast", "topology", topo, "degree",
             str(degree), "size", str(size), "msg-us", "%.3f" % msg_us],
            check=True, capture_output=True, text=True).stdout
        orders = json.loads(out)["orders"]
        cache[key] = next(o["predicted_us"] for o in orders
                          if o["order"].strip() == "unaware")
    return cache[key]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nctl", default="nctl")
    ap.add_argument("--topology", required=True)
    ap.add_argument("--degree", type=int, required=True)
    ap.add_argument("results")
    a = ap.parse_args()
    res = json.load(open(a.results))["results"]
    meas = [(r["size"], r["rank_mean_us"]["max"]) for r in res
            if r.get("rank_mean_us", {}).get("max")]
    if not meas:
        print("\nNo measured sizes to fit the model to.")
        return 1

    def err(o):
        return sum(math.log(t / model(a.nctl, a.topology, a.degree, s, o)) ** 2
                   for s, t in meas)

    lo, hi = 0.0, max(t for _, t in meas)
    g = (math.sqrt(5) - 1) / 2
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = err(x1), err(x2)
    while hi - lo > 0.5:
        if f1 <= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - g * (hi - lo)
            f1 = err(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + g * (hi - lo)
            f2 = err(x2)
    o = round((lo + hi) / 2, 1)
    print("\n### Model against measured (the tree)\n")
    print("The time model of `nctl tree bcast` (userlib/bcast_plan.c, seed 003:")
    print("per send, path hops x 1 us + size / the slowest link; a parent sends")
    print("to its children one after another, on the f-nomial tree of degree %d"
          % a.degree)
    print("in rank order), without and with a per-message cost `msg-us` on every")
    print("send (nc_bcast_msg_cost), next to the slowest rank's mean of the")
    print("kernel tree (quiet).  The cost is fitted to every size at once (least")
    print("squared log ratio): **msg-us = %.1f us**.  Made by" % o)
    print("`scripts/bcast-model-fit.py --topology %s --degree %d RESULTS.json`;"
          % (a.topology.split("/")[-1], a.degree))
    print("each row is `nctl -j tree bcast topology TOPOLOGY degree %d size S"
          % a.degree)
    print("msg-us %.1f`, the \"unaware\" order.  Microseconds.\n" % o)
    print("| size | links only | with msg-us | slowest mean | measured / model |")
    print("|---:|---:|---:|---:|---:|")
    for s, t in meas:
        m0 = model(a.nctl, a.topology, a.degree, s, 0)
        m = model(a.nctl, a.topology, a.degree, s, o)
        print("| %d | %.1f | %.1f | %.1f | %.2f |" % (s, m0, m, t, t / m))
    ratios = [t / model(a.nctl, a.topology, a.degree, s, o) for s, t in meas]
    print("\nMeasured / model: %.2f-%.2f over every size (links only: %.2f-%.2f)."
          % (min(ratios), max(ratios),
             min(t / model(a.nctl, a.topology, a.degree, s, 0) for s, t in meas),
             max(t / model(a.nctl, a.topology, a.degree, s, 0) for s, t in meas)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
