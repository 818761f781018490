#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Many concurrent clients of netcoll-topod, each asking many questions.

    topod_clients.py unix:PATH MODEL CLIENTS QUERIES

MODEL is ib_model's output; its "path" lines, without the port pairs,
are the answers the service must give.  All CLIENTS connect before any
asks (a barrier), then each asks QUERIES random pairs on its connection.
Prints "ok CLIENTS clients, N answers" or the first wrong answer, and
exits 0 only if every answer was right.
"""
import random
import re
import socket
import sys
import threading


def expected(model):
    exp = {}
    for line in open(model):
        m = re.match(r"path (\S+) (\S+): (.*) hops (\d+) slowest (\d+)$", line)
        if m:
            nodes = [w for w in m.group(3).split() if not re.match(r"\d+>\d+$", w)]
            # InfiniBand dumps give no link delays
            exp[(m.group(1), m.group(2))] = (
                "path %s hops %s slowest_mbit %s delay_us 0 known 0" % (
                    " ".join(nodes), m.group(4), m.group(5)))
    return exp


def main():
    addr, model, nclients, nqueries = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    path = addr[len("unix:"):]
    exp = expected(model)
    pairs = sorted(exp)
    barrier = threading.Barrier(nclients)
    errors, answers = [], [0]
    lock = threading.Lock()

    def client(seed):
        rnd = random.Random(seed)
        try:
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(60)
            s.connect(path)
            f = s.makefile("rw")
            barrier.wait(timeout=60)
            for _ in range(nqueries):
                a, b = rnd.choice(pairs)
                f.write("query %s:%s\n" % (a, b))
                f.flush()
                got = f.readline().rstrip("\n")
                if got != exp[(a, b)]:
                    raise RuntimeError("%s:%s: got %r, want %r" % (a, b, got, exp[(a, b)]))
                with lock:
                    answers[0] += 1
            f.write("quit\n")
            f.flush()
            s.close()
        except Exception as e:  # noqa: BLE001 - report whatever went wrong
            with lock:
                errors.append("client %d: %s" % (seed, e))
            barrier.abort()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(nclients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        print(errors[0])
        sys.exit(1)
    print("ok %d clients, %d answers" % (nclients, answers[0]))


if __name__ == "__main__":
    main()
