"""
The command line on a CSV of probabilities
==========================================

Probabilities often come from elsewhere: a neural network with one sigmoid output per label, a
model in R or Julia. ``fmeasure predict`` reads them from a CSV (one row per instance, one
column per label) and writes the F-optimal prediction of each row with its expected F;
``fmeasure evaluate`` scores predictions against true labels. This example writes such a CSV,
runs both commands as a user would (here through ``python -m fmeasure``, which is the same as
the ``fmeasure`` command), reads the output back and compares it with thresholding at 0.5.

Thresholding at 0.5 maximises the expected Hamming accuracy, not F: for an instance whose labels
are all uncertain it predicts nothing, and F-optimal predictions often include labels with a
probability well below 0.5 (Theorem 4.1 of the paper: the optimum under independence is the top
k labels for some k, which FM finds exactly).
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fmeasure.inference import expected_f_independent

SMALL = os.environ.get("FMEASURE_EXAMPLES_SMALL") == "1"
OUT = Path(os.environ.get("FMEASURE_EXAMPLES_OUT", "."))

# %%
# Probabilities from "a network", and true labels drawn from them
# ---------------------------------------------------------------
# Scores are Gaussian with a label-specific offset (rare and frequent labels); a sigmoid turns
# them into P(y_j = 1 | x). The true labels are drawn independently from these probabilities,
# so the probabilities are calibrated and FM's expected F is exact.
n, m = (300, 12) if SMALL else (3000, 25)
rng = np.random.default_rng(0)
offset = rng.normal(-2.0, 1.0, size=m)
p = 1.0 / (1.0 + np.exp(-(offset + rng.normal(0.0, 1.5, size=(n, m)))))
y = (rng.random((n, m)) < p).astype(int)
names = [f"label_{j:02d}" for j in range(m)]

tmp = tempfile.TemporaryDirectory()  # the CSV files live here; only the figure is kept
work = Path(tmp.name)
pd.DataFrame(p, columns=names).to_csv(work / "P.csv", index=False)
pd.DataFrame(y, columns=names).to_csv(work / "Y.csv", index=False)
pd.DataFrame((p > 0.5).astype(int), columns=names).to_csv(work / "T.csv", index=False)


def fmeasure(*args):
    """Run the fmeasure command line and return what it printed."""
    r = subprocess.run([sys.executable, "-m", "fmeasure", *map(str, args)], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"fmeasure {args[0]} failed with exit code {r.returncode}: {r.stderr.strip()}")
    return r.stdout


# %%
# ``fmeasure predict``: one row per instance, the 0/1 label columns, then expected_f
fmeasure("predict", "--marginals", work / "P.csv", "-o", work / "H.csv")
H = pd.read_csv(work / "H.csv")
print(H.head())

# %%
# ``fmeasure evaluate``: the four measures with bootstrap intervals, for FM and for thresholding
print("FM:\n" + fmeasure("evaluate", "--true", work / "Y.csv", "--pred", work / "H.csv", "--n-boot", 200))
print("threshold 0.5:\n" + fmeasure("evaluate", "--true", work / "Y.csv", "--pred", work / "T.csv", "--n-boot", 200))

# %%
# Predicted set sizes, and the expected F of each instance
# --------------------------------------------------------
h_fm = H[names].to_numpy()
h_thr = (p > 0.5).astype(np.int8)
ef_fm = H["expected_f"].to_numpy()
ef_thr = expected_f_independent(p, h_thr)

fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
sizes = np.arange(0, max(h_fm.sum(1).max(), h_thr.sum(1).max()) + 1)
width = 0.4
ax.bar(sizes - width / 2, np.bincount(h_thr.sum(1), minlength=len(sizes)), width, color="0.75", edgecolor="black")
ax.bar(sizes + width / 2, np.bincount(h_fm.sum(1), minlength=len(sizes)), width, color="0.2", edgecolor="black")
ax.legend(["threshold 0.5", "fmeasure predict (FM)"])
ax.set_xlabel("number of predicted labels")
ax.set_ylabel("instances")
ax.set_title(f"predicted set sizes ({n} instances, {m} labels)")

ax2.scatter(ef_thr, ef_fm, s=6, color="black", alpha=0.5)
ax2.plot([0, 1], [0, 1], color="0.5", linestyle="--", linewidth=1)
ax2.set_xlabel("expected F of thresholding at 0.5")
ax2.set_ylabel("expected F of fmeasure predict")
ax2.set_title(f"mean E[F]: {ef_thr.mean():.3f} threshold, {ef_fm.mean():.3f} FM")
ax2.set_aspect("equal")
fig.tight_layout()
fig.savefig(OUT / "plot_command_line.png", dpi=120)
tmp.cleanup()
