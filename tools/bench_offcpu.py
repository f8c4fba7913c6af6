#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Off-CPU benchmark (issue 19): what prec --off-cpu costs per context switch.

    tools/bench_offcpu.py [--runs N] [--rates 100000,10000] [--seconds S] [--prec PATH]

Run from the top of the tree after `make tests-build` (it uses ./prec and
build/tests/programs/futexhop: two threads on one CPU taking turns through a
futex, so that every hop is one context switch, a blocking wait). For each
rate, the program's busy work per hop is first calibrated so that it alone
switches that many times per second of its own CPU time, then it runs for
about S seconds of CPU (default 2) alone and under each recording:

  alone         the program alone
  prec          prec -g (cpu-clock at 4000 Hz, the default), for reference
  prec+off      prec -g --off-cpu: what a user types
  switches      prec -e dummy --switch-events: the switch records alone
                (what a user at perf_event_paranoid 2 gets, without stacks)
  off-cpu       prec -e dummy -g --off-cpu: the off-CPU part alone, a
                sample with call chains at each switch and the switch records
  thresh        the same with --off-cpu-thresh 1: every wait here is
                shorter, so the stacks are left out of the file

and prints the medians over N runs (default 3) of: the workload's CPU time
over its CPU time alone (slowdown), the workload's CPU per switch added by
the recording, the recorder's own CPU per switch (the children's rusage
less the workload's own getrusage), and the file's bytes per switch.
Recordings use --no-embed: what is measured is the recording, not the
embedding of the binaries at its end. CPU time is used rather than wall
time: the machine is shared and its wall times move with the others' load.
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

PINGPONG = "build/tests/programs/futexhop"


def run(cmd):
    """Run cmd: (CPU s of the children, the workload's numbers)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    m = re.search(r"hops (\d+) elapsed_ns (\d+) switches_per_s \d+ cpu_ns (\d+)", p.stdout)
    if not m:
        sys.exit("no figures from futexhop: %r" % p.stdout)
    return cpu, int(m.group(1)), int(m.group(2)), int(m.group(3))


def cpu_per_hop(hops, spin):
    """The workload's CPU ns per hop alone (median of 3)."""
    return statistics.median(run([PINGPONG, str(hops), str(spin)])[3] / hops for _ in range(3))


def calibrate(rate):
    """The spin that makes a hop cost 1e9 / rate ns of CPU alone."""
    base = cpu_per_hop(100000, 0)
    big = 20000
    slope = (cpu_per_hop(20000, big) - base) / big
    want = 1e9 / rate
    if want <= base:
        return 0, base
    spin = int((want - base) / slope)
    return spin, cpu_per_hop(max(2000, int(2e9 / want / 4)), spin)


MODES = [
    ("alone", None),
    ("prec", ["-g"]),
    ("prec+off", ["-g", "--off-cpu"]),
    ("switches", ["-e", "dummy", "--switch-events"]),
    ("off-cpu", ["-e", "dummy", "-g", "--off-cpu"]),
    ("thresh", ["-e", "dummy", "-g", "--off-cpu", "--off-cpu-thresh", "1"]),
]

def measure(prec, rate, spin, hops, runs, tmp):
    """Each run goes through every mode in turn, so that the machine's
    changing load falls on all of them alike."""
    rows = {name: [] for name, _ in MODES}
    data = os.path.join(tmp, "b.data")
    for _ in range(runs):
        for name, flags in MODES:
            cmd = [PINGPONG, str(hops), str(spin)]
            if flags is not None:
                cmd = [prec, "-q", "--no-embed", "-o", data] + flags + ["--"] + cmd
            cpu, h, wall, wcpu = run(cmd)
            size = os.path.getsize(data) if flags is not None else 0
            rows[name].append((wcpu / 1e9, (cpu - wcpu / 1e9), size / h, wall / 1e9))
    out = {name: [statistics.median(r[i] for r in rows[name]) for i in range(4)]
           for name, _ in MODES}
    alone = out["alone"][0]
    print("\n%d switches/s (busy work %d steps a hop), %d switches a run, medians of %d runs"
          % (rate, spin, hops, runs))
    print("%-10s %9s %9s %14s %16s %14s %10s" % ("", "CPU s", "slowdown", "+CPU/switch",
                                               "recorder/switch", "bytes/switch", "wall s"))
    for name, _ in MODES:
        c, rec, b, wall = out[name]
        print("%-10s %9.3f %8.1f%% %11.2f us %13.2f us %14.1f %10.3f" % (
            name, c, 100 * (c / alone - 1), (c - alone) * 1e6 / hops,
            rec * 1e6 / hops if name != "alone" else 0, b, wall))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rates", default="100000,10000")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--prec", default="./prec")
    a = ap.parse_args()
    if not os.path.exists(PINGPONG):
        sys.exit("%s missing: run make tests-build first" % PINGPONG)
    with tempfile.TemporaryDirectory() as tmp:
        for rate in (int(r) for r in a.rates.split(",")):
            spin, per_hop = calibrate(rate)
            hops = int(a.seconds * 1e9 / per_hop)
            hops += hops % 2
            print("calibrated: %.2f us of CPU a hop alone (%.0f switches per CPU second)"
                  % (per_hop / 1e3, 1e9 / per_hop))
            measure(a.prec, rate, spin, hops, a.runs, tmp)


if __name__ == "__main__":
    main()
