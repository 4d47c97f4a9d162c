"""
Letting cross-validation choose the F-optimal route
===================================================

Which model of the label distribution gives the best F-optimal predictions depends on the data:
a forest's leaves on one set, a multinomial model over the label sets on another, logistic models
per label on a third. :class:`fmeasure.FOptimalSearchCV` tries several routes, each with a few
settings, scores every one by k-fold cross-validation of the mean instance-wise F-measure on the
training set, and refits the best on all of it. The test set plays no part in the choice.

Below, the search on a real dataset, MULAN's emotions (music clips, 72 rhythm and timbre features,
6 emotion labels), loaded with :func:`fmeasure.datasets.load_mulan` with its fixed train/test
split: each candidate's cross-validated F with its standard error over the folds, the chosen one
marked, and beside it the F each candidate's refit reaches on the test set (shown for comparison
only).
"""

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.base import clone

from fmeasure import FOptimalSearchCV
from fmeasure.datasets import load_mulan
from fmeasure.metrics import mean_f_measure

SMALL = os.environ.get("FMEASURE_EXAMPLES_SMALL") == "1"
OUT = Path(os.environ.get("FMEASURE_EXAMPLES_OUT", "."))

# %%
# The data: emotions
# ------------------
# 391 training and 202 test clips, 6 labels (about 1.9 per clip). ``load_mulan`` takes the files
# from a mirror folder (``mirror=``, or ``$FMEASURE_DATA_MIRROR``) or downloads them (400 kB) from
# MULAN's repository, checks their sha256 and keeps the parsed arrays in ``~/scikit_learn_data``:
# the next run reads them from there. ``list_datasets()`` lists the other datasets it knows.
emotions = load_mulan("emotions")
X_train, Y_train, X_test, Y_test = emotions.X_train, emotions.Y_train, emotions.X_test, emotions.Y_test
print(f"{X_train.shape[0]} train, {X_test.shape[0]} test, {X_train.shape[1]} features")
print("labels:", ", ".join(emotions.target_names))

# %%
# The search
# ----------
# Every default route that the size rules keep, each with its few settings, 5-fold CV; on small data
# the "fast" set (four routes, one setting each) and 3-fold CV. Seeded: the same folds and the same
# forests on every run.
routes = "fast" if SMALL else "default"
search = FOptimalSearchCV(routes, cv=3 if SMALL else 5, random_state=0).fit(X_train, Y_train)
print(f"chosen: {search.best_candidate_} {search.best_params_}, CV F {search.best_score_:.3f}")
print(f"test F of the search: {search.score(X_test, Y_test):.3f}")

# %%
# Each candidate's CV score, and its test score for comparison
# ------------------------------------------------------------
res = pd.DataFrame(search.cv_results_)
res["label"] = [
    name + ("" if not p else " (" + ", ".join(f"{k.rsplit('__', 1)[-1]}={v}" for k, v in p.items()) + ")")
    for name, p in zip(res["candidate"], res["params"])
]


def refit(i, name, params):
    # the chosen candidate is the search's own refit (best_estimator_); the others are fitted here
    if i == search.best_index_:
        return search.best_estimator_
    return clone(search.candidates_[name][0]).set_params(**params).fit(X_train, Y_train)


res["test_f"] = [
    mean_f_measure(Y_test, refit(i, name, p).predict(X_test))
    for i, (name, p) in enumerate(zip(res["candidate"], res["params"]))
]
print(res[["label", "mean_test_score", "se_test_score", "test_f"]].round(3).to_string(index=False))

fig, ax = plt.subplots(figsize=(8, 0.45 * len(res) + 2.2))
y = np.arange(len(res))[::-1]
ax.errorbar(
    res["mean_test_score"],
    y,
    xerr=res["se_test_score"],
    fmt="o",
    color="black",
    markerfacecolor="white",
    capsize=3,
    label="cross-validated F (training set) +- SE over folds",
)
ax.plot(res["test_f"], y, "x", color="0.45", label="F on the test set (not used by the search)")
best = search.best_index_
ax.plot(res["mean_test_score"][best], y[best], "o", color="black", markersize=9, zorder=3, label="chosen")
ax.set_yticks(y, res["label"], fontsize=8)
ax.set_xlabel("mean instance-wise F")
ax.set_title("FOptimalSearchCV on emotions: each candidate, the chosen one filled", fontsize=11)
ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.4, -0.2), ncol=2, frameon=False)
fig.tight_layout()
OUT.mkdir(parents=True, exist_ok=True)
fig.savefig(OUT / "plot_foptimal_search.png", dpi=120)
