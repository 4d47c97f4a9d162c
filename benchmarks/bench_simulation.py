"""Benchmark of the simulation stage's fast paths against naive references, in the same run.

Prints, per case, our time, the reference time and the ratio:

* scoring predictions on a 100,000-vector test sample: ``TestStatistics`` (sufficient statistics,
  distinct rows, one matrix product) vs row-by-row ``fmeasure.metrics`` per prediction;
* the exact chain summary (P, P(y = 0), mode) for m = 20: doubling + split-bit products vs the
  chain rule applied to every one of the 2^m vectors (``ChainModel.prob``) + bincounts;
* one model of the full protocol per data model (m = 25, 14 sizes x 50 samples, 100,000 test rows).

Run: ``PYTHONPATH=src python benchmarks/bench_simulation.py`` (single BLAS thread; on a shared
machine compare the ratios, not the absolute times).
"""

import time

import numpy as np
from threadpoolctl import threadpool_limits

from fmeasure import label_models as S
from fmeasure import metrics
from fmeasure.experiments import simulations as SE

SIM = dict(
    seed=1,
    n_labels=25,
    scale=3.0,
    scale_is="variance",
    methods=list(S.METHODS),
    data_models={"independent": {"weight_mean": 0.0}, "chain": {"weight_mean": 1.0, "bias_mean": 1.0}},
    training_sizes=[5, 10, 20, 30, 40, 50, 75, 100, 200, 500, 1000, 2000, 5000, 10000],
    n_training_sets=50,
    n_test=100_000,
)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def row(name, ours, ref):
    print(f"{name:<58s} {ours:9.3f} s {ref:9.3f} s {ref / ours:8.1f}x")


def main():
    threadpool_limits(1)
    print(f"{'case':<58s} {'ours':>11s} {'reference':>11s} {'ratio':>9s}")
    for data_model in S.DATA_MODELS:
        model = SE.make_model(data_model, 0, SIM)
        test = model.sample(SIM["n_test"], S.stream(1, data_model, 0, "test"))
        rng = np.random.default_rng(0)
        H = (rng.random((20, 25)) < 0.5).astype(np.int8)
        t_ours, _ = timed(lambda: S.TestStatistics.from_sample(test).evaluate(H))

        def naive():
            for h in H:
                Hrep = np.repeat(h[None], len(test), axis=0)
                for f in (metrics.hamming_loss, metrics.subset_zero_one_loss, metrics.f_measure, metrics.jaccard_index):
                    f(test, Hrep).mean()

        t_ref, _ = timed(naive)
        row(f"score 20 predictions on 100,000 {data_model} test rows", t_ours, t_ref)
    m = 20
    chain = SE.make_model("chain", 0, dict(SIM, n_labels=m))
    t_ours, fast = timed(lambda: chain.summary())

    def naive_summary():
        Y = ((np.arange(2**m)[:, None] >> np.arange(m)) & 1).astype(np.int8)
        pr = chain.prob(Y)
        s = Y.sum(axis=1)
        P = np.stack([np.bincount(s, weights=pr * Y[:, i], minlength=m + 1)[1:] for i in range(m)])
        return P

    t_ref, P = timed(naive_summary)
    assert np.allclose(P, fast.P)
    row(f"exact chain summary, m = {m} (all 2^{m} vectors)", t_ours, t_ref)
    for data_model in S.DATA_MODELS:
        t, _ = timed(lambda: SE.run_model(data_model, 0, SIM))
        print(f"{'one model, full protocol (' + data_model + ')':<58s} {t:9.3f} s")


if __name__ == "__main__":
    main()
