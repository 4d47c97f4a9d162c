"""
Choosing the number of samples for GFM
======================================

GFM needs the joint distribution of the labels only through ``P(y_j = 1, |y| = s)`` and
P(y = 0). When a model can *sample* label vectors (a probabilistic classifier chain, a
Bayesian network, an ensemble, a generative neural network), GFM can run on k samples per
instance (:func:`fmeasure.inference.gfm_from_samples`). How many samples are enough?

Here the distribution is known exactly (the label "topics" of the previous example), so the
regret of each prediction, E[F] of the exact optimum minus E[F] of the prediction, is computed
exactly for every k and for several seeds. For comparison: FM on the marginals estimated from
the same samples, and FM on the *exact* marginals (what the independence assumption costs
even with perfect marginals). Time and memory of GFM grow linearly with k (O(n k m) to count,
then O(n m s_max) with s_max the largest label count in the samples).
"""

import itertools
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from fmeasure import estimation, inference

SMALL = os.environ.get("FMEASURE_EXAMPLES_SMALL") == "1"
OUT = Path(os.environ.get("FMEASURE_EXAMPLES_OUT", "."))

# %%
# A known joint distribution with dependent labels
# ------------------------------------------------
# n instances, m labels; each instance mixes 3 topics (topic 0 switches every label off, the
# others switch a random block of labels on with probability 0.9). Every label vector of
# {0,1}^m is enumerated for the exact expectations.
n, m, n_topics = (20, 6, 3) if SMALL else (200, 8, 3)
ks = [5, 10, 20, 50, 100] if SMALL else [5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000]
seeds = range(3) if SMALL else range(10)

rng = np.random.default_rng(0)
w = rng.dirichlet(np.ones(n_topics), size=n)
q = np.where(rng.random((n, n_topics, m)) < 0.5, 0.9, 0.01)
q[:, 0] = 0.0
Y = np.array(list(itertools.product([0, 1], repeat=m)), dtype=np.int8)
support = np.broadcast_to(Y, (n, *Y.shape))
probs = sum(
    w[:, [t]] * np.prod(np.where(Y[None] == 1, q[:, t, None, :], 1 - q[:, t, None, :]), axis=2) for t in range(n_topics)
)
_, best = inference.gfm_from_p(*estimation.p_matrix(support, probs))  # the exact optimum
p_exact = np.einsum("nt,ntm->nm", w, q)
regret_fm_exact = np.mean(best - inference.expected_f(support, probs, inference.fm(p_exact)[0]))


def sample(k, rng):
    """k label vectors per instance from its topic mixture: (n, k, m) of 0/1."""
    cum = np.cumsum(w, axis=1)
    z = (rng.random((n, k, 1)) > cum[:, None, :]).sum(axis=2)  # topic of each sample
    on = q[np.arange(n)[:, None], np.minimum(z, n_topics - 1)]  # (n, k, m)
    return (rng.random((n, k, m)) < on).astype(np.int8)


# %%
# Regret of GFM from k samples, and of FM from the same samples' marginals
regret = {"GFM": np.empty((len(ks), len(seeds))), "FM": np.empty((len(ks), len(seeds)))}
for a, k in enumerate(ks):
    for b, seed in enumerate(seeds):
        S = sample(k, np.random.default_rng([seed, k]))
        h_gfm, _ = inference.gfm_from_samples(S)
        h_fm, _ = inference.fm(S.mean(axis=1))
        regret["GFM"][a, b] = np.mean(best - inference.expected_f(support, probs, h_gfm))
        regret["FM"][a, b] = np.mean(best - inference.expected_f(support, probs, h_fm))
    print(f"k = {k:5d}: mean regret GFM {regret['GFM'][a].mean():.4f}, FM {regret['FM'][a].mean():.4f}")
print(f"FM on the exact marginals: mean regret {regret_fm_exact:.4f}")

# %%
# The regret shrinks as k grows; the band is the spread over seeds (min to max)
fig, ax = plt.subplots(figsize=(6.5, 4.2))
for name, kw in [
    ("GFM", dict(color="black", marker="o")),
    ("FM", dict(color="0.4", marker="o", markerfacecolor="white", linestyle="-.")),
]:
    r = regret[name]
    ax.plot(ks, np.median(r, axis=1), label=f"{name} from k samples (median over {len(seeds)} seeds)", **kw)
    ax.fill_between(ks, r.min(axis=1), r.max(axis=1), color=kw["color"], alpha=0.2)
ax.axhline(regret_fm_exact, color="0.4", linestyle=":", label="FM on the exact marginals")
ax.set_xscale("log")
ax.set_yscale("log", nonpositive="mask")  # a regret of exactly 0 is left off the log scale
ax.set_xlabel("samples per instance k")
ax.set_ylabel("mean regret: E[F] of the optimum minus E[F]")
ax.set_title(f"{n} instances, m = {m} dependent labels")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(OUT / "plot_number_of_samples.png", dpi=120)
