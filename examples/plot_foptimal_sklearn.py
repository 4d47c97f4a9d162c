"""
Making a scikit-learn model F-optimal
=====================================

A scikit-learn multi-label model predicts each label on its own: a label is in the set when its
own classifier says so (probability above 0.5 for most models). That is optimal for the Hamming
loss, not for the instance-wise F-measure, which rewards a set that catches the labels of each
instance. :class:`fmeasure.FOptimalClassifier` keeps the model and changes only the last step:
it reads the distribution of the labels the model gives for an instance and predicts the set with
the largest expected F under it, by exact inference:

* a model of per-label probabilities (``MultiOutputClassifier``, ``MLPClassifier``, ...): FM,
  Ye et al.'s dynamic program, exact when the labels are independent given x;
* a random forest, a k-nearest-neighbour model or a classifier chain: GFM on the label vectors
  the model offers for x (the training labels in x's leaves, x's neighbours' labels, or label
  vectors drawn from the chain), exact for any joint distribution of the labels.

One line per model: ``FOptimalClassifier(model)``. Below, four models on a synthetic multi-label
problem: their own ``predict`` against the same fitted model made F-optimal (an already fitted
model is wrapped in ``FrozenEstimator`` and not refitted). The right panel checks what the
wrapper promises: the expected F it reports (:meth:`~fmeasure.FOptimalClassifier.predict_expected_f`)
against the F measured on the test set, per decile of the expected F.
"""

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_multilabel_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fmeasure import FOptimalClassifier
from fmeasure.metrics import f_measure

SMALL = os.environ.get("FMEASURE_EXAMPLES_SMALL") == "1"
OUT = Path(os.environ.get("FMEASURE_EXAMPLES_OUT", "."))

# %%
# A multi-label problem
# ---------------------
# 20 labels, about 3 per instance, 40 features; half of the instances for training.
n = 600 if SMALL else 4000
X, Y = make_multilabel_classification(
    n_samples=n, n_features=40, n_classes=20, n_labels=3, allow_unlabeled=True, random_state=0
)
X_train, X_test, Y_train, Y_test = train_test_split(X, Y, test_size=0.5, random_state=0)

# %%
# Four models, each fitted once
# -----------------------------
# Each model is fitted once; ``predict`` is its own prediction, ``FOptimalClassifier`` wraps the
# same fit in ``FrozenEstimator`` (``FOptimalClassifier(model).fit(X, Y)`` would fit a clone).
models = {
    "logistic (one per label)": make_pipeline(StandardScaler(), MultiOutputClassifier(LogisticRegression())),
    "classifier chain": make_pipeline(StandardScaler(), ClassifierChain(LogisticRegression())),
    "random forest": RandomForestClassifier(n_estimators=30 if SMALL else 100, min_samples_leaf=3, random_state=0),
    "10 nearest neighbours": make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=10)),
}
rows = []
for name, model in models.items():
    model.fit(X_train, Y_train)
    f_optimal = FOptimalClassifier(FrozenEstimator(model), n_samples=200 if SMALL else 1000, random_state=0)
    f_optimal.fit(X_train, Y_train)
    F_own = f_measure(Y_test, model.predict(X_test))
    F_opt = f_measure(Y_test, f_optimal.predict(X_test))
    expected = f_optimal.predict_expected_f(X_test)
    rows.append((name, f_optimal.route_, F_own.mean(), F_opt.mean(), expected, F_opt))
    print(f"{name:<26} {f_optimal.route_:<15} F: predict {F_own.mean():.3f}, F-optimal {F_opt.mean():.3f}")

# %%
# Test F of both predictions, and expected against measured F
# -----------------------------------------------------------
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
x = np.arange(len(rows))
ax.bar(x - 0.2, [r[2] for r in rows], 0.4, color="0.75", edgecolor="black", label="model.predict")
ax.bar(x + 0.2, [r[3] for r in rows], 0.4, color="0.25", edgecolor="black", hatch="//", label="FOptimalClassifier")
ax.set_xticks(x, [f"{r[0]}\n({r[1]})" for r in rows], fontsize=7)
ax.set_ylabel("mean instance-wise F on the test set")
ax.set_ylim(0, 1)
ax.legend(loc="upper right", fontsize=8)
ax.set_title("Same fitted model, two predictions")

markers = ["o", "s", "^", "D"]
for (name, _, _, _, expected, F_opt), marker in zip(rows, markers):
    edges = np.quantile(expected, np.linspace(0, 1, 11))
    bins = np.clip(np.searchsorted(edges, expected, side="right") - 1, 0, 9)
    used = [b for b in range(10) if np.any(bins == b)]
    ax2.plot(
        [expected[bins == b].mean() for b in used],
        [F_opt[bins == b].mean() for b in used],
        marker=marker,
        color="black",
        linestyle="-",
        markerfacecolor="white",
        label=name,
    )
ax2.plot([0, 1], [0, 1], color="0.6", linestyle=":", label="expected = measured")
ax2.set_xlabel("expected F reported by FOptimalClassifier (decile means)")
ax2.set_ylabel("measured F on the test set")
ax2.legend(fontsize=7)
ax2.set_title("Does the model's expected F hold?")
fig.tight_layout()
OUT.mkdir(parents=True, exist_ok=True)
fig.savefig(OUT / "plot_foptimal_sklearn.png", dpi=120)
