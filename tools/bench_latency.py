#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cost of prec --latency (issue 19): the context-switch records of a
program that switches often, against the same recording without them.

build/tests/programs/pingpong (two threads handing a byte back and forth
through pipes, pinned to one CPU with taskset so that every round is two
context switches from one thread straight to the other) runs bare, under
`prec -F 999` and under `prec -F 999 --latency`, alternately, --runs times
each. Reported: the workload's rounds per second (its own figure), the CPU
time of the whole run (prec and workload, from getrusage of the children),
the file's size, the switch records counted by `prep -D`, and the bytes and
CPU microseconds per context switch that --latency adds. Medians.

    python3 tools/bench_latency.py [--runs 5] [--rounds 200000]
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

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", "build")
PREC = os.path.join(TOP, "prec" if BUILD == "build" else BUILD + "/prec")
PREP = os.path.join(TOP, "prep" if BUILD == "build" else BUILD + "/prep")
PROG = os.path.join(TOP, BUILD, "tests/programs/pingpong")


def run(cmd):
    """wall s, CPU s (children), stderr"""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit("failed: %s: %s" % (" ".join(cmd), p.stderr))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stderr


def rate(stderr):
    """the workload's rounds/s and its own CPU seconds"""
    m = re.search(r"pingpong: \d+ rounds, (\d+) rounds/s, ([0-9.]+) s CPU", stderr)
    return (int(m.group(1)), float(m.group(2))) if m else (0, 0.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=200000)
    a = ap.parse_args()
    work = ["taskset", "-c", "0", PROG, str(a.rounds)]
    res = {k: {"rate": [], "wcpu": [], "cpu": [], "wall": [], "size": [], "switches": []}
           for k in ("bare", "prec", "latency")}
    with tempfile.TemporaryDirectory() as d:
        for _ in range(a.runs):
            for kind in ("bare", "prec", "latency"):
                out = os.path.join(d, kind + ".data")
                if kind == "bare":
                    cmd = work
                else:
                    cmd = [PREC, "-F", "999", "-q", "-o", out] + \
                          (["--latency"] if kind == "latency" else []) + ["--"] + work
                wall, cpu, err = run(cmd)
                r = res[kind]
                r["rate"].append(rate(err)[0])
                r["wcpu"].append(rate(err)[1])
                r["cpu"].append(cpu)
                r["wall"].append(wall)
                if kind != "bare":
                    r["size"].append(os.path.getsize(out))
                    dump = subprocess.run([PREP, "-D", "-i", out], capture_output=True, text=True)
                    r["switches"].append(dump.stdout.count(" SWITCH "))
    med = {k: {f: (statistics.median(v) if v else 0) for f, v in r.items()} for k, r in res.items()}
    print("| run | rounds/s | workload CPU s | all CPU s | wall s | file bytes | switch records |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for k in ("bare", "prec", "latency"):
        m = med[k]
        print("| %s | %d | %.3f | %.2f | %.2f | %s | %s |" % (
            k, m["rate"], m["wcpu"], m["cpu"], m["wall"], "%d" % m["size"] if k != "bare" else "-",
            "%d" % m["switches"] if k != "bare" else "-"))
    switches = 2 * a.rounds      # context switches: one thread to the other, twice a round
    lat, pr = med["latency"], med["prec"]
    print()
    print("context switches: %d (%d records: an out and an in each)" % (switches, lat["switches"]))
    print("--latency adds per context switch: %.1f bytes in the file, %.2f us of the workload's"
          " CPU, %.2f us of prec's (all CPU less the workload's); rounds/s %+.1f%% against prec"
          " without it" % (
              (lat["size"] - pr["size"]) / switches, 1e6 * (lat["wcpu"] - pr["wcpu"]) / switches,
              1e6 * ((lat["cpu"] - lat["wcpu"]) - (pr["cpu"] - pr["wcpu"])) / switches,
              100.0 * (lat["rate"] / pr["rate"] - 1) if pr["rate"] else 0))


if __name__ == "__main__":
    main()
