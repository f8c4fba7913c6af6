#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Annotate benchmark: perf annotate --stdio and prep annotate side by side.

    tools/bench_annotate.py [--runs N] [--seconds S] [--data perf.data]

Run from the top of the tree after `make tests-build`. Records python3
running a loop (its hot symbols are libpython's exported functions) with
`perf record -e cpu-clock -F 10000` for S seconds (or takes --data), then
times on that same perf.data, medians of N runs:

  top ten    perf: one `perf annotate --stdio -s SYM` per symbol of the ten
             hottest (perf annotate takes one -s); prep: one
             `prep annotate SYM1 ... SYM10`
  one        the hottest symbol alone, each tool

and checks that the two give the same percentage per address. Wall seconds
and the ratio perf/prep are printed. Output goes to /dev/null.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def run(cmd):
    """Wall seconds of cmd, output discarded."""
    t = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.monotonic() - t


def median(cmds, runs):
    return statistics.median(sum(run(c) for c in cmds) for _ in range(runs))


def pcts(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    return re.findall(r"^ +([0-9.]+) : +([0-9a-f]+):", out, re.M)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--data")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    data = a.data
    if not data:
        data = os.path.join(tmp, "perf.data")
        loop = "import time\nt=time.time()\nwhile time.time()-t<%g: sum(i*i for i in range(10000))" % a.seconds
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "10000", "-o", data,
                        "--", "python3", "-c", loop], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
    rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "sym"],
                         capture_output=True, text=True).stdout
    syms = [m for m in re.findall(r"^ +[0-9.]+%\s+\[\.\] (\S+)$", rep, re.M)
            if not m.startswith("0x")][:10]
    nsamp = re.search(r"# Samples: (\S+)", rep)
    print("file %s, %s samples, symbols: %s" % (data, nsamp.group(1) if nsamp else "?",
                                              " ".join(syms)))
    perf = [["perf", "annotate", "-i", data, "--stdio", "-s", s] for s in syms]
    prep = [["./prep", "annotate", "-i", data, "--stdio"] + syms]
    bad = [s for s in syms[:3] if pcts(["perf", "annotate", "-i", data, "--stdio", "-s", s]) !=
           pcts(["./prep", "annotate", "-i", data, "--stdio", s])]
    print("per-address percentages equal to perf's for the top 3: %s" % ("yes" if not bad else
                                                                     "NO: " + " ".join(bad)))
    for name, pc, pr in (("top ten", perf, prep), ("one", perf[:1], [prep[0][:5] + syms[:1]])):
        tp, tr = median(pc, a.runs), median(pr, a.runs)
        print("%-8s perf %7.3f s   prep %7.3f s   perf/prep %6.1fx" % (name, tp, tr, tp / tr))


if __name__ == "__main__":
    sys.exit(main())
