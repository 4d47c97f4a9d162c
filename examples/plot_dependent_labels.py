"""
Thresholding, FM and GFM on dependent labels
============================================

Three ways to turn probabilities into a set of labels, compared by the F-measure they can expect:

* **thresholding** the marginals P(y_j = 1 | x): at 0.5 (optimal for the Hamming loss), or at the
  single threshold that is best for F on these instances;
* **FM** (Ye et al.'s dynamic program, :func:`fmeasure.inference.fm`): exact F-optimal prediction
  from the marginals, *if the labels are independent*;
* **GFM** (:func:`fmeasure.inference.gfm_from_p`): exact F-optimal prediction for any joint
  distribution; it needs ``P(y_j = 1, |y| = s)``, which a model of the joint distribution (or a
  sample from it) provides.

Each instance has labels that come in *topics*: a topic switches on a block of labels together,
so labels of one topic co-occur and labels of different topics rarely do; one "topic" switches
every label off. The parameter rho mixes
this joint distribution with the independent one that has the same marginals: every method that
only sees marginals makes the same prediction for every rho, and only its expected F changes.
At rho = 0 the labels are independent and FM is optimal; as rho grows, FM still believes its
own expected F (dotted line), but the truth drifts below it, for strong dependence even below
the best threshold, while GFM gains from the dependence. All expectations are exact (every label vector enumerated).
"""

import itertools
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from fmeasure import estimation, inference

SMALL = os.environ.get("FMEASURE_EXAMPLES_SMALL") == "1"
OUT = Path(os.environ.get("FMEASURE_EXAMPLES_OUT", "."))
rng = np.random.default_rng(0)

# %%
# A joint distribution with strongly dependent labels
# ---------------------------------------------------
# n instances, m labels, 3 topics per instance. Topic t of instance i has weight w[i, t] and turns
# each label of its block on with probability 0.9 (others: 0.01); topic 0 turns every label off.
# Every label vector of {0,1}^m is enumerated, so that expectations are exact.
n, m, n_topics = (40, 6, 3) if SMALL else (300, 8, 3)
Y = np.array(list(itertools.product([0, 1], repeat=m)), dtype=np.int8)  # (2^m, m)
w = rng.dirichlet(np.ones(n_topics), size=n)
q = np.where(rng.random((n, n_topics, m)) < 0.5, 0.9, 0.01)
q[:, 0] = 0.0


def product_probs(p):
    """P(y) of every y in Y when the labels are independent with marginals p (n, m) -> (n, 2^m)."""
    return np.prod(np.where(Y[None] == 1, p[:, None, :], 1 - p[:, None, :]), axis=2)


topics = sum(w[:, [t]] * product_probs(q[:, t]) for t in range(n_topics))  # the dependent joint
p = np.einsum("nt,ntm->nm", w, q)  # its marginals
independent = product_probs(p)  # the independent joint with the same marginals
support = np.broadcast_to(Y, (n, *Y.shape))

# %%
# Predictions that only use the marginals do not depend on rho
h_fm, believed = inference.fm(p)
h_half = (p > 0.5).astype(np.int8)
thetas = np.linspace(0.05, 0.95, 19)
h_theta = [(p >= t).astype(np.int8) for t in thetas]

rhos = np.linspace(0, 1, 3 if SMALL else 11)
rows = []
for rho in rhos:
    probs = (1 - rho) * independent + rho * topics
    _, ef_gfm = inference.gfm_from_p(*estimation.p_matrix(support, probs))
    ef_theta = [inference.expected_f(support, probs, h).mean() for h in h_theta]
    rows.append(
        dict(
            GFM=ef_gfm.mean(),
            FM=inference.expected_f(support, probs, h_fm).mean(),
            best_threshold=max(ef_theta),
            threshold_05=inference.expected_f(support, probs, h_half).mean(),
        )
    )
    print(f"rho = {rho:.1f}: " + ", ".join(f"{k} {v:.3f}" for k, v in rows[-1].items()))

# %%
# Expected F of each method
# -------------------------
# Left: the mean over instances of the exact expected F. Right: per instance, how much GFM gains
# over FM at the strongest dependence (rho = 1).
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
curves = [
    ("GFM", "GFM (any joint distribution)", dict(color="black", marker="o")),
    ("FM", "FM (assumes independence)", dict(color="0.35", marker="o", markerfacecolor="white", linestyle="-.")),
    ("best_threshold", "best single threshold", dict(color="0.3", marker="D", linestyle=(0, (5, 2)))),
    ("threshold_05", "threshold 0.5", dict(color="0.6", marker="s", linestyle="--")),
]
for key, label, kw in curves:
    ax.plot(rhos, [r[key] for r in rows], label=label, **kw)
ax.axhline(believed.mean(), color="0.35", linestyle=":", label="FM's own estimate of its E[F]")
ax.set_xlabel("dependence rho (0: independent labels, 1: topics)")
ax.set_ylabel("mean expected F-measure")
ax.legend(fontsize=8)
ax.set_title("same marginals, more and more dependence")

probs = topics
_, ef_gfm = inference.gfm_from_p(*estimation.p_matrix(support, probs))
gain = ef_gfm - inference.expected_f(support, probs, h_fm)
ax2.hist(gain, bins=20, color="0.5", edgecolor="black")
ax2.set_xlabel("E[F] of GFM minus E[F] of FM, per instance (rho = 1)")
ax2.set_ylabel("instances (log scale)")
ax2.set_yscale("log")
ax2.set_title(f"GFM >= FM on every instance; gains up to {gain.max():.2f}")
fig.tight_layout()
fig.savefig(OUT / "plot_dependent_labels.png", dpi=120)
