#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench/goals.py: one line for each speed goal of check and cone: the
figure, the goal, and the command that made it.  `make bench` runs it.

    python3 bench/goals.py [--obs N] [--runs R] [--cp BIN]

Figures are medians of R runs (default 5; 20 for start-up), CPU time
(user + sys) and peak memory from wait4(2) of the command alone, wall time
from a monotonic clock around it: on a shared machine read CPU.  The data
are made here, in build/bench/goals: N observations (default 10000) of 10
intervals x 28 events cut from datasets/sim-sweep-all.csv
(build/bench/obsgen), the same taking turns throughout (obsgen
--interleave N: a file not grouped by observation), one observation of
100000 intervals (obsgen --long: its memory is given beyond the same
command's on 100 of its intervals, against its samples once as 8-byte
rates), and one observation of 20 intervals from `counterpoint sim`.  The cone
against Normaliz is bench/cone_normaliz.py on its two smallest cases.
"""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
M = "models/haswell/mmu.udd"
WITH = "prefetch,merge,pde_early,pml4_cache,abort,replay,bypass"
TEMPLATE = "datasets/sim-sweep-all.csv"
LONG = 100000
EVENTS = 28      # the template's events


def measure(cmd, runs):
    """Median (cpu s, wall s, peak MiB) of runs of cmd, output discarded."""
    cpu, wall, peak = [], [], []
    for _ in range(runs):
        with open(os.devnull, "w") as null:
            t = time.monotonic()
            p = subprocess.Popen(cmd, stdout=null, stderr=null)
            _, status, ru = os.wait4(p.pid, 0)
            wall.append(time.monotonic() - t)
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            sys.exit("bench/goals.py: %s: exit status %d" % (" ".join(cmd), code))
        cpu.append(ru.ru_utime + ru.ru_stime)
        peak.append(ru.ru_maxrss / 1024.0)
    return statistics.median(cpu), statistics.median(wall), statistics.median(peak)


def peak_alone(cmd):
    """cmd's peak memory in MiB by /usr/bin/time, whose child is small when
    it execs: wait4 here counts this interpreter's pages, copied by the
    fork, in the peak of a command smaller than it."""
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return int(p.stderr.strip().splitlines()[-1]) / 1024.0


def line(what, figure, goal, cmd):
    print("  %-44s %-22s %-24s %s" % (what, figure, goal, " ".join(cmd)))
    sys.stdout.flush()


def make(path, cmd):
    if not os.path.exists(path):
        with open(path + ".tmp", "w") as f:
            subprocess.run(cmd, stdout=f, check=True)
        os.rename(path + ".tmp", path)


def main():
    args, obs, runs, cp = sys.argv[1:], 10000, 5, "bin/counterpoint"
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a in ("--obs", "--runs", "--cp") and args:
            v = args.pop(0)
            if a == "--obs":
                obs = int(v)
            elif a == "--runs":
                runs = max(1, int(v))
            else:
                cp = v
        else:
            sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
            return 2
    d = "build/bench/goals"
    os.makedirs(d, exist_ok=True)
    many, long_, one = ("%s/obs%d.csv" % (d, obs), "%s/long%d.csv" % (d, LONG), "%s/one.csv" % d)
    turns = "%s/turns%d.csv" % (d, obs)
    make(many, ["build/bench/obsgen", TEMPLATE, str(obs)])
    make(turns, ["build/bench/obsgen", TEMPLATE, str(obs), "--interleave", str(obs)])
    make(long_, ["build/bench/obsgen", TEMPLATE, str(LONG), "--long"])
    if not os.path.exists(one):
        subprocess.run([cp, "sim", "--intervals", "20", "--interval-uops", "10000",
                        "--warmup", "100000", "-o", one], check=True)
    print("speed goals: median of %d runs (start-up: 20), CPU = user + sys of the command"
          % runs)
    print("  %-44s %-22s %-24s %s" % ("what", "figure", "goal", "command"))

    cmd = [cp, "check", M, many, "--with", WITH, "--threads", "1"]
    cpu, wall, peak = measure(cmd, runs)
    line("check, %d observations: peak RSS" % obs, "%.0f MiB" % peak, "<= 256 MiB", cmd)
    line("check, %d observations: CPU each" % obs, "%.1f us/obs (%.2f s)" % (1e6 * cpu / obs, cpu),
         "<= 50 us/obs", cmd)

    cmd = [cp, "check", M, turns, "--with", WITH, "--threads", "1"]
    cpu, wall, peak = measure(cmd, runs)
    line("the same taking turns (read by observation)",
         "%.0f MiB, %.1f us/obs" % (peak, 1e6 * cpu / obs), "<= 256 MiB", cmd)

    # its memory beyond what the same command takes on 100 of its
    # intervals (start-up: the program, the libraries and code it runs,
    # the model; those intervals' own 0.1 MB)
    samples = LONG * EVENTS * 8 / 2**20
    short = "%s/long100.csv" % d
    make(short, ["build/bench/obsgen", TEMPLATE, "100", "--long"])
    for name, args in (("region", ["region", "%s", "--threads", "1"]),
                       ("check", ["check", M, "%s", "--with", WITH, "--threads", "1"])):
        cmd = [cp] + [a % long_ if a == "%s" else a for a in args]
        base = statistics.median(peak_alone([cp] + [a % short if a == "%s" else a
                                                    for a in args]) for _ in range(5))
        cpu, wall, peak = measure(cmd, runs)
        line("one observation of %d intervals: %s" % (LONG, name),
             "%.2f s CPU, %.1f MiB more" % (cpu, peak - base),
             "<= 1 s, <= %.1f MiB more" % samples, cmd)

    cmd = [cp, "--version"]
    cpu, wall, peak = measure(cmd, 20)
    line("start-up: --version", "%.1f ms wall, %.1f CPU" % (1e3 * wall, 1e3 * cpu),
         "<= 5 ms wall", cmd)
    cmd = [cp, "check", "models/examples/walk_basic.udd", one]
    cpu, wall, peak = measure(cmd, 20)
    line("start-up: check of one observation", "%.1f ms wall, %.1f CPU" % (1e3 * wall, 1e3 * cpu),
         "<= 10 ms wall and CPU", cmd)
    sys.stdout.flush()

    # the cone: its own table (Normaliz's figures when it is installed)
    return subprocess.run(["python3", os.path.join(HERE, "cone_normaliz.py"), "--cp", cp,
                           "sparse:16:100:2", "dense:14:30:4:1"]).returncode


if __name__ == "__main__":
    sys.exit(main())
