#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Annotate benchmark: perf annotate --stdio and prep annotate side by side.

    tools/bench_annotate.py [--runs N] [--seconds S] [--procs P]
                            [--data perf.data] [--prec-data prec.data]

Run from the top of the tree after `make tests-build`. Records python3
running a loop (its hot symbols are libpython's exported functions), P
copies at once, for S seconds each: with `perf record -e cpu-clock -F
10000` into a perf.data, and the same work with `prec -e cpu-clock -F
10000` into a prec.data (or takes --data, --prec-data). Then times,
medians of N runs, wall and CPU (user + system of the command):

  top ten    perf: one `perf annotate --stdio -s SYM` per symbol of the ten
             hottest (perf annotate takes one -s); prep: one
             `prep annotate SYM1 ... SYM10`
  one        the hottest symbol alone, each tool

perf and prep on the perf.data, prep on its own prec.data (which carries
the counts per address: its ADDR_COUNTS block), and prep on the prec.data
with --no-index (the samples read). prep on the perf.data twice: "first"
walks the file each time (--no-index: what the first reading of a
perf.data costs), "again" takes the sums an earlier reading kept in prep's
cache folder (the checks below made them). Checks that perf and prep give the same
percentage per address on the perf.data, and that prep gives the same
output on the prec.data with and without --no-index. Output goes to
/dev/null.
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def run(cmd):
    """Wall and CPU seconds of cmd, output discarded."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.monotonic() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime


def median(cmds, runs):
    """Median wall and CPU seconds of running all of cmds once."""
    walls, cpus = [], []
    for _ in range(runs):
        w = c = 0.0
        for cmd in cmds:
            dw, dc = run(cmd)
            w += dw
            c += dc
        walls.append(w)
        cpus.append(c)
    return statistics.median(walls), statistics.median(cpus)


def pcts(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    return re.findall(r"^ +([0-9.]+) : +([0-9a-f]+):", out, re.M)


def record(tool, data, seconds, procs):
    loop = ("import time\nt=time.time()\n"
            "while time.time()-t<%g: sum(i*i for i in range(10000))" % seconds)
    work = " & ".join(["python3 -c '%s'" % loop] * procs) + "; wait"
    cmd = ["perf", "record", "-q"] if tool == "perf" else ["./prec", "-q"]
    subprocess.run(cmd + ["-e", "cpu-clock", "-F", "10000", "-o", data, "--", "sh", "-c", work],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--data")
    ap.add_argument("--prec-data")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    data, pdata = a.data, a.prec_data
    if not data:
        data = os.path.join(tmp, "perf.data")
        record("perf", data, a.seconds, a.procs)
    if not pdata:
        pdata = os.path.join(tmp, "prec.data")
        record("prec", pdata, a.seconds, a.procs)
    rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "sym"],
                         capture_output=True, text=True).stdout
    syms = [m for m in re.findall(r"^ +[0-9.]+%\s+\[\.\] (\S+)$", rep, re.M)
            if not m.startswith("0x")][:10]
    nsamp = re.search(r"# Samples: (\S+)", rep)
    print("perf.data %s, %s samples; prec.data %s (%d bytes); symbols: %s" % (
        data, nsamp.group(1) if nsamp else "?", pdata, os.path.getsize(pdata), " ".join(syms)))
    bad = [s for s in syms[:3] if pcts(["perf", "annotate", "-i", data, "--stdio", "-s", s]) !=
           pcts(["./prep", "annotate", "-i", data, "--stdio", s])]
    print("per-address percentages equal to perf's for the top 3: %s" % ("yes" if not bad else
                                                                     "NO: " + " ".join(bad)))
    one = ["./prep", "annotate", "--stdio", "-i", pdata]
    same = all(subprocess.run(one + x, capture_output=True).stdout ==
               subprocess.run(one + x + ["--no-index"], capture_output=True).stdout
               for x in (syms, syms[:1]))
    print("prep on prec.data the same with and without --no-index: %s" % ("yes" if same else "NO"))
    rows = (
        ("perf, perf.data", lambda s: [["perf", "annotate", "-i", data, "--stdio", "-s", x]
                                       for x in s]),
        ("prep, perf.data, first",
         lambda s: [["./prep", "annotate", "-i", data, "--stdio", "--no-index"] + s]),
        ("prep, perf.data, again", lambda s: [["./prep", "annotate", "-i", data, "--stdio"] + s]),
        ("prep, prec.data", lambda s: [["./prep", "annotate", "-i", pdata, "--stdio"] + s]),
        ("prep, prec.data --no-index",
         lambda s: [["./prep", "annotate", "-i", pdata, "--stdio", "--no-index"] + s]),
    )
    print("%-28s %-25s %-25s" % ("median of %d, wall / CPU" % a.runs, "top ten", "one"))
    base = None
    for name, cmds in rows:
        ten, single = median(cmds(syms), a.runs), median(cmds(syms[:1]), a.runs)
        base = base or (ten, single)
        print("%-28s %7.3f s / %7.3f s   %7.3f s / %7.3f s   (perf/this: %.1fx, %.1fx)" % (
            name, ten[0], ten[1], single[0], single[1], base[0][0] / ten[0],
            base[1][0] / single[0]))


if __name__ == "__main__":
    sys.exit(main())
