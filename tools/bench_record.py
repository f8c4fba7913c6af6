#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Recorder benchmark: perf record and prec side by side on the same work.

    tools/bench_record.py [--runs N] [--quick] [--only NAME,...] [--prec PATH]

Run from the top of the tree after `make tests-build` (it uses ./prec, or
the prec given with --prec, e.g. another build to compare, and
build/tests/programs/spin). Prints, for perf and for prec, medians over N
runs, and the prec/perf ratios:

  fixed     `X record -- /bin/true`: wall and CPU seconds
  overhead  spin doing fixed work (~2.3 s alone) recorded at -F 999 -g and
            -F 10000 -g: whole-run CPU ratio (recorded / alone) and the
            recorder's own CPU per sample (total CPU - the workload's own,
            which spin reports from getrusage)
  lost      4 spinning threads, `-a -F 10000 --call-graph dwarf` and
            `-a -F 100000 -g` for 3 s: lost samples in % of samples
  stat      spin doing fixed work (~2.3 s alone) counted by `prec stat`,
            `prec stat record -o F` and `perf stat` (their default events),
            each round running the bare work and the three in turn: whole-run
            CPU against the same round's bare run, median of the rounds
  size      bytes per sample in the file: -g and --call-graph dwarf, perf
            without and with -z (zstd), prec with its default compression;
            --size-cmd and --size-freq choose the work and the rate (default
            spin 1000 at 4 kHz). For prec also the bytes of its DATA blocks
            alone (the file less what the end embeds: symbols, code bytes),
            and its own CPU per sample from its -v line (drain thread +
            writer thread, and the DATA encoding alone)

CPU time is the children's rusage (user + sys) around each command; wall
times of perf include its ~1 s exit wait on this kind of machine.
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

SPIN = "build/tests/programs/spin"
MINIREADER = "build/tests/minireader"
PREC = "./prec"


def run(cmd, env=None):
    """Run cmd; return (wall s, CPU s of children, stdout, stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stdout, p.stderr


def samples_of(stderr):
    m = re.search(r"\((\d+) samples", stderr)
    return int(m.group(1)) if m else 0


def perf_samples(path):
    """Samples in a perf.data file (perf -z does not print the count)."""
    out = subprocess.run(["perf", "report", "-i", path, "--stats"],
                         capture_output=True, text=True).stdout
    m = re.search(r"SAMPLE events:\s+(\d+)", out)
    return int(m.group(1)) if m else 0


def workload_cpu(stdout):
    m = re.search(r"^cpu ([0-9.]+)", stdout, re.M)
    return float(m.group(1)) if m else 0.0


def perf_lost(path):
    """perf's own count of lost samples, from its report header."""
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "--sort", "pid"],
                         capture_output=True, text=True).stdout
    m = re.search(r"Total Lost Samples: (\d+)", out)
    return int(m.group(1)) if m else 0


def prec_lost(stderr):
    m = re.search(r"\(\d+ samples, (\d+) lost\)", stderr)
    return int(m.group(1)) if m else 0


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def record_cmd(tool, out, opts, workload):
    if tool == "perf":
        return ["perf", "record", "-o", out] + opts + ["--"] + workload
    return [PREC, "-o", out] + opts + ["--"] + workload


def bench_fixed(tmp, runs):
    res = {}
    for tool in ("perf", "prec"):
        walls, cpus = [], []
        for _ in range(runs):
            w, c, _, _ = run(record_cmd(tool, f"{tmp}/f.{tool}", [], ["/bin/true"]))
            walls.append(w)
            cpus.append(c)
        res[tool] = (med(walls), med(cpus))
    print("fixed cost, X record -- /bin/true (median of %d)" % runs)
    for tool in ("perf", "prec"):
        print("  %-5s wall %.3f s   CPU %.3f s" % (tool, *res[tool]))
    print("  prec/perf: wall %.2fx, CPU %.2fx" %
          (res["prec"][0] / res["perf"][0], res["prec"][1] / max(res["perf"][1], 1e-6)))


def bench_overhead(tmp, runs, work):
    alone = med([run([SPIN, work])[1] for _ in range(runs)])
    print("overhead: spin %s (fixed work), alone %.3f s CPU (median of %d)" % (work, alone, runs))
    for freq in ("999", "10000"):
        res = {}
        for tool in ("perf", "prec"):
            ratios, per_sample, own = [], [], []
            for _ in range(runs):
                _, cpu, out, err = run(record_cmd(tool, f"{tmp}/o.{tool}", ["-F", freq, "-g"],
                                                  [SPIN, work]))
                n = samples_of(err)
                ratios.append(cpu / alone)
                own.append(workload_cpu(out) / alone)
                if n:
                    per_sample.append((cpu - workload_cpu(out)) / n * 1e6)
            res[tool] = (med(ratios), med(own), med(per_sample))
        print("  -F %s -g" % freq)
        for tool in ("perf", "prec"):
            # the program's own CPU grows by what the kernel spends sampling
            # it (timer interrupts, call chains): the same for both tools
            print("    %-5s whole-run CPU %.3fx (the program's own %.3fx)   "
                  "recorder CPU per sample %.2f us" % (tool, *res[tool]))
        print("    prec/perf per-sample cost: %.2fx" % (res["prec"][2] / res["perf"][2]))


def bench_stat(tmp, runs, work):
    cmds = {
        "prec stat": [PREC, "stat", "--"],
        "prec stat record": [PREC, "stat", "record", "-o", f"{tmp}/s.prec", "--"],
        "perf stat": ["perf", "stat", "--"],
    }
    ratios = {k: [] for k in cmds}
    bare = []
    for _ in range(runs):
        alone = run([SPIN, work])[1]
        bare.append(alone)
        for name, cmd in cmds.items():
            ratios[name].append(run(cmd + [SPIN, work])[1] / alone)
    print("stat: spin %s (fixed work), alone %.3f s CPU (median of %d rounds)" %
          (work, med(bare), runs))
    for name in cmds:
        r = sorted(ratios[name])
        print("  %-17s whole-run CPU %.4fx   (rounds %.4f-%.4f)" % (name, med(r), r[0], r[-1]))


def bench_lost(tmp, runs):
    print("lost samples, 4 spinning threads, system-wide for 3 s (median and worst of %d)" % runs)
    for opts in (["-a", "-F", "10000", "--call-graph", "dwarf"], ["-a", "-F", "100000", "-g"]):
        res = {}
        for tool in ("perf", "prec"):
            pcts = []
            for _ in range(runs):
                spin = subprocess.Popen([SPIN, "4000", "4"], stdout=subprocess.DEVNULL)
                time.sleep(0.2)
                path = f"{tmp}/l.{tool}"
                _, _, _, err = run(record_cmd(tool, path, opts, ["sleep", "3"]))
                spin.kill()
                spin.wait()
                n = samples_of(err)
                lost = perf_lost(path) if tool == "perf" else prec_lost(err)
                pcts.append(100.0 * lost / max(n + lost, 1))
            res[tool] = (med(pcts), max(pcts))
        print("  %-40s perf %.2f%% (worst %.2f%%)   prec %.2f%% (worst %.2f%%)" %
              (" ".join(opts), *res["perf"], *res["prec"]))


def data_bytes(path):
    """Bytes of the DATA blocks of a prec.data file (headers included)."""
    out = subprocess.run([MINIREADER, path], capture_output=True, text=True).stdout
    blocks = re.findall(r"^block off=(\d+) seq=\d+ type=(\d+)", out, re.M)
    total = 0
    for i, (off, typ) in enumerate(blocks):
        if typ == "3":
            end = int(blocks[i + 1][0]) if i + 1 < len(blocks) else os.path.getsize(path)
            total += end - int(off)
    return total


def prec_cpu(stderr):
    """(drain + writer thread, DATA encoding) ms from prec -v's CPU line."""
    m = re.search(r"CPU: drain ([0-9.]+) ms, writer thread ([0-9.]+) ms "
                  r"\(transform and CRC ([0-9.]+)", stderr)
    return (float(m.group(1)) + float(m.group(2)), float(m.group(3))) if m else (0.0, 0.0)


def bench_size(tmp, runs, work, freq):
    print("bytes per sample, %s at -F %s (median of %d)" % (" ".join(work), freq, runs))
    for opts in (["-g"], ["--call-graph", "dwarf"]):
        res, data, cpu, enc = {}, [], [], []
        for tool, extra in (("perf", []), ("perf -z", ["-z"]), ("prec", ["-v"])):
            sizes = []
            for _ in range(runs):
                path = f"{tmp}/s.data"
                _, _, _, err = run(record_cmd(tool.split()[0], path,
                                              ["-F", freq] + opts + extra, work))
                n = samples_of(err) or (perf_samples(path) if tool != "prec" else 0)
                if not n:
                    continue
                sizes.append(os.path.getsize(path) / n)
                if tool == "prec":
                    data.append(data_bytes(path) / n)
                    c = prec_cpu(err)
                    cpu.append(c[0] * 1e3 / n)
                    enc.append(c[1] * 1e3 / n)
            res[tool] = med(sizes)
        print("  %-22s perf %.1f B   perf -z %.1f B   prec %.1f B (DATA blocks %.1f B)"
              "   prec/(perf -z) %.2fx" %
              (" ".join(opts), res["perf"], res["perf -z"], res["prec"], med(data),
               res["prec"] / res["perf -z"]))
        print("  %-22s prec CPU per sample: %.2f us (drain + writer), encoding %.2f us" %
              ("", med(cpu), med(enc)))


def main():
    global PREC
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="3 runs, shorter work")
    ap.add_argument("--only", default="fixed,overhead,lost,size")
    ap.add_argument("--prec", default=PREC, help="the prec to measure (default ./prec)")
    ap.add_argument("--size-cmd", default=SPIN + " 1000", help="the work of the size test")
    ap.add_argument("--size-freq", default="4000", help="the sampling rate of the size test")
    a = ap.parse_args()
    PREC = a.prec
    runs = 3 if a.quick else a.runs
    for f in (SPIN, PREC):
        if not os.access(f, os.X_OK):
            sys.exit("bench_record: %s missing: run 'make tests-build' first" % f)
    print("# %s, %s, %d CPUs" % (time.strftime("%Y-%m-%d"), os.uname().release, os.cpu_count()))
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.only.split(","):
            if name == "fixed":
                bench_fixed(tmp, runs)
            elif name == "overhead":
                bench_overhead(tmp, runs, "400w" if a.quick else "1100w")
            elif name == "lost":
                bench_lost(tmp, runs)
            elif name == "stat":
                bench_stat(tmp, runs, "400w" if a.quick else "1100w")
            elif name == "size":
                bench_size(tmp, runs, a.size_cmd.split(), a.size_freq)


if __name__ == "__main__":
    main()
