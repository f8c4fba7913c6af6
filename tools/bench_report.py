#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report benchmark: perf report / perf script and prep side by side.

    tools/bench_report.py [--runs N] [--seconds S] [--srcline-perf]
    tools/bench_report.py --dwarf [--runs N] [--work N]
    tools/bench_report.py --prep-before OLD/prep [--runs N] [--seconds S]

Run from the top of the tree after `make tests-build`. Records the same
4-thread CPU-bound program (build/tests/programs/spin MS 4) once with
`perf record -F 10000 -g` and once with `prec -F 10000 -g`, then times, on
each tool's own file (prep does not read perf.data yet), medians of N runs:

  sort sym   `perf report --stdio --sort sym` / `prep --sort sym`
  children   the same with --children
  script     `perf script` / `prep script`
  srcline    `--sort srcline --no-children` (perf's only with --srcline-perf:
             it pipes every address to addr2line and takes minutes)

--dwarf (issue 6): the 3-thread program built without frame pointers
(build/tests/programs/threads_nofp N) recorded by both tools with
`-F 10000 --call-graph dwarf`: samples, lost samples, file size, and the
`--sort sym` report (children, every sample unwound).

--prep-before OLD/prep (a restructure's "no slower"): the same cases with
an older prep binary on the same prec.data, runs of the two alternating, and
the ratios new/old; perf is not run.

Wall and CPU seconds (user + sys) and peak resident memory come from
/usr/bin/time.
Output goes to /dev/null. --seconds sets the recording length (2.3 s of two
busy CPUs gives about 92k samples at -F 10000 with 4 threads; 24 s about 950k).
"""
import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time

SPIN = "build/tests/programs/spin"


def timed(cmd):
    """(wall s, CPU s, max RSS MiB) of cmd, output discarded. The wall time
    is the harness's clock (time's %e has 10 ms steps), with time's own
    start, which both tools pay alike."""
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "@@ %e %U %S %M"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    m = re.search(r"@@ ([0-9.]+) ([0-9.]+) ([0-9.]+) ([0-9]+)", p.stderr)
    if not m:
        sys.exit("cannot time %s: %s" % (cmd, p.stderr[-300:]))
    return (wall, float(m.group(2)) + float(m.group(3)), int(m.group(4)) / 1024.0)


def med(cmd, runs):
    res = [timed(cmd) for _ in range(runs)]
    return tuple(statistics.median(r[i] for r in res) for i in range(3))


def med_pair(cmd_a, cmd_b, runs):
    """med() of two commands, their runs alternating (the machine's noise
    falls on both alike)."""
    ra, rb = [], []
    for _ in range(runs):
        ra.append(timed(cmd_a))
        rb.append(timed(cmd_b))
    return tuple(tuple(statistics.median(r[i] for r in res) for i in range(3))
                 for res in (ra, rb))


def bench_before(a):
    ms = str(int(a.seconds * 1000))
    with tempfile.TemporaryDirectory() as tmp:
        pp = tmp + "/prec.data"
        subprocess.run(["./prec", "-q", "-F", "10000", "-g", "-o", pp, "--", SPIN, ms, "4"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        print("prec.data: %d samples (spin %s 4, -F 10000 -g); %s vs ./prep, median of %d" %
              (samples("prec", pp), ms, a.prep_before, a.runs))
        cases = [("sort sym", ["-i", pp, "--sort", "sym"]),
                 ("children", ["-i", pp, "--sort", "sym", "--children"]),
                 ("script", ["script", "-i", pp]),
                 ("srcline", ["-i", pp, "--no-children", "--sort", "srcline"]),
                 ("folded", ["-i", pp, "--folded"]),
                 ("time 10-20%", ["-i", pp, "--sort", "sym", "--time", "10%-20%"])]
        print("%-12s %-28s %-28s %s" % ("", "before: wall s, CPU s, MiB", "after: wall s, CPU s, MiB",
                                          "after/before CPU, memory"))
        for name, args in cases:
            old, new = med_pair([a.prep_before] + args, ["./prep"] + args, a.runs)
            print("%-12s %7.3f %7.3f %7.1f      %7.3f %7.3f %7.1f      %6.2fx %6.2fx" %
                  (name, old[0], old[1], old[2], new[0], new[1], new[2],
                   new[1] / max(old[1], 1e-3), new[2] / old[2]))


def samples(tool, path):
    if tool == "perf":
        out = subprocess.run(["perf", "report", "-i", path, "--stats"],
                             capture_output=True, text=True).stdout
    else:
        out = subprocess.run(["./prep", "-i", path, "--stats", "-g", "none"],
                             capture_output=True, text=True).stdout
    m = re.search(r"SAMPLE events:\s+(\d+)", out)
    return int(m.group(1)) if m else 0


def lost_perf(path):
    """perf's own count of lost samples (its report's header), and LOST records."""
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "--sort", "comm"],
                         capture_output=True, text=True).stdout
    m = re.search(r"# Total Lost Samples: (\d+)", out)
    lost = int(m.group(1)) if m else 0
    out = subprocess.run(["perf", "report", "-i", path, "--stats"], capture_output=True,
                         text=True).stdout
    m = re.search(r"LOST events:\s+(\d+)", out)
    return lost, int(m.group(1)) if m else 0


def bench_dwarf(a):
    import os
    prog = "build/tests/programs/threads_nofp"
    with tempfile.TemporaryDirectory() as tmp:
        pf, pp = tmp + "/perf.data", tmp + "/prec.data"
        subprocess.run(["perf", "record", "-q", "-F", "10000", "--call-graph", "dwarf", "-o", pf,
                        "--", prog, str(a.work)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        p = subprocess.run(["./prec", "-F", "10000", "--call-graph", "dwarf", "-o", pp, "--",
                            prog, str(a.work)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
        m = re.search(r"\((\d+) samples, (\d+) lost\)", p.stderr)
        lost_s, lost_r = lost_perf(pf)
        print("threads_nofp %d, -F 10000 --call-graph dwarf" % a.work)
        print("  perf: %d samples, %d lost (Total Lost Samples), %d LOST records, %.1f MB" %
              (samples("perf", pf), lost_s, lost_r, os.path.getsize(pf) / 1e6))
        print("  prec: %s samples, %s lost, %.2f MB (%.0fx smaller)" %
              (m.group(1) if m else "?", m.group(2) if m else "?", os.path.getsize(pp) / 1e6,
               os.path.getsize(pf) / max(os.path.getsize(pp), 1)))
        p = med(["perf", "report", "-i", pf, "--stdio", "--sort", "sym"], a.runs)
        q = med(["./prep", "-i", pp, "--sort", "sym"], a.runs)
        print("  --sort sym: perf %.3f s wall, %.1f MiB; prep %.3f s wall, %.1f MiB "
              "(%.1fx faster, %.2fx memory)" % (p[0], p[2], q[0], q[2], p[0] / max(q[0], 1e-3),
                                                q[2] / p[2]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=2.3)
    ap.add_argument("--srcline-perf", action="store_true")
    ap.add_argument("--dwarf", action="store_true")
    ap.add_argument("--work", type=int, default=2500)
    ap.add_argument("--prep-before", metavar="PREP")
    a = ap.parse_args()
    if a.prep_before:
        bench_before(a)
        return
    if a.dwarf:
        bench_dwarf(a)
        return
    ms = str(int(a.seconds * 1000))
    with tempfile.TemporaryDirectory() as tmp:
        pf, pp = tmp + "/perf.data", tmp + "/prec.data"
        subprocess.run(["perf", "record", "-q", "-F", "10000", "-g", "-o", pf, "--", SPIN, ms, "4"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        subprocess.run(["./prec", "-q", "-F", "10000", "-g", "-o", pp, "--", SPIN, ms, "4"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        print("files: perf.data %d samples, prec.data %d samples (spin %s 4, -F 10000 -g)" %
              (samples("perf", pf), samples("prec", pp), ms))
        cases = [
            ("sort sym", ["perf", "report", "-i", pf, "--stdio", "--sort", "sym"],
             ["./prep", "-i", pp, "--sort", "sym"]),
            ("children", ["perf", "report", "-i", pf, "--stdio", "--sort", "sym", "--children"],
             ["./prep", "-i", pp, "--sort", "sym", "--children"]),
            ("script", ["perf", "script", "-i", pf], ["./prep", "script", "-i", pp]),
            ("srcline", ["perf", "report", "-i", pf, "--stdio", "--no-children", "--sort", "srcline"]
             if a.srcline_perf else None,
             ["./prep", "-i", pp, "--no-children", "--sort", "srcline"]),
        ]
        print("%-10s %-28s %-28s %s" % ("", "perf: wall s, CPU s, MiB", "prep: wall s, CPU s, MiB",
                                          "perf/prep wall, CPU; prep/perf memory"))
        for name, pcmd, qcmd in cases:
            q = med(qcmd, a.runs)
            if pcmd:
                # perf's srcline pipes every address to addr2line: one run is enough
                p = med(pcmd, 1 if name == "srcline" else a.runs)
                print("%-10s %7.3f %7.3f %7.1f      %7.3f %7.3f %7.1f      %6.1fx %6.1fx %6.2fx" %
                      (name, p[0], p[1], p[2], q[0], q[1], q[2], p[0] / max(q[0], 1e-3),
                       p[1] / max(q[1], 1e-3), q[2] / p[2]))
            else:
                print("%-10s %28s %7.3f %7.3f %7.1f" % (name, "(not run)", q[0], q[1], q[2]))


if __name__ == "__main__":
    main()
