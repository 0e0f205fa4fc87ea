#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench/cone_normaliz.py: `counterpoint cone` against Normaliz on the same
cones, one thread each, CPU time of the whole commands.

    python3 bench/cone_normaliz.py [--repeat N] [--limit S] [--cp BIN]
                                   [--dir DIR] [CASE...]

CASE is sparse:K:M:SEED or dense:K:M:HI:SEED (the rows bench/cone_cases.py
makes: M distinct random rows of K counters, each bumping 1-5 counters by
1-4, or entries uniform in 0..HI), or model:PATH[:FEATURES] (a model's
signatures, FEATURES a --with list or "all").  Without a CASE: the list
`make bench` runs (DEFAULT below, about a minute of CPU): the first of the
speed goal's three sparse cases (the other two take Normaliz minutes:
docs/method/cone.md), a small sparse one, a dense one, and the Haswell model with
every feature and with its slowest selection.

Each case runs --repeat times (default 3), the two commands alternately,
each stopped past --limit seconds of CPU (default 600):
    counterpoint cone CASE.udd --json --max-facets 4000000 --max-seconds S
    normaliz -x=1 -s CASE      (support hyperplanes only: the same work;
                                Normaliz's default also computes a Hilbert
                                basis)
each one's CPU time (user + sys) and peak memory from wait4(2).  The table
gives the medians, the ratio counterpoint / Normaliz (below 1: counterpoint
is faster) and whether the facet sets are equal: each facet is known by the
signatures it holds (exact integer dot products) and every normal of either
side is checked to hold on every signature.  Without normaliz installed
only counterpoint is timed.  CPU time, not wall time: the machine may be
shared with other work; run big cases under `nice`.
"""
import math
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = ["sparse:22:300:7", "sparse:16:100:2", "dense:14:30:4:1",
           "model:models/haswell/mmu.udd:all",
           "model:models/haswell/mmu.udd:prefetch,prefetch_dtlb_miss,prefetch_stores,bypass,replay"]


def usage():
    sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
    sys.exit(2)


def run(cmd, out, limit):
    """Run cmd (stdout to the file out) with at most limit seconds of CPU;
    (exit status, or minus the signal that stopped it; cpu seconds; peak
    MiB)."""
    def cap():
        resource.setrlimit(resource.RLIMIT_CPU, (math.ceil(limit), math.ceil(limit) + 2))
    with open(out, "w") as f, open(out + ".err", "w") as e:
        p = subprocess.Popen(cmd, stdout=f, stderr=e, preexec_fn=cap)
        pid, status, ru = os.wait4(p.pid, 0)
    return os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def stopped(code, limit):
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        return "stopped after %g s of CPU" % limit
    return "status %d" % code


def make_case(spec, d, cp):
    """Files for one case: (prefix, rows, our command's tail, description)."""
    part = spec.split(":")
    kind = part[0]
    name = spec.replace(":", "-").replace("/", "_")
    pre = os.path.join(d, name)
    if kind in ("sparse", "dense") and len(part) == (4 if kind == "sparse" else 5):
        gen = ["python3", os.path.join(HERE, "cone_cases.py"), "--" + kind] + part[1:] + [pre]
        subprocess.run(gen, check=True)
        rows = [list(map(int, l.split())) for l in open(pre + ".rows") if l.strip()]
        return pre, rows, [pre + ".udd"], " ".join(["python3", "bench/cone_cases.py", "--" + kind] + part[1:] + [pre])
    if kind == "model" and len(part) in (2, 3):
        model = part[1]
        with_ = []
        if len(part) == 3:
            feats = part[2]
            if feats == "all":
                lst = subprocess.run([cp, "paths", model, "--list-features"], check=True,
                                     capture_output=True, text=True).stdout
                feats = ",".join(l.split("\t")[0] for l in lst.splitlines() if l)
            with_ = ["--with", feats]
        js = subprocess.run([cp, "paths", model, "--json"] + with_, check=True,
                            capture_output=True, text=True).stdout
        rows = [list(map(int, m.group(1).split(",")))
                for m in re.finditer(r'"vector": \[([-0-9,]+)\]', js)]
        with open(pre + ".in", "w") as f:
            f.write("amb_space %d\ncone %d\n" % (len(rows[0]), len(rows)))
            for r in rows:
                f.write(" ".join(map(str, r)) + "\n")
        return pre, rows, [model] + with_, "counterpoint paths %s %s--json (signatures for Normaliz's input)" % (model, " ".join(with_) + " " if with_ else "")
    sys.stderr.write("bench/cone_normaliz.py: bad case '%s'\n" % spec)
    sys.exit(2)


def our_facets(path):
    """The facet vectors of `counterpoint cone --json` output, line by line
    (the output of a big cone is too big for json.load)."""
    facets, section = [], None
    for line in open(path):
        if line.startswith('"'):
            section = line.split('"')[1]
        m = re.match(r'  \{"vector": \[([-0-9,]+)\]', line)
        if m and section == "facets":
            facets.append(list(map(int, m.group(1).split(","))))
    return facets


def normaliz_facets(path):
    lines = open(path).read().splitlines()
    for i, l in enumerate(lines):
        m = re.match(r"^(\d+) support hyperplanes:$", l)
        if m:
            n = int(m.group(1))
            return [list(map(int, x.split())) for x in lines[i + 1:i + 1 + n]]
    return None


def holds(facets, rows):
    """Each facet's zero set over the rows (bytes, or a tuple), or None when
    a normal fails a.s >= 0 on some row; False when it would take too long
    without numpy.  Exact: floats only while every dot product stays
    below 2^52, else integers."""
    try:
        import numpy as np
    except ImportError:
        np = None
    big = max((abs(x) for f in facets for x in f), default=0)
    top = max((x for r in rows for x in r), default=0)
    k = len(rows[0]) if rows else 0
    out = []
    if np is not None and big * top * max(k, 1) < 2 ** 52:
        S = np.array(rows, dtype=np.float64)
        for c in range(0, len(facets), 100000):
            A = np.array(facets[c:c + 100000], dtype=np.float64)
            V = A @ S.T
            if (V < 0).any():
                return None
            out.extend(b.tobytes() for b in np.packbits(V == 0, axis=1))
        return out
    if len(facets) * len(rows) > 4000000:
        return False
    sparse = [[(i, x) for i, x in enumerate(r) if x] for r in rows]
    for f in facets:
        v = [sum(f[i] * x for i, x in r) for r in sparse]
        if min(v) < 0:
            return None
        out.append(tuple(i for i, x in enumerate(v) if x == 0))
    return out


def compare(ours, theirs, rows, full):
    """Equal facet sets?  A facet is known by the rows it holds; a
    full-dimensional cone's facets also by their primitive normals (then
    no numpy is needed)."""
    if theirs is None:
        return "not compared (no facets read)"
    a, b = holds(ours, rows), holds(theirs, rows)
    if a is None or b is None:
        return "INVALID normal (%s)" % ("counterpoint" if a is None else "normaliz")
    note = "" if a is not False and b is not False else " (normals not checked: no numpy)"
    if a is False or b is False:
        if not full:
            return "not compared (no numpy)"
        a, b = [tuple(f) for f in ours], [tuple(f) for f in theirs]
    if len(set(a)) != len(a) or len(set(b)) != len(b):
        return "DIFFERENT (a facet twice)"
    if set(a) == set(b):
        return "identical" + note
    return "DIFFERENT (%d only ours, %d only normaliz)" % (len(set(a) - set(b)),
                                                        len(set(b) - set(a)))


def main():
    args = sys.argv[1:]
    repeat, limit, cp, d, cases = 3, 600.0, "bin/counterpoint", "build/bench/cone-cases", []
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a in ("--repeat", "--limit", "--cp", "--dir") and args:
            v = args.pop(0)
            if a == "--repeat":
                repeat = max(1, int(v))
            elif a == "--limit":
                limit = float(v)
            elif a == "--cp":
                cp = v
            else:
                d = v
        elif a.startswith("-"):
            usage()
        else:
            cases.append(a)
    os.makedirs(d, exist_ok=True)
    nmz = shutil.which("normaliz")
    cmdline = " ".join(["python3", "bench/cone_normaliz.py"] + sys.argv[1:])
    print("cone: `counterpoint cone` against `normaliz -x=1 -s`, one thread each; CPU s "
          "(user+sys), median of %d runs; command: %s" % (repeat, cmdline))
    if not nmz:
        print("  (normaliz is not installed: counterpoint only; `apt-get install normaliz`)")
    print("  %-34s %4s %9s %13s %10s %6s %14s  %s" % ("case", "dim", "facets", "counterpoint",
          "normaliz", "ratio", "peak MiB c/n", "facet sets"))
    notes = []
    for spec in cases or DEFAULT:
        pre, rows, tail, made = make_case(spec, d, cp)
        ours = [cp, "cone"] + tail + ["--json", "--max-facets", "4000000",
                                      "--max-seconds", "%g" % (100 * limit)]
        theirs = [nmz, "-x=1", "-s", pre] if nmz else None
        tc, tn, mc, mn, bad = [], [], 0.0, 0.0, ""
        for _ in range(repeat):
            code, cpu, mem = run(ours, pre + ".cp.json", limit)
            if code != 0:
                bad = "counterpoint: %s (%s)" % (stopped(code, limit),
                                                 open(pre + ".cp.json.err").read().strip()[-200:])
                break
            tc.append(cpu)
            mc = max(mc, mem)
            if theirs:
                code, cpu, mem = run(theirs, pre + ".nmz.log", limit)
                if code != 0:
                    bad = "normaliz: %s" % stopped(code, limit)
                    theirs = None
                else:
                    tn.append(cpu)
                    mn = max(mn, mem)
        facets = our_facets(pre + ".cp.json") if tc else []
        dim = ""
        m = re.search(r'"dimension": (\d+)', open(pre + ".cp.json").read(4096)) if tc else None
        if m:
            dim = m.group(1)
        sets = compare(facets, normaliz_facets(pre + ".out"), rows,
                       dim == str(len(rows[0]))) if tn else "-"
        c = statistics.median(tc) if tc else float("nan")
        n = statistics.median(tn) if tn else float("nan")
        print("  %-34s %4s %9s %13.3f %10s %6s %14s  %s" % (
            spec, dim, len(facets) if tc else "-", c,
            "%.3f" % n if tn else "-", "%.2f" % (c / n) if tn and n > 0 else "-",
            "%.0f / %s" % (mc, "%.0f" % mn if tn else "-"), bad or sets))
        sys.stdout.flush()
        notes.append("  %s: %s\n      %s > %s.cp.json\n      %s\n      runs: counterpoint %s; normaliz %s" % (
            spec, made, " ".join(ours), pre, " ".join(theirs or ["(normaliz not run)"]),
            " ".join("%.3f" % t for t in tc), " ".join("%.3f" % t for t in tn) or "-"))
    print("commands:")
    print("\n".join(notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
