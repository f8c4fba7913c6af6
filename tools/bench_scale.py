#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How prep's report grows with the recording: 100k to 10M samples.

    tools/bench_scale.py [--sizes 100k,1M,10M] [--runs N] [--perf-max 1M]
                         [--keep DIR] [--svg docs/scale.svg]

Run from the top of the tree after `make tests-build`. For each size, the
same 4-thread CPU-bound program (build/tests/programs/spin MS 4) is recorded
once by `prec -g` (and, up to --perf-max samples, once by `perf record -g`),
at -F 10000 up to a million samples and at -F 40000 above (so that ten
million samples take minutes, not a quarter of an hour; the profile is the
same program's). Then `prep --sort sym` (children and call graph, the
default for a -g recording; it reads the file's SAMPLE_SUMS block), the
same with --no-index (the samples read) and `perf report --stdio --sort
sym` are timed on them, medians of N runs, output to /dev/null: wall
seconds from the harness's clock, CPU seconds and peak resident memory
from /usr/bin/time.

Prints a table and, with --svg, writes a plot of time and memory against
samples (log scales). --keep DIR keeps the recordings there and reuses them
on the next run.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

SPIN = "build/tests/programs/spin"
THREADS = 4


def count(s):
    m = re.fullmatch(r"([0-9.]+)([kKmM]?)", s)
    if not m:
        sys.exit("bad size %r (want e.g. 100k, 1M)" % s)
    return int(float(m.group(1)) * {"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6}[m.group(2)])


def timed(cmd):
    """(wall s, CPU s, max RSS MiB) of cmd. The wall time is the harness's
    clock (time's %e has 10 ms steps: a report of 10M samples read from the
    file's SAMPLE_SUMS block takes about that), with time's own start."""
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "@@ %e %U %S %M"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    m = re.search(r"@@ ([0-9.]+) ([0-9.]+) ([0-9.]+) ([0-9]+)", p.stderr)
    if p.returncode or not m:
        sys.exit("%s failed: %s" % (" ".join(cmd), p.stderr[-300:]))
    return wall, float(m.group(2)) + float(m.group(3)), int(m.group(4)) / 1024.0


def record(tool, n, path):
    freq = 10000 if n <= 1000000 else 40000
    ms = max(1, round(n / THREADS / freq * 1000))
    if tool == "prec":
        cmd = ["./prec", "-q", "-F", str(freq), "-g", "-m", "1024", "-o", path, "--"]
    else:
        cmd = ["perf", "record", "-q", "-F", str(freq), "-g", "-m", "1024", "-o", path, "--"]
    for _ in range(5):   # perf 6.1 aborts now and then at exit (NOTES.md)
        r = subprocess.run(cmd + [SPIN, str(ms), str(THREADS)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if r.returncode == 0 and os.path.getsize(path) > 4096:
            return
    sys.exit("%s record failed for %d samples" % (tool, n))


def exact_samples(path):
    out = subprocess.run(["./prep", "-i", path, "--stdio", "-n", "-g", "none",
                          "--no-children", "--sort", "comm"],
                         capture_output=True, text=True).stdout
    return sum(int(l.split()[1]) for l in out.splitlines()
               if re.match(r"^ +[0-9.]+% +[0-9]+ ", l))


def med(cmd, runs):
    res = [timed(cmd) for _ in range(runs)]
    return tuple(statistics.median(r[i] for r in res) for i in range(3))


def svg(rows, path):
    """Two log-log panels: seconds and MiB against samples."""
    W, H, L, B, T = 360, 260, 56, 40, 24
    xs = [r["n"] for r in rows]
    import math

    def panel(x0, title, lines, unit):
        vals = [r[k] for r in rows for k, _, _ in lines if r.get(k)]
        lo, hi = min(vals) / 1.5, max(vals) * 1.5
        xl, xh = min(xs) / 1.5, max(xs) * 1.5

        def px(v):
            return x0 + L + (math.log10(v) - math.log10(xl)) / (math.log10(xh) - math.log10(xl)) * (W - L - 12)

        def py(v):
            return T + (math.log10(hi) - math.log10(v)) / (math.log10(hi) - math.log10(lo)) * (H - T - B)
        out = ['<text x="%d" y="16" font-size="13">%s</text>' % (x0 + L, title),
               '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000"/>' % (x0 + L, H - B, x0 + W - 12, H - B),
               '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000"/>' % (x0 + L, T, x0 + L, H - B)]
        for n in xs:
            out.append('<text x="%.1f" y="%d" font-size="10" text-anchor="middle">%s</text>' %
                       (px(n), H - B + 14, "%.3gk" % (n / 1e3) if n < 1e6 else "%.2gM" % (n / 1e6)))
        e = math.floor(math.log10(lo))
        while 10 ** e <= hi:
            for m in (1, 2, 5):
                v = m * 10 ** e
                if lo <= v <= hi:
                    out.append('<text x="%d" y="%.1f" font-size="10" text-anchor="end">%g</text>' %
                               (x0 + L - 4, py(v) + 3, v))
                    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' %
                               (x0 + L, py(v), x0 + W - 12, py(v)))
            e += 1
        out.append('<text x="%d" y="%d" font-size="10">samples</text>' % (x0 + W - 60, H - 6))
        out.append('<text x="%d" y="%d" font-size="10">%s</text>' % (x0 + 4, T - 6, unit))
        for key, colour, name in lines:
            pts = [(px(r["n"]), py(r[key])) for r in rows if r.get(key)]
            if not pts:
                continue
            out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' %
                       (colour, " ".join("%.1f,%.1f" % p for p in pts)))
            for p in pts:
                out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (p[0], p[1], colour))
            out.append('<text x="%.1f" y="%.1f" font-size="11" fill="%s">%s</text>' %
                       (pts[-1][0] - 30, pts[-1][1] - 8, colour, name))
        return out
    body = panel(0, "report wall time", (("prep_wall", "#c00", "prep"),
                                         ("ni_wall", "#e90", "--no-index"),
                                         ("perf_wall", "#06c", "perf")), "s") + \
        panel(W, "report peak memory", (("prep_mem", "#c00", "prep"),
                                        ("ni_mem", "#e90", "--no-index"),
                                        ("perf_mem", "#06c", "perf")), "MiB")
    with open(path, "w") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                'font-family="sans-serif">\n<rect width="100%%" height="100%%" fill="#fff"/>\n' % (2 * W, H))
        f.write("\n".join(body) + "\n</svg>\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100k,1M,10M")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--perf-max", default="1M")
    ap.add_argument("--keep", metavar="DIR")
    ap.add_argument("--svg", metavar="PATH")
    a = ap.parse_args()
    if not os.access(SPIN, os.X_OK):
        sys.exit("run `make tests-build` first")
    d = a.keep or tempfile.mkdtemp(prefix="bench_scale.")
    os.makedirs(d, exist_ok=True)
    rows = []
    for s in a.sizes.split(","):
        n = count(s)
        r = {"n": n}
        for tool in ("prec", "perf"):
            if tool == "perf" and n > count(a.perf_max):
                continue
            path = os.path.join(d, "%s_%s.data" % (tool, s))
            if not os.path.exists(path):
                record(tool, n, path)
            r[tool + "_bytes"] = os.path.getsize(path)
            r[tool + "_path"] = path
        r["samples"] = exact_samples(r["prec_path"])
        r["prep_wall"], r["prep_cpu"], r["prep_mem"] = med(
            ["./prep", "-i", r["prec_path"], "--stdio", "--sort", "sym"], a.runs)
        # the samples read (not the file's SAMPLE_SUMS block): how the
        # reading itself grows
        r["ni_wall"], r["ni_cpu"], r["ni_mem"] = med(
            ["./prep", "-i", r["prec_path"], "--stdio", "--no-index", "--sort", "sym"], a.runs)
        if "perf_path" in r:
            r["perf_wall"], r["perf_cpu"], r["perf_mem"] = med(
                ["perf", "report", "-i", r["perf_path"], "--stdio", "--sort", "sym"], a.runs)
        rows.append(r)
    print("samples (prec)  prec file MB  prep wall s  CPU s  MiB   --no-index wall s  CPU s  MiB  us/sample"
          "   perf wall s  CPU s  MiB   perf/prep wall")
    for r in rows:
        line = "%14d  %12.1f  %11.3f  %5.3f  %4.1f   %17.3f  %5.3f  %4.1f  %9.3f" % (
            r["samples"], r["prec_bytes"] / 1e6, r["prep_wall"], r["prep_cpu"], r["prep_mem"],
            r["ni_wall"], r["ni_cpu"], r["ni_mem"], r["ni_cpu"] / r["samples"] * 1e6)
        if "perf_wall" in r:
            line += "   %11.3f  %5.3f  %4.0f   %6.1fx" % (r["perf_wall"], r["perf_cpu"], r["perf_mem"],
                                                       r["perf_wall"] / r["prep_wall"])
        print(line)
    if a.svg:
        for r in rows:
            r["n"] = r["samples"]
        svg(rows, a.svg)
        print("wrote", a.svg)


if __name__ == "__main__":
    main()
