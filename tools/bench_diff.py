#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""prep diff against perf diff, on the same two perf.data files (issue 17).

    tools/bench_diff.py [--runs N] [--seconds S] [--freq F] [--keep DIR]
    tools/bench_diff.py --data OLD NEW [--runs N]

Run from the top of the tree after `make`. Records the same program with
two inputs: python3 running one of two loops (sum of squares; sorting
strings), two processes at once (two CPUs), each for S seconds under
`perf record -e cpu-clock -F F` (28 s at 20000 Hz: about 1M samples a
file), or takes --data. Then times, medians of N runs of each, the two
tools alternating:

  perf diff OLD NEW
  prep diff OLD NEW

Wall and CPU seconds (user + sys) and peak resident memory from
/usr/bin/time, the ratios perf/prep, and whether the two printed the same
lines (the count of lines that differ otherwise: prep names PLT stubs
where perf prints addresses, README). Output goes to /dev/null while timed.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

LOOPS = (
    "import time\nt = time.time()\nwhile time.time() - t < %g: sum(i * i for i in range(1000))",
    "import time\nt = time.time()\nwhile time.time() - t < %g: sorted(str(i) for i in range(1000))",
)


def timed(cmd):
    """(wall s, CPU s, max RSS MiB) of cmd, output discarded."""
    p = subprocess.run(["/usr/bin/time", "-f", "@@ %e %U %S %M"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"@@ ([0-9.]+) ([0-9.]+) ([0-9.]+) ([0-9]+)", p.stderr)
    if not m:
        sys.exit("cannot time %s: %s" % (cmd, p.stderr[-300:]))
    return (float(m.group(1)), float(m.group(2)) + float(m.group(3)),
            int(m.group(4)) / 1024.0)


def med_pair(cmd_a, cmd_b, runs):
    ra, rb = [], []
    for _ in range(runs):
        ra.append(timed(cmd_a))
        rb.append(timed(cmd_b))
    return tuple(tuple(statistics.median(r[i] for r in res) for i in range(3))
                 for res in (ra, rb))


def record(path, loop, seconds, freq):
    code = loop % seconds
    sh = "python3 -c '%s' & python3 -c '%s' & wait" % (code, code)
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(freq), "-o", path,
                    "--", "sh", "-c", sh], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)


def samples(path):
    out = subprocess.run(["./prep", "-i", path, "--sort", "comm", "-n", "-q"],
                         capture_output=True, text=True).stdout
    return sum(int(m) for m in re.findall(r"^ +[0-9.]+% +([0-9]+)", out, re.M))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=28)
    ap.add_argument("--freq", type=int, default=20000)
    ap.add_argument("--data", nargs=2)
    ap.add_argument("--keep")
    a = ap.parse_args()
    tmp = a.keep or tempfile.mkdtemp()
    os.makedirs(tmp, exist_ok=True)
    if a.data:
        old, new = a.data
    else:
        old, new = os.path.join(tmp, "old.data"), os.path.join(tmp, "new.data")
        for path, loop in ((old, LOOPS[0]), (new, LOOPS[1])):
            if not os.path.exists(path):
                record(path, loop, a.seconds, a.freq)
    print("files: %s (%d samples, %.1f MB), %s (%d samples, %.1f MB)" %
          (old, samples(old), os.path.getsize(old) / 1e6, new, samples(new),
           os.path.getsize(new) / 1e6))
    perf = subprocess.run(["perf", "diff", old, new], capture_output=True, text=True).stdout
    prep = subprocess.run(["./prep", "diff", old, new], capture_output=True, text=True).stdout
    pl, ql = perf.splitlines(), prep.splitlines()
    differ = len(set(pl) ^ set(ql))
    print("output: %d lines perf, %d prep; %s" % (len(pl), len(ql),
          "the same" if perf == prep else "%d lines differ" % differ))
    (pw, pc, pm), (qw, qc, qm) = med_pair(["perf", "diff", old, new],
                                          ["./prep", "diff", old, new], a.runs)
    print("median of %d    wall s    CPU s   peak MiB" % a.runs)
    print("perf diff     %7.2f  %7.2f   %8.1f" % (pw, pc, pm))
    print("prep diff     %7.2f  %7.2f   %8.1f" % (qw, qc, qm))
    print("perf/prep     %6.1fx  %6.1fx   %7.1fx" % (pw / qw, pc / qc, pm / qm))
    return 0


if __name__ == "__main__":
    sys.exit(main())
