#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""prec top against perf top: their own CPU time, side by side.

    tools/bench_top.py [--runs N] [--seconds S] [--delay D] [--freq F]
                       [--mode stdio|tui] [-g] [--no-busy]

Run from the top of the tree as root, after `make tests-build`. A busy
program (build/tests/programs/spin) runs on one CPU throughout. Each run
starts `perf top` and `prec top`, one after the other, system-wide at -F F
with a refresh every D seconds, each on a terminal of its own (a pty of
120x40, read and thrown away as a screen would show it; perf top --stdio
without a terminal loops on its help text), lets it run S seconds, ends it
with SIGINT and takes the user+system CPU time of the process and its
threads (wait4). --mode stdio gives both --stdio; --mode tui gives both
what they show on a terminal by default: their browsers. A first run of
each, not counted, warms the caches both keep (kernel symbols, binaries).
-g gives both call chains. Medians of N runs and the ratio prec/perf are
printed.
"""
import argparse
import fcntl
import os
import signal
import statistics
import struct
import subprocess
import sys
import termios
import threading
import time

ROWS, COLS = 40, 120


def drain(fd, seen):
    """Read the pty until it closes, as a terminal would; note whether a
    table (prec's or perf's --stdio) or perf's browser showed up."""
    tail = b""
    try:
        while True:
            b = os.read(fd, 65536)
            if not b:
                break
            tail = (tail[-64:] + b)
            seen[0] = seen[0] or b"PerfTop" in tail or b"Samples" in tail
    except OSError:
        pass


def cpu_of(cmd, seconds):
    """User+system CPU seconds of cmd run for `seconds` on a pty, then SIGINT."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    env = dict(os.environ, TERM="xterm-256color")
    p = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env,
                         start_new_session=True)
    os.close(slave)
    seen = [False]
    reader = threading.Thread(target=drain, args=(master, seen), daemon=True)
    reader.start()
    time.sleep(seconds)
    # os.kill, not Popen's: Popen.send_signal and kill reap a child that has
    # exited (poll), and wait4 would find none
    pid, status, ru = os.wait4(p.pid, os.WNOHANG)
    early = pid != 0
    if not early:
        os.kill(p.pid, signal.SIGINT)
    deadline = time.monotonic() + 10
    while not pid:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if not pid and time.monotonic() > deadline:
            os.kill(p.pid, signal.SIGKILL)
        time.sleep(0.05)
    p.returncode = status
    reader.join(2)
    os.close(master)
    # what a screen would show: perf top's and prec top's tables, perf's browser
    if not seen[0]:
        print("bench_top: %s showed no table" % " ".join(cmd), file=sys.stderr)
    if early:
        print("bench_top: %s ended by itself before %.0f s (status %#x): not counted" %
              (" ".join(cmd), seconds, status), file=sys.stderr)
        return None
    return ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=6)
    ap.add_argument("--delay", type=int, default=2)
    ap.add_argument("--freq", type=int, default=4000)
    ap.add_argument("--mode", choices=("stdio", "tui"), default="stdio")
    ap.add_argument("-g", action="store_true", help="call chains (frame pointers)")
    ap.add_argument("--no-busy", action="store_true", help="no busy program")
    a = ap.parse_args()
    top = os.getcwd()
    spin = os.path.join(top, "build/tests/programs/spin")
    if os.geteuid() != 0:
        sys.exit("bench_top: run as root (both tops watch the whole system)")
    if not a.no_busy and not os.access(spin, os.X_OK):
        sys.exit("bench_top: no %s: make tests-build" % spin)
    stdio = ["--stdio"] if a.mode == "stdio" else []
    common = ["-F", str(a.freq), "-d", str(a.delay)] + (["-g"] if a.g else [])
    cmds = {
        "perf top": ["perf", "top"] + stdio + common,
        "prec top": [os.path.join(top, "prec"), "top"] + stdio + common,
    }
    busy = None if a.no_busy else subprocess.Popen([spin, str(int((a.runs + 1) * 2.5 *
                                                                  (a.seconds + 2) * 1000))],
                                                   stdout=subprocess.DEVNULL)
    got = {k: [] for k in cmds}
    try:
        for r in range(a.runs + 1):
            for name, cmd in cmds.items():
                cpu = None
                for _ in range(3):      # a run that ended by itself is run again
                    cpu = cpu_of(cmd, a.seconds)
                    if cpu is not None:
                        break
                if cpu is None:
                    sys.exit("bench_top: %s keeps ending by itself" % name)
                if r:
                    got[name].append(cpu)
                print("%s run %d%s: %.3f s CPU in %.0f s" % (name, r, " (warm-up)" if not r else "",
                                                          cpu, a.seconds), flush=True)
    finally:
        if busy:
            busy.kill()
    print("\nmode %s, -F %d%s, -d %d, %.0f s each, %s, medians of %d runs:" %
          (a.mode, a.freq, " -g" if a.g else "", a.delay, a.seconds,
           "no busy program" if a.no_busy else "one busy program", a.runs))
    med = {k: statistics.median(v) for k, v in got.items()}
    for k, v in med.items():
        print("  %-9s %.3f s CPU (%s)" % (k, v, ", ".join("%.3f" % x for x in got[k])))
    if med["perf top"] > 0:
        print("  prec top / perf top: %.2f" % (med["prec top"] / med["perf top"]))


if __name__ == "__main__":
    main()
