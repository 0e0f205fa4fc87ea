#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench/cone_cases.py: the cone cases of the speed comparison with Normaliz
(docs/method/cone.md), as the speed goal defines them.  Turns signature
rows into a μDD whose distinct signatures are exactly those rows, and writes
the same cone for the peers (Normaliz, lrs, cddlib); or first makes the rows,
random and fixed by a seed (Python's random.Random, so the same rows on every
machine).  bench/cone_normaliz.py calls it; bench/cone_cases.h has the
benchmark's other, xorshift-made sets.

    python3 bench/cone_cases.py ROWS OUT_PREFIX
        ROWS: one non-negative integer row per line (all the same length k)
        writes OUT_PREFIX.udd  (counters c0..c{k-1}; one uop, one property with one value
                                per row; each case does `incr cJ N;` for the non-zero entries)
               OUT_PREFIX.in   (Normaliz: amb_space k / cone m)
               OUT_PREFIX.ine  (lrs: V-representation, the origin as vertex + one ray per row)
               OUT_PREFIX.ext  (cddlib: V-representation, one ray per row)
    python3 bench/cone_cases.py --sparse K M SEED OUT_PREFIX
        first writes OUT_PREFIX.rows with M distinct random sparse rows of length K
        (each bumps 1-5 counters by 1-4; Python's random.Random(SEED)).
    python3 bench/cone_cases.py --dense K M HI SEED OUT_PREFIX
        M distinct random rows, entries uniform in 0..HI.
Compare: counterpoint cone OUT_PREFIX.udd --json   against   normaliz -x=1 -s OUT_PREFIX (support hyperplanes only)
"""
import random, sys


def write_all(rows, pre):
    k = len(rows[0]); m = len(rows)
    with open(pre + ".udd", "w") as f:
        for j in range(k):
            f.write(f'counter c{j} "EV{j}";\n')
        f.write("property p { " + ", ".join(f"v{i}" for i in range(m)) + " };\n")
        f.write("uop u {\n    switch (p) {\n")
        for i, r in enumerate(rows):
            f.write(f"    case v{i}:\n")
            for j, x in enumerate(r):
                if x:
                    f.write(f"        incr c{j} {x};\n")
            f.write("        done;\n")
        f.write("    }\n}\n")
    with open(pre + ".in", "w") as f:
        f.write(f"amb_space {k}\ncone {m}\n")
        for r in rows:
            f.write(" ".join(map(str, r)) + "\n")
    with open(pre + ".ine", "w") as f:
        f.write(f"cone\nV-representation\nbegin\n{m + 1} {k + 1} integer\n")
        f.write("1 " + " ".join("0" for _ in range(k)) + "\n")
        for r in rows:
            f.write("0 " + " ".join(map(str, r)) + "\n")
        f.write("end\n")
    with open(pre + ".ext", "w") as f:
        f.write(f"V-representation\nbegin\n{m} {k + 1} integer\n")
        for r in rows:
            f.write("0 " + " ".join(map(str, r)) + "\n")
        f.write("end\n")


def main():
    a = sys.argv[1:]
    if a[0] == "--sparse":
        k, m, seed, pre = int(a[1]), int(a[2]), int(a[3]), a[4]
        rnd = random.Random(seed); rows = set()
        while len(rows) < m:
            r = [0] * k
            for j in rnd.sample(range(k), rnd.randint(1, 5)):
                r[j] = rnd.randint(1, 4)
            rows.add(tuple(r))
        rows = sorted(rows)
    elif a[0] == "--dense":
        k, m, hi, seed, pre = int(a[1]), int(a[2]), int(a[3]), int(a[4]), a[5]
        rnd = random.Random(seed); rows = set()
        while len(rows) < m:
            rows.add(tuple(rnd.randint(0, hi) for _ in range(k)))
        rows = sorted(rows)
    else:
        rows = [tuple(map(int, l.split())) for l in open(a[0]) if l.strip()]
        pre = a[1]
    if a[0] in ("--sparse", "--dense"):
        with open(pre + ".rows", "w") as f:
            for r in rows:
                f.write(" ".join(map(str, r)) + "\n")
    write_all(list(rows), pre)


if __name__ == "__main__":
    main()
