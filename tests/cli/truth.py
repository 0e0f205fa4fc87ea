# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/truth.py: the simulator's true flows, for the tests that hold
# flow bounds against them (flows_truth.sh, explore_flows.sh).  For a
# dataset and its `sim --truth` file: per (observation, feature) the true
# share of retired loads on the feature's μpaths and its rate per second,
# with rates per second of each interval as the regions have them.  The
# truth quantity of each feature is what its μpaths that count something
# are in the simulator:
#   merge     path merged (retired μops translated by a merged walk)
#   abort     path walk_aborted (own walk started, then aborted)
#   prefetch  events pf_walk + pf_abort_absent + pf_abort_abit (walks)
#   replay    event replayed (re-walks at retirement)
import csv

PATHS = {"merge": ["merged"], "abort": ["walk_aborted"],
         "prefetch": ["pf_walk", "pf_abort_absent", "pf_abort_abit"],
         "replay": ["replayed"]}
RETIRED = ["dtlb_hit", "stlb_hit", "waited", "merged", "walk_1ref",
           "walk_2ref", "walk_3ref", "walk_4ref", "walk_bypassed"]


def true_flows(data, truth, feats, intervals):
    """{(observation, feature): (share, rate)}; asserts that the truth's
    retired loads are the counter's."""
    ns, retired_ev = {}, {}
    for r in csv.DictReader(open(data)):
        key = (r["observation"], r["interval"])
        ns[key] = int(r["enabled_ns"])
        if r["event"] == "MEM_UOPS_RETIRED.ALL_LOADS":
            retired_ev[key] = int(r["value"])
    num, den, ret = {}, {}, {}
    for r in csv.DictReader(open(truth)):
        if r["uop"] != "load":
            continue
        key = (r["observation"], r["interval"])
        rate = int(r["count"]) * 1e9 / ns[key]
        o = r["observation"]
        for f in feats:
            if r["path"] in PATHS[f]:
                num[(o, f)] = num.get((o, f), 0) + rate
        if r["path"] in RETIRED:
            den[o] = den.get(o, 0) + rate
            ret[key] = ret.get(key, 0) + int(r["count"])
    assert ret == retired_ev, "truth's retired loads differ from the counter"
    return {(o, f): (num.get((o, f), 0) / den[o], num.get((o, f), 0) / intervals)
            for o in den for f in feats}


def inside(bounds, share, rate):
    """Do a (uop, feature)'s bounds in flows --json hold the truth?"""
    return (bounds["share"][0] <= share <= bounds["share"][1] and
            bounds["rate"][0] <= rate <= bounds["rate"][1])
