# SPDX-License-Identifier: GPL-3.0-or-later
"""The Python binding against the command: every answer it gives must be
the one `bin/counterpoint` gives on the same files (the command is the
reference; both run the same library).  Run from the repository root:
    COUNTERPOINT_LIB=build/libcounterpoint.so.0 PYTHONPATH=python \
        python3 -m unittest discover -s python/tests
"""

import json
import math
import os
import subprocess
import tempfile
import unittest

import counterpoint as cp

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.path.join(TOP, "bin", "counterpoint")
WALK = os.path.join(TOP, "models", "examples", "walk_basic.udd")
MMU = os.path.join(TOP, "models", "haswell", "mmu.udd")
SWEEP = os.path.join(TOP, "datasets", "sim-sweep-all.csv")

try:
    import numpy
except ImportError:
    numpy = None


def cli(*args, status=(0,)):
    p = subprocess.run([CLI] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, cwd=TOP)
    if p.returncode not in status:
        raise AssertionError("counterpoint %s: status %d\n%s"
                             % (" ".join(args), p.returncode, p.stderr.decode()))
    return p.stdout.decode(), p.stderr.decode()


def walks(bad_share=2.0, intervals=16):
    """walk_basic's events per interval: 'good' keeps PDE-cache misses
    under the walks, 'bad' has bad_share times as many as walks."""
    obs = {}
    for name, share in (("good", 0.3), ("bad", bad_share)):
        w = [1000 + (i * 37) % 101 for i in range(intervals)]
        obs[name] = {
            "DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK": w,
            "DTLB_LOAD_MISSES.PDE_CACHE_MISS": [int(x * share) + i % 3 for i, x in enumerate(w)],
            "DTLB_LOAD_MISSES.WALK_COMPLETED": w,
            "MEM_UOPS_RETIRED.ALL_LOADS": [200000 + (i * 7919) % 5003 for i in range(intervals)],
        }
    return obs


def write_csv(obs, path, enabled=1000000000):
    with open(path, "w") as f:
        f.write("observation,interval,event,value,enabled_ns,running_ns\n")
        for name, events in obs.items():
            for ev, counts in events.items():
                for i, v in enumerate(counts):
                    f.write("%s,%d,%s,%d,%d,%d\n" % (name, i, ev, v, enabled, enabled))


def check_json(model, data, *options):
    out, _ = cli("check", model, data, "--json", *options, status=(0, 1))
    return json.loads(out)


class TestModel(unittest.TestCase):
    def test_version(self):
        out, _ = cli("--version")
        # the release, then the build's commit when it is not the release
        self.assertEqual("counterpoint " + cp.version(),
                         out.splitlines()[0].split(" (git ")[0])

    def test_declarations(self):
        m = cp.Model(MMU)
        out, _ = cli("paths", MMU, "--list-features")
        listed = [l.split("\t") for l in out.splitlines()]
        self.assertEqual([n for n, _ in listed], m.features)
        self.assertEqual(dict(listed), m.feature_docs)
        self.assertEqual(["load", "store"], sorted(m.uops)[:2])
        w = cp.Model(WALK)
        self.assertEqual("DTLB_LOAD_MISSES.PDE_CACHE_MISS", w.counters["load.pde_miss"])
        self.assertEqual(["load.causes_walk", "load.pde_miss", "load.walk_done",
                          "load.retired"], w.counter_names)

    def test_signatures_are_paths_json(self):
        m = cp.Model(MMU)
        for features in ([], ["merge", "abort"]):
            args = ["paths", MMU, "--json"] + (["--with", ",".join(features)] if features else [])
            want = json.loads(cli(*args)[0])["signatures"]
            got = m.signatures(features)
            self.assertEqual(len(want), len(got))
            for w, g in zip(want, got):
                self.assertEqual(w["uop"], g.uop)
                self.assertEqual(w["paths"], g.paths)
                self.assertEqual(w["paths_by_uop"], g.uops)

    def test_paths(self):
        m = cp.Model(WALK)
        paths = m.paths()
        self.assertEqual(3, len(paths))
        self.assertEqual(sorted(s.vector for s in m.signatures()), sorted(p.vector for p in paths))
        self.assertEqual(1, len(m.paths(limit=1)))
        self.assertIn("+load.pde_miss", paths[2].path)

    def test_cone_is_cone_json(self):
        for model, features in ((WALK, None), (MMU, "merge")):
            args = ["cone", model, "--json"] + (["--with", features] if features else [])
            want = json.loads(cli(*args)[0])
            c = cp.Model(model).cone(features)
            self.assertEqual([k["name"] for k in want["counters"]], c.counters)
            self.assertEqual(want["dimension"], c.dimension)
            self.assertEqual([(tuple(e["vector"]), e["text"]) for e in want["equalities"]],
                             [(e.coefficients, e.text) for e in c.equalities])
            self.assertEqual([(tuple(e["vector"]), e["text"]) for e in want["facets"]],
                             [(f.coefficients, f.text) for f in c.facets])
            self.assertEqual([r["signature"] for r in want["extreme_rays"]], c.extreme)
            # every signature is in its own cone; the first facet's violation is not
            for s in c.signatures:
                self.assertTrue(c.contains(s.vector))
        w = cp.Model(WALK).cone()
        self.assertFalse(w.contains({"load.causes_walk": 1, "load.pde_miss": 2,
                                     "load.walk_done": 1, "load.retired": 1}))

    def test_model_errors(self):
        with self.assertRaises(cp.Error) as e:
            cp.Model(os.path.join(TOP, "no", "such.udd"))
        self.assertEqual(-2, e.exception.code)
        self.assertIn("such.udd", e.exception.message)
        with self.assertRaises(cp.Error) as e:
            cp.Model.from_string('counter a "x";\nuop u { incr b; done; }\n', "t.udd")
        err = e.exception
        self.assertEqual(("t.udd", 2, 14), (err.file, err.line, err.col))
        self.assertEqual("t.udd:2:14: unknown counter 'b'", err.message)
        self.assertIn("^", err.detail)
        self.assertTrue(any("error" in d for d in err.diagnostics))
        with self.assertRaises(cp.Error) as e:
            cp.Model(WALK).signatures(["nope"])
        self.assertIn("'nope'", str(e.exception))


class TestCheck(unittest.TestCase):
    def assert_same(self, want, got):
        self.assertEqual([o["name"] for o in want["observations"]], [v.observation for v in got])
        for w, g in zip(want["observations"], got):
            if not w["usable"]:
                self.assertEqual(("unusable", w["unusable"]), (g.verdict, g.reason))
                continue
            self.assertEqual("feasible" if w["feasible"] else "infeasible", g.verdict)
            self.assertEqual(w["borderline"], g.borderline)
            self.assertEqual(w["undecided"], g.undecided)
            self.assertEqual([v["constraint"] for v in w["violations"]],
                             [v.constraint for v in g.violations])
            for wv, gv in zip(w["violations"], g.violations):
                self.assertEqual(float("%.6g" % gv.margin), wv["margin"])
                self.assertEqual(wv["equality"], gv.equality)
            if "p_value" in w:
                self.assertEqual(w["p_value"], float("%.6g" % g.p_value))

    def test_bundled_sweep(self):
        m = cp.Model(MMU)
        data = cp.Dataset(SWEEP)
        for features in (None, "merge,abort"):
            want = check_json(MMU, SWEEP, *(["--with", features] if features else []))
            got = m.check(data, features)
            self.assertTrue(any(v.verdict == "infeasible" for v in got))
            self.assertTrue(any(v.verdict == "feasible" for v in got))
            self.assert_same(want, got)
            self.assert_same(want, cp.check(MMU, SWEEP, features))

    def test_options(self):
        m = cp.Model(MMU)
        data = cp.Dataset(SWEEP)
        want = check_json(MMU, SWEEP, "--region", "ellipsoid", "--confidence", "0.95",
                          "--batches", "none")
        got = m.check(data, region="ellipsoid", confidence=0.95, batches="none")
        self.assert_same(want, got)
        self.assertTrue(all(v.p_value is not None for v in got if v.verdict != "unusable"))
        with self.assertRaises(ValueError):
            m.check(data, region="sphere")

    def test_arrays_are_the_csv(self):
        obs = walks()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "walks.csv")
            write_csv(obs, path)
            want = check_json(WALK, path)
            region = json.loads(cli("region", path, "--model", WALK, "--json")[0])
        got = cp.Model(WALK).check(cp.Dataset.from_arrays(obs))
        self.assert_same(want, got)
        self.assertEqual(["feasible", "infeasible"], [v.verdict for v in got])
        self.assertEqual("load.pde_miss <= load.causes_walk", got[1].violations[0].constraint)
        self.assertEqual({"load.causes_walk": 1, "load.pde_miss": -1},
                         got[1].violations[0].coefficients)
        self.assertEqual(2, len(region["observations"]))
        # the same as (rows, events) tables
        events = list(obs["good"])
        tables = {n: ([[obs[n][e][i] for e in events] for i in range(16)], events)
                  for n in obs}
        self.assert_same(want, cp.Model(WALK).check(cp.Dataset.from_arrays(tables)))

    @unittest.skipIf(numpy is None, "NumPy is not installed")
    def test_numpy(self):
        obs = walks()
        events = list(obs["good"])
        tables = {n: (numpy.array([[obs[n][e][i] for e in events] for i in range(16)]), events)
                  for n in obs}
        a = cp.Model(WALK).check(cp.Dataset.from_arrays(tables))
        b = cp.Model(WALK).check(cp.Dataset.from_arrays(obs))
        self.assertEqual(a, b)

    def test_data_errors(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.csv")
            with open(path, "w") as f:
                f.write("observation,interval,event,value,enabled_ns,running_ns\n"
                        "o,0,a,1,10,10\no,1,a,x,10,10\n")
            _, stderr = cli("check", WALK, path, status=(2,))
            with self.assertRaises(cp.Error) as e:
                cp.Dataset(path)
        self.assertEqual(3, e.exception.line)
        # the command prints the library's message after its own name
        self.assertEqual(stderr.splitlines()[0], "counterpoint check: " + e.exception.message)
        with self.assertRaises(cp.Error) as e:
            cp.Dataset.from_arrays({"o": {"a": [1, float("nan")]}})
        self.assertIn("not a number", e.exception.message)
        with self.assertRaises(cp.Error) as e:
            cp.Model(WALK).check(cp.Dataset.from_arrays({"o": {"a": [1, 2, 3]}}))
        self.assertIn("DTLB_LOAD_MISSES", e.exception.message)
        # a dataset no observation of which can form a region is not an error
        one = {n: {e: c[:1] for e, c in evs.items()} for n, evs in walks().items()}
        got = cp.Model(WALK).check(cp.Dataset.from_arrays(one))
        self.assertEqual(["unusable", "unusable"], [v.verdict for v in got])
        self.assertTrue(got[0].reason)


class TestExplore(unittest.TestCase):
    def test_is_explore_json(self):
        args = ["--candidates", "merge,abort,bypass", "--exhaustive"]
        want = json.loads(cli("explore", MMU, SWEEP, "--json", *args, status=(0, 1))[0])
        got = cp.Model(MMU).explore(SWEEP, candidates=["merge", "abort", "bypass"],
                                    exhaustive=True)
        self.assertEqual(want, got)
        self.assertEqual(2, got["schema"])
        self.assertEqual(8, got["family_models"])

    def test_errors(self):
        m = cp.Model(MMU)
        with self.assertRaises(cp.Error) as e:
            m.explore(SWEEP, start="nope")
        self.assertIn("'nope'", str(e.exception))
        with self.assertRaises(cp.Error):
            m.explore(SWEEP, candidates="merge,nope")


class TestFlows(unittest.TestCase):
    M = "tests/data/flows/walk_merge.udd"
    D = "tests/data/flows/merge.csv"

    def test_is_flows_json(self):
        for region in ("pca", "independent", "ellipsoid"):
            want = json.loads(cli("flows", self.M, self.D, "--with", "merge",
                                  "--region", region, "--json", status=(0, 1))[0])
            got = cp.Model(self.M).flows(self.D, ["merge"], region=region)
            self.assertEqual(want, got)
        self.assertEqual(2, got["schema"])
        bounded = [o for o in got["observations"] if o["status"] == "bounded"]
        self.assertTrue(bounded)

    def test_errors(self):
        m = cp.Model(self.M)
        with self.assertRaises(cp.Error) as e:
            m.flows(self.D, "nope")
        self.assertIn("'nope'", str(e.exception))
        with self.assertRaises(cp.Error):
            m.flows(self.D, [])
        with self.assertRaises(ValueError):
            m.flows(self.D, "merge", region="sphere")


if __name__ == "__main__":
    unittest.main()
