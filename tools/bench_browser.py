#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Browser benchmark: perf report's TUI and prep's browser side by side in tmux.

    tools/bench_browser.py [--runs N] [--ms MS] [--perf-data F --prec-data F]
                           [--keep DIR]

Run from the top of the tree after `make tests-build`. Records the same
4-thread CPU-bound program (build/tests/programs/spin MS 4, -F 10000 -g)
once with `perf record` and once with `prec` (unless files are given), then,
in a tmux session of 160x50 of its own (tmux -L prec-bench):

  first screen  from starting the session to the first complete screen:
                the title line ("Samples: ...") and as many entry lines as
                the text report of the same file has entries, up to the 47
                rows both browsers show. perf report -i perf.data,
                prep -i prec.data, and prep -i perf.data (prep reads
                perf.data too). Runs alternate; medians of N.
  keys          the time from `tmux send-keys` to the changed screen, for
                the same keys in both (Down, + or Enter to expand, e, E, C,
                t twice, d twice, a and back): medians per key over N
                sessions; prep's own answer times too (PREP_BROWSER_TIMES:
                from reading the key to the screen updated).

The machine is noisy (2 vCPUs): medians are quoted, and the tmux polling
(about 5 ms a capture) is in every external figure alike.
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
TMUX = ["tmux", "-L", "prec-bench"]
W, H = 160, 50
ROWS = H - 3          # the title, the column titles and the last line
ENTRY = re.compile(r"^[+\- ] +[0-9]+\.[0-9]+%")


def tmux(*args, check=False):
    return subprocess.run(TMUX + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True, check=check).stdout


def screen(colours=False):
    return tmux("capture-pane", "-p", "-t", "b", *(["-e"] if colours else []))


def text_entries(cmd):
    """Entry lines of the text report (top-level lines with a percentage)."""
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout
    return sum(1 for ln in out.splitlines() if re.match(r"^ {1,8}[0-9]+\.[0-9]+%", ln))


def complete(s, want):
    lines = s.splitlines()
    return (bool(lines) and lines[0].startswith("Samples:") and
            sum(1 for ln in lines[2:] if ENTRY.match(ln)) >= want)


def wait_for(pred, timeout=60.0, colours=False):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        s = screen(colours)
        if pred(s):
            return s
        time.sleep(0.003)
    return None


def stop():
    tmux("kill-server")
    time.sleep(0.2)


def first_screen(cmd, want, env=None):
    """Seconds from starting the session to the first complete screen."""
    stop()
    shell = " ".join(cmd)
    if env:
        shell = " ".join("%s=%s" % kv for kv in env.items()) + " " + shell
    t0 = time.monotonic()
    tmux("new-session", "-d", "-s", "b", "-x", str(W), "-y", str(H), shell + "; sleep 600")
    s = wait_for(lambda s: complete(s, want))
    t = time.monotonic() - t0
    if s is None:
        sys.exit("no complete screen from %s:\n%s" % (shell, screen()))
    return t


KEYS = [("Down", ["Down"]), ("expand", None), ("e", ["e"]), ("E", ["E"]), ("C", ["C"]),
        ("t", ["t"]), ("t again", ["t"]), ("d", ["d"]), ("d again", ["d"]),
        ("a", ["a"]), ("back", ["q"])]


def keys(cmd, want, expand_key, times=None):
    """Seconds from send-keys to the changed screen, per key."""
    env = {"PREP_BROWSER_TIMES": times} if times else None
    first_screen(cmd, want, env)
    res = {}
    tmux("send-keys", "-t", "b", "Down")    # perf: the first key only shows the cursor
    wait_for(lambda s: True)
    time.sleep(0.3)
    for name, k in KEYS:
        k = k or [expand_key]
        before = screen(True)       # with colours: a move changes only them
        t0 = time.monotonic()
        tmux("send-keys", "-t", "b", *k)
        s = wait_for(lambda s: s != before, timeout=10, colours=True)
        res[name] = time.monotonic() - t0 if s is not None else float("nan")
        time.sleep(0.3)
    stop()
    return res


def record(tmp, ms):
    pf, pp = tmp + "/perf.data", tmp + "/prec.data"
    for cmd in (["perf", "record", "-q", "-F", "10000", "-g", "-o", pf, "--", SPIN, ms, "4"],
                ["./prec", "-q", "-F", "10000", "-g", "-o", pp, "--", SPIN, ms, "4"]):
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return pf, pp


def samples(path, tool):
    cmd = ["perf", "report", "-i", path, "--stdio", "--no-children", "--sort", "comm"] \
        if tool == "perf" else ["./prep", "-i", path, "--stdio", "--no-children", "--sort", "comm"]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout
    m = re.search(r"# Samples: ([0-9.]+[KMG]?)", out)
    return m.group(1) if m else "?"


def prep_times(path):
    """Median microseconds per key name from PREP_BROWSER_TIMES lines."""
    by = {}
    with open(path) as f:
        for ln in f:
            k, _, us = ln.rstrip().rpartition(" ")
            by.setdefault(k, []).append(int(us))
    return {k: statistics.median(v) for k, v in by.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ms", type=int, default=12500,
                    help="CPU ms per thread (12500: about 500k samples)")
    ap.add_argument("--perf-data")
    ap.add_argument("--prec-data")
    ap.add_argument("--keep", help="record into this folder and keep the files")
    a = ap.parse_args()
    tmp_obj = None
    if a.perf_data and a.prec_data:
        pf, pp = a.perf_data, a.prec_data
    else:
        tmp = a.keep or (tmp_obj := tempfile.TemporaryDirectory()).name
        os.makedirs(tmp, exist_ok=True)
        pf, pp = record(tmp, str(a.ms))
    print("perf.data: %s samples, %.1f MB; prec.data: %s samples, %.1f MB" %
          (samples(pf, "perf"), os.path.getsize(pf) / 1e6, samples(pp, "prep"),
           os.path.getsize(pp) / 1e6))
    cases = [("perf report", ["perf", "report", "-i", pf], ["perf", "report", "-i", pf, "--stdio"]),
             ("prep (prec.data)", ["./prep", "-i", pp], ["./prep", "-i", pp, "--stdio"]),
             ("prep (perf.data)", ["./prep", "-i", pf], ["./prep", "-i", pf, "--stdio"])]
    want = {name: min(text_entries(txt), ROWS) for name, _, txt in cases}
    firsts = {name: [] for name, _, _ in cases}
    for _ in range(a.runs):
        for name, cmd, _ in cases:
            firsts[name].append(first_screen(cmd, want[name]))
    print("\nfirst complete screen (%dx%d, %d runs, median s):" % (W, H, a.runs))
    for name, _, _ in cases:
        print("  %-18s %.3f  (entries on screen: %d)" % (name, statistics.median(firsts[name]),
                                                       want[name]))
    base = statistics.median(firsts["perf report"])
    for name in ("prep (prec.data)", "prep (perf.data)"):
        print("  %s / perf: %.3f" % (name, statistics.median(firsts[name]) / base))
    with tempfile.NamedTemporaryFile(delete=False) as tf:
        times = tf.name
    kp, kq = [], []
    for _ in range(a.runs):
        kp.append(keys(cases[0][1], want["perf report"], "+"))
        kq.append(keys(cases[1][1], want["prep (prec.data)"], "Enter", times))
    print("\nkey to changed screen (median ms over %d sessions; prep's own answer in ms):" % a.runs)
    own = prep_times(times)
    os.unlink(times)
    for name, _ in KEYS:
        print("  %-8s perf %7.1f   prep %7.1f" % (
            name, 1000 * statistics.median(r[name] for r in kp),
            1000 * statistics.median(r[name] for r in kq)))
    print("  prep's own: " + ", ".join("%s %.2f" % (k, v / 1000) for k, v in sorted(own.items())))
    stop()
    if tmp_obj:
        tmp_obj.cleanup()


if __name__ == "__main__":
    main()
