# SPDX-License-Identifier: GPL-3.0-or-later
# %% [markdown]
# # Which features do the data need?  A session with counterpoint and pandas
#
# The notebook form of docs/manual/python.md: each `# %%` cell runs on its own
# in Jupyter or VS Code, and the whole file runs as a script
# (`python3 docs/examples/explore.py`; tests/cli/python_venv.sh does).
# It needs the `counterpoint` package (docs/manual/python.md, "Installing")
# and pandas.

# %%
import os

import pandas as pd

import counterpoint as cp

TOP = os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
model = cp.Model(os.path.join(TOP, "models", "haswell", "mmu.udd"))
# the bundled simulator sweep, every feature on: 36 observations
data = pd.read_csv(os.path.join(TOP, "datasets", "sim-sweep-all.csv"))
print(model)
print(data.observation.nunique(), "observations,", data.event.nunique(), "events")

# %% [markdown]
# ## The baseline model against the data
# A DataFrame goes in as it is; the verdicts come back as a table.

# %%
verdicts = model.check(data)
print(verdicts)
table = verdicts.to_frame()
print(table.sort_values("largest_margin", ascending=False)
      .head(5)[["observation", "verdict", "violations", "largest_margin"]]
      .to_string(index=False))

# %% [markdown]
# ## Which constraints break, and where
# One row per (observation, violated constraint); pivoted, the table of
# observations x constraints that `check --html` draws.

# %%
broken = verdicts.violations()
ranked = broken.groupby("constraint").observation.count().sort_values(ascending=False)
print(ranked.head(3).to_string())
grid = broken.pivot_table(index="observation", columns="constraint", values="margin")
print("observations x constraints:", grid.shape)

# %% [markdown]
# ## Search the family
# Every subset of four candidate features, as `counterpoint explore
# --exhaustive --json` reports it.

# %%
report = model.explore(data, candidates=["merge", "pde_early", "bypass", "replay"],
                       exhaustive=True)
required = [r["feature"] for r in report["required"]]
print("required:", required)
print("minimal:", report["minimal"])

# %% [markdown]
# ## How much of each feature the minimal model needs
# The certified share of each uop's μops on the μpaths a feature adds,
# per observation; here its range over the observations.

# %%
minimal = report["minimal"][0]
flows = model.flows(data, minimal).to_frame()
bounded = flows[flows.status == "bounded"]
print(bounded.groupby(["uop", "feature"])[["share_lo", "share_hi"]]
      .agg({"share_lo": "min", "share_hi": "max"}).to_string())

# %% [markdown]
# ## One observation's confidence region
# Per counter: the mean rate, its standard deviation and the
# independent box.

# %%
regions = model.region(data).to_frame()
one = regions[regions.observation == "random-fp16g-4k"]
print(one[["counter", "mean", "sd", "lo", "hi"]].head(4).to_string(index=False))
