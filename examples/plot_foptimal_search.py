"""
Letting cross-validation choose the F-optimal route
===================================================

Which model of the label distribution gives the best F-optimal predictions depends on the data:
a forest's leaves on one set, a multinomial model over the label sets on another, logistic models
per label on a third. :class:`fmeasure.FOptimalSearchCV` tries several routes, each with a few
settings, scores every one by k-fold cross-validation of the mean instance-wise F-measure on the
training set, and refits the best on all of it. The test set plays no part in the choice.

Below, the search on a synthetic multi-label problem: each candidate's cross-validated F with its
standard error over the folds, the chosen one marked, and beside it the F each candidate's refit
reaches on held-out data (shown for comparison only).
"""

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.datasets import make_multilabel_classification
from sklearn.model_selection import train_test_split

from fmeasure import FOptimalSearchCV
from fmeasure.metrics import mean_f_measure

SMALL = os.environ.get("FMEASURE_EXAMPLES_SMALL") == "1"
OUT = Path(os.environ.get("FMEASURE_EXAMPLES_OUT", "."))

# %%
# A multi-label problem
# ---------------------
# 8 labels, about 2 per instance, 20 features; a third of the instances held out for testing.
X, Y = make_multilabel_classification(
    n_samples=300 if SMALL else 3000, n_features=20, n_classes=8, n_labels=2, allow_unlabeled=True, random_state=1
)
X_train, X_test, Y_train, Y_test = train_test_split(X, Y, test_size=1 / 3, random_state=0)

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
res["test_f"] = [
    mean_f_measure(Y_test, clone(search.candidates_[name][0]).set_params(**p).fit(X_train, Y_train).predict(X_test))
    for name, p in zip(res["candidate"], res["params"])
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
ax.set_title("FOptimalSearchCV: every candidate, the chosen one filled")
ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.4, -0.2), ncol=2, frameon=False)
fig.tight_layout()
OUT.mkdir(parents=True, exist_ok=True)
fig.savefig(OUT / "plot_foptimal_search.png", dpi=120)
