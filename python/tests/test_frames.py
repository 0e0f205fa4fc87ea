# SPDX-License-Identifier: GPL-3.0-or-later
"""The binding with pandas, its errors and its reprs, against the command:
Dataset.from_frame (long and wide frames) gives check's verdicts on the
same counts; Verdicts.to_frame() and violations(), Model.region() and
Flows.to_frame() hold what `check --json`, `region --json` and `flows
--json` print; without pandas the same tables are lists of dicts.  Run
as test_counterpoint.py is."""

import errno
import json
import math
import os
import tempfile
import unittest

import counterpoint as cp
from test_counterpoint import MMU, SWEEP, TOP, WALK, check_json, cli, walks, write_csv

try:
    import pandas
except ImportError:
    pandas = None


class TestErrors(unittest.TestCase):
    def test_missing_files(self):
        for make in (lambda p: cp.Model(p), lambda p: cp.Dataset(p),
                     lambda p: cp.check(p, SWEEP), lambda p: cp.check(MMU, p),
                     lambda p: cp.Model(WALK).check(p)):
            path = os.path.join(TOP, "no", "such.file")
            with self.assertRaises(FileNotFoundError) as e:
                make(path)
            err = e.exception
            self.assertIsInstance(err, cp.Error)
            self.assertIsInstance(err, cp.FileError)
            self.assertEqual((errno.ENOENT, path, cp.CP_EIO), (err.errno, err.filename, err.code))
            self.assertIn("such.file", str(err))

    def test_bad_input_is_a_value_error(self):
        with self.assertRaises(ValueError) as e:
            cp.Model.from_string('counter a "x";\nuop u { incr b; done; }\n', "t.udd")
        self.assertIsInstance(e.exception, cp.InputError)
        self.assertEqual("t.udd:2:14: unknown counter 'b'", e.exception.message)
        self.assertTrue(str(e.exception).startswith("t.udd:2:14: unknown counter 'b'\n"))
        with self.assertRaises(ValueError):
            cp.Dataset.from_csv("observation,interval,event,value,enabled_ns,running_ns\n"
                                "o,0,a,x,1,1\n")
        with self.assertRaises(cp.InputError):
            cp.Model(WALK).check(SWEEP, region="sphere")
        with self.assertRaises(cp.InputError):
            cp.Model(WALK).signatures("nope")

    def test_unreadable(self):
        if os.geteuid() == 0:
            self.skipTest("root reads every file")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.udd")
            with open(path, "w") as f:
                f.write("x")
            os.chmod(path, 0)
            with self.assertRaises(cp.FileError) as e:
                cp.Model(path)
            self.assertNotIsInstance(e.exception, FileNotFoundError)


class TestReprs(unittest.TestCase):
    def test_reprs(self):
        m = cp.Model(MMU)
        self.assertEqual("<counterpoint.Model %r: 10 features, 26 counters, 2 uops>" % MMU,
                         repr(m))
        d = cp.Dataset(SWEEP)
        self.assertEqual("<counterpoint.Dataset %r: 36 observations, 28 events>" % SWEEP,
                         repr(d))
        v = m.check(d)
        self.assertEqual("<counterpoint.Verdicts: 36 observations, 15 feasible, 21 "
                         "infeasible, 0 unusable>", repr(v))
        c = cp.Model(WALK).cone()
        self.assertEqual("<counterpoint.Cone: 4 counters, dimension 3, 1 equality, "
                         "3 facets, 3 signatures>", repr(c))
        r = cp.Model(WALK).region(cp.Dataset.from_arrays(walks()))
        self.assertEqual("<counterpoint.Regions: 2 observations, 0 unusable>", repr(r))
        self.assertEqual("<counterpoint.Region 'good': 4 counters, 16 samples, "
                         "confidence 0.99>", repr(r[0]))


def tables(verdicts):
    """check's verdicts and violations as rows, from to_frame() and
    violations() whichever type they are."""
    t, v = verdicts.to_frame(), verdicts.violations()
    if pandas is not None:
        t, v = t.to_dict("records"), v.to_dict("records")
    return t, v


def nan_to_none(x):
    return None if isinstance(x, float) and math.isnan(x) else x


class TestTables(unittest.TestCase):
    def check_tables(self, want, verdicts):
        t, v = tables(verdicts)
        self.assertEqual([o["name"] for o in want["observations"]],
                         [r["observation"] for r in t])
        rows = []
        for o, r in zip(want["observations"], t):
            verdict = "unusable" if not o["usable"] else \
                "feasible" if o["feasible"] else "infeasible"
            self.assertEqual(verdict, r["verdict"])
            self.assertEqual(len(o["violations"]), r["violations"])
            if o["violations"]:
                self.assertAlmostEqual(max(x["margin"] for x in o["violations"]),
                                       r["largest_margin"], delta=1e-5 * r["largest_margin"])
            else:
                self.assertIsNone(nan_to_none(r["largest_margin"]))
            rows += [(o["name"], x["constraint"], float("%.6g" % x["margin"]),
                      float("%.6g" % x["centre_sd"]), x["equality"]) for x in o["violations"]]
        self.assertEqual(rows, [(r["observation"], r["constraint"],
                                 float("%.6g" % r["margin"]), float("%.6g" % r["centre"]),
                                 r["equality"]) for r in v])

    def test_verdict_tables(self):
        want = check_json(MMU, SWEEP)
        self.check_tables(want, cp.Model(MMU).check(SWEEP))

    def test_without_pandas(self):
        real = cp._pandas
        cp._pandas = lambda: None
        try:
            verdicts = cp.Model(MMU).check(SWEEP)
            self.assertIsInstance(verdicts.to_frame(), list)
            self.assertIsInstance(verdicts.violations(), list)
            self.assertIsInstance(cp.Model(WALK).region(
                cp.Dataset.from_arrays(walks())).to_frame(), list)
            global pandas
            saved, pandas = pandas, None
            try:
                self.check_tables(check_json(MMU, SWEEP), verdicts)
            finally:
                pandas = saved
        finally:
            cp._pandas = real

    def test_regions(self):
        obs = walks()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "walks.csv")
            write_csv(obs, path)
            want = json.loads(cli("region", path, "--model", WALK, "--json")[0])
        got = cp.Model(WALK).region(cp.Dataset.from_arrays(obs))
        self.assertEqual([o["name"] for o in want["observations"]], [r.observation for r in got])
        for w, g in zip(want["observations"], got):
            self.assertEqual([c["name"] for c in w["counters"]], g.counters)
            self.assertEqual(w["samples"], g.samples)
            for c, m, h in zip(w["counters"], g.mean, g.half_independent):
                self.assertAlmostEqual(c["mean"], m, delta=1e-9 * abs(m))
                self.assertAlmostEqual(c["half_independent"], h, delta=1e-9 * abs(h))
            self.assertEqual(len(w["covariance"]), len(g.covariance))
        rows = got.to_frame()
        if pandas is not None:
            rows = rows.to_dict("records")
        self.assertEqual(8, len(rows))
        for r in rows:
            self.assertAlmostEqual(r["hi"] - r["lo"], 2 * r["half_independent"])
        # an observation with one interval has no region: it says why
        one = {n: {e: c[:1] for e, c in evs.items()} for n, evs in walks().items()}
        r = cp.Model(WALK).region(cp.Dataset.from_arrays(one))
        self.assertFalse(r[0].usable)
        self.assertTrue(r[0].reason)

    def test_flows_frame(self):
        M, D = "tests/data/flows/walk_merge.udd", "tests/data/flows/merge.csv"
        fl = cp.Model(os.path.join(TOP, M)).flows(os.path.join(TOP, D), "merge")
        rows = fl.to_frame()
        if pandas is not None:
            rows = [{k: nan_to_none(v) for k, v in r.items()} for r in rows.to_dict("records")]
        want = json.loads(cli("flows", M, D, "--with", "merge", "--json", status=(0, 1))[0])
        got = {(r["observation"], r["status"]): r for r in rows}
        for o in want["observations"]:
            r = got[(o["name"], o["status"])]
            if o["status"] != "bounded":
                self.assertIsNone(r.get("uop"))
                continue
            b = o["uops"]["load"]["merge"]
            self.assertEqual(b["share"], [r["share_lo"], r["share_hi"]])
            self.assertEqual(b["rate"], [r["rate_lo"], r["rate_hi"]])


@unittest.skipIf(pandas is None, "pandas is not installed")
class TestFromFrame(unittest.TestCase):
    def test_long_frame(self):
        df = pandas.read_csv(SWEEP)
        m = cp.Model(MMU)
        want = m.check(SWEEP)
        self.assertEqual(want, m.check(df))
        self.assertEqual(want, m.check(cp.Dataset.from_frame(df)))
        self.assertEqual(want, m.check(cp.Dataset.from_arrays(df)))
        # without the optional columns: every interval counted for a second
        obs = walks()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "walks.csv")
            write_csv(obs, path)
            full = pandas.read_csv(path)
            want = cp.Model(WALK).check(path)
        short = full[["observation", "event", "value"]]
        self.assertEqual(want, cp.Model(WALK).check(short))

    def test_wide_frames(self):
        obs = walks()
        want = cp.Model(WALK).check(cp.Dataset.from_arrays(obs))
        frames = {n: pandas.DataFrame(evs) for n, evs in obs.items()}
        # one frame: rows are intervals, columns events, an observation column
        both = pandas.concat([f.assign(observation=n) for n, f in frames.items()])
        self.assertEqual(want, cp.Model(WALK).check(both))
        # or the observation as an index level
        self.assertEqual(want, cp.Model(WALK).check(both.set_index("observation")))
        # a dict of frames; one frame named by observation=
        self.assertEqual(want, cp.Model(WALK).check(cp.Dataset.from_frame(frames)))
        one = cp.Model(WALK).check(cp.Dataset.from_frame(frames["bad"], observation="bad"))
        self.assertEqual([want[1]], one)

    def test_frame_errors(self):
        with self.assertRaises(ValueError):
            cp.Dataset.from_frame(pandas.DataFrame({"observation": ["a,b"], "event": ["e"],
                                                    "value": [1]}))
        with self.assertRaises(ValueError):
            cp.Dataset.from_frame(pandas.DataFrame({"e": [1.0, float("nan")]}))


if __name__ == "__main__":
    unittest.main()
