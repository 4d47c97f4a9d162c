"""Tests of the probabilistic classifier chain: exact joint, sampler, joint-mode search, fitting.

References are built by hand here: probabilities of a chain by a plain product over labels, the
joint mode and the F-maximizer by enumerating {0,1}^m.
"""

import itertools

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from fmeasure.learners.pcc import ProbabilisticClassifierChain as PCC


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _hand_prob(pcc, x, y):
    """P(y | x) of a chain by the product rule, one label at a time, in plain Python."""
    p = 1.0
    for j in range(len(y)):
        z = pcc.intercept_[j] + float(np.dot(pcc.coef_x_[j], x))
        z += sum(pcc.coef_y_[j, l] * y[l] for l in range(j))
        q = _sigmoid(z)
        p *= q if y[j] == 1 else 1.0 - q
    return p


def _random_chain(m, d=3, scale=2.0, seed=0):
    rng = np.random.default_rng(seed)
    return PCC.from_parameters(rng.normal(size=(m, d)), scale * rng.normal(size=(m, m)), rng.normal(size=m)), rng


def _f(y, h):
    y, h = np.asarray(y), np.asarray(h)
    s = y.sum() + h.sum()
    return 1.0 if s == 0 else 2.0 * (y * h).sum() / s


def test_pcc_joint_distribution_matches_product_rule():
    pcc, rng = _random_chain(4, seed=1)
    X = rng.normal(size=(3, 3))
    support, probs = pcc.joint_distribution(X)
    assert support.shape == (16, 4)
    assert len({tuple(r) for r in support}) == 16
    for i in range(3):
        for k, y in enumerate(support):
            assert probs[i, k] == pytest.approx(_hand_prob(pcc, X[i], y), rel=1e-12)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(np.exp(pcc.log_joint_proba(X, np.tile(support[5], (3, 1)))), probs[:, 5], rtol=1e-12)


@pytest.mark.parametrize("block_size,sparse", [(1, False), (2, False), (16, False), (16, True)])
def test_pcc_sampler_empirical_joint_matches_exact(block_size, sparse, monkeypatch):
    # Strong label dependence, two instances, m = 4: chi-square goodness of fit per instance.
    # sparse: the compiled sampler of many labels, used here from 1 label on.
    import fmeasure.learners.pcc as P

    monkeypatch.setattr(P, "_SPARSE_FROM_LABELS", 1 if sparse else 10**9)
    pcc, rng = _random_chain(4, scale=3.0, seed=2)
    pcc.block_size = block_size
    pcc.chunk_size = 7_000  # several chunks per call
    X = rng.normal(size=(2, 3))
    n = 20_000
    S = pcc.sample(X, n_samples=n, random_state=123)
    assert S.shape == (2, n, 4) and S.dtype == np.int8
    support, probs = pcc.joint_distribution(X)
    codes = S.astype(np.int64) @ (1 << np.arange(3, -1, -1))
    for i in range(2):
        counts = np.bincount(codes[i], minlength=16)
        expected = probs[i] * n
        ok = expected > 5
        # pool the rare cells
        obs = np.r_[counts[ok], counts[~ok].sum()]
        exp = np.r_[expected[ok], expected[~ok].sum()]
        if exp[-1] == 0:
            obs, exp = obs[:-1], exp[:-1]
        assert stats.chisquare(obs, exp).pvalue > 1e-3
        np.testing.assert_allclose(counts / n, probs[i], atol=0.015)


def test_pcc_sparse_sampler_draws_what_the_dense_sampler_draws(monkeypatch):
    """Many labels (m = 200, a few positives per sample): the compiled sampler, which updates later
    logits only after a positive draw, compares the same uniforms with the same probabilities as
    the blocked matrix products, so the draws agree but for floating-point ties."""
    import fmeasure.learners.pcc as P

    rng = np.random.default_rng(9)
    m, d = 200, 5
    W = rng.normal(size=(m, d))
    V = np.tril(rng.normal(size=(m, m)), -1)
    pcc = PCC.from_parameters(W, V, np.full(m, -4.0))
    X = rng.normal(size=(7, d))
    monkeypatch.setattr(P, "_SPARSE_FROM_LABELS", 10**9)
    dense = pcc.sample(X, n_samples=300, random_state=4)
    monkeypatch.setattr(P, "_SPARSE_FROM_LABELS", 128)
    sparse = pcc.sample(X, n_samples=300, random_state=4)
    assert 1 < dense.sum(axis=2).mean() < m / 4  # positives are few, and the weights matter
    assert np.mean(dense != sparse) < 1e-5
    assert not np.array_equal(sparse, pcc.sample(X, n_samples=300, random_state=5))


def test_pcc_tree_sampler_counts_match_exact_joint():
    # Binomial splitting down the tree: same multiset distribution as n ancestral samples.
    pcc, rng = _random_chain(4, scale=3.0, seed=2)
    pcc.chunk_size = 3000
    X = rng.normal(size=(3, 3))
    n = 20_000
    out = pcc.sample_counts(X, n_samples=n, random_state=5)
    support, probs = pcc.joint_distribution(X)
    for i, (Y, counts) in enumerate(out):
        assert counts.sum() == n and np.all(counts > 0)
        assert len({tuple(r) for r in Y}) == len(Y)  # distinct vectors
        codes = Y.astype(np.int64) @ (1 << np.arange(3, -1, -1))
        freq = np.bincount(codes, weights=counts, minlength=16)
        ok = probs[i] * n > 5
        obs = np.r_[freq[ok], freq[~ok].sum()]
        exp = np.r_[probs[i][ok] * n, probs[i][~ok].sum() * n]
        if exp[-1] == 0:
            obs, exp = obs[:-1], exp[:-1]
        assert stats.chisquare(obs, exp).pvalue > 1e-3
        np.testing.assert_allclose(freq / n, probs[i], atol=0.015)


def test_pcc_sampler_is_reproducible_and_seed_dependent():
    pcc, rng = _random_chain(5, seed=3)
    X = rng.normal(size=(4, 3))
    a = pcc.sample(X, n_samples=50, random_state=7)
    b = pcc.sample(X, n_samples=50, random_state=7)
    c = pcc.sample(X, n_samples=50, random_state=8)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_pcc_sampler_deterministic_labels():
    # Intercepts +-inf (constant labels) give exactly 0 / 1 in every sample.
    pcc = PCC.from_parameters(
        np.zeros((3, 1)), np.array([[0, 0, 0], [5.0, 0, 0], [0, -4.0, 0]]), [np.inf, -np.inf, 0.0]
    )
    S = pcc.sample(np.zeros((3, 1)), n_samples=200, random_state=0)
    assert (S[:, :, 0] == 1).all() and (S[:, :, 1] == 0).all()
    assert 0.3 < S[:, :, 2].mean() < 0.7


@pytest.mark.parametrize("m", [1, 2, 5, 8])
def test_pcc_exact_joint_mode_equals_brute_force(m):
    pcc, rng = _random_chain(m, scale=2.5, seed=10 + m)
    X = rng.normal(size=(40, 3))
    h, p = pcc.joint_mode(X)
    for i in range(40):
        ps = [_hand_prob(pcc, X[i], y) for y in itertools.product((0, 1), repeat=m)]
        assert p[i] == pytest.approx(max(ps), rel=1e-9)
        assert _hand_prob(pcc, X[i], h[i]) == pytest.approx(max(ps), rel=1e-9)


@pytest.mark.parametrize("chunk_size", [16_000, 64 * 7 * 2])
def test_pcc_joint_mode_fallback_search_equals_brute_force(chunk_size):
    # A frontier cap of 1 forces the per-instance uniform-cost search for most instances; the small
    # chunk size searches two instances per chunk (the label weights shared as lists by all chunks).
    pcc, rng = _random_chain(7, scale=0.3, seed=5)  # weak dependence: flat distributions
    pcc.chunk_size = chunk_size
    X = 0.1 * rng.normal(size=(15, 3))
    h, p = pcc.joint_mode(X, max_frontier=1)
    support, probs = pcc.joint_distribution(X)
    np.testing.assert_allclose(p, probs.max(axis=1), rtol=1e-9)
    for i in range(15):
        assert _hand_prob(pcc, X[i], h[i]) == pytest.approx(probs[i].max(), rel=1e-9)


def test_pcc_joint_mode_beats_greedy():
    # Classic example: P(y1=1) = 0.6 but then y2 is a coin; P(y1=0) = 0.4 and then y2 = 0 surely.
    # Greedy picks y1 = 1 (mode prob 0.3), the joint mode is (0, 0) with prob ~0.4.
    logit = np.log(0.6 / 0.4)
    pcc = PCC.from_parameters(np.zeros((2, 1)), [[0, 0], [30.0, 0]], [logit, -30.0])
    hg, pg = pcc.greedy(np.zeros((1, 1)))
    h, p = pcc.joint_mode(np.zeros((1, 1)))
    assert hg[0, 0] == 1 and np.exp(pg[0]) == pytest.approx(0.3, abs=1e-6)
    assert h.tolist() == [[0, 0]] and p[0] == pytest.approx(0.4, abs=1e-6)


def test_pcc_exact_f_maximizer_equals_brute_force():
    pcc, rng = _random_chain(4, scale=2.0, seed=4)
    X = rng.normal(size=(10, 3))
    h, val = pcc.exact_f_maximizer(X)
    vectors = list(itertools.product((0, 1), repeat=4))
    for i in range(10):
        ps = [_hand_prob(pcc, X[i], y) for y in vectors]
        ef = [sum(p * _f(y, hh) for p, y in zip(ps, vectors)) for hh in vectors]
        assert val[i] == pytest.approx(max(ef), abs=1e-9)
        assert sum(p * _f(y, h[i]) for p, y in zip(ps, vectors)) == pytest.approx(max(ef), abs=1e-9)


def _toy_data(n=300, m=4, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = np.zeros((n, m), dtype=int)
    for j in range(m):
        z = X @ rng.normal(size=d) + (2.0 * Y[:, j - 1] if j else 0.0)
        Y[:, j] = rng.random(n) < _sigmoid(z)
    return X, Y


def test_pcc_fit_linear_form_matches_base_models():
    X, Y = _toy_data(n=150, m=3)
    pcc = PCC(Cs=[0.01, 1.0], cv=3, standardize=False).fit(X, Y)
    cond = pcc.conditional_proba(X, Y)
    for j, model in enumerate(pcc.estimators_):
        Xa = np.hstack([X, Y[:, :j]])
        np.testing.assert_allclose(cond[:, j], model.predict_proba(Xa)[:, 1], rtol=1e-9, atol=1e-12)


def test_pcc_fit_standardized_is_same_model_on_raw_features():
    X, Y = _toy_data(n=150, m=3, seed=1)
    X = X * np.array([100.0, 0.01, 1.0, 5.0, 1.0]) + 3.0
    pcc = PCC(Cs=[0.1, 10.0], cv=3, standardize=True).fit(X, Y)
    Xs = (X - pcc.feature_mean_) / pcc.feature_scale_
    cond = pcc.conditional_proba(X, Y)
    for j, model in enumerate(pcc.estimators_):
        np.testing.assert_allclose(
            cond[:, j], model.predict_proba(np.hstack([Xs, Y[:, :j]]))[:, 1], rtol=1e-8, atol=1e-12
        )


def test_pcc_tuned_C_has_best_cv_log_loss():
    # Independent check of the tuning for the last label: plain LogisticRegression per C on the
    # same stratified folds, on features + true preceding labels.
    X, Y = _toy_data(n=200, m=2, seed=2)
    Cs = [1e-3, 1e-1, 1e1]
    pcc = PCC(Cs=Cs, cv=5, random_state=0, standardize=False).fit(X, Y)
    for j in range(Y.shape[1]):
        assert pcc.C_[j] == Cs[int(np.argmin(pcc.cv_log_loss_[j]))]
    j = Y.shape[1] - 1
    Xa, y = np.hstack([X, Y[:, :j]]), Y[:, j]
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    ref = []
    for C in Cs:
        losses = []
        for tr, te in folds.split(Xa, y):
            lr = LogisticRegression(C=C, max_iter=2000, tol=1e-6).fit(Xa[tr], y[tr])
            losses.append(log_loss(y[te], lr.predict_proba(Xa[te]), labels=[0, 1]))
        ref.append(np.mean(losses))
    np.testing.assert_allclose(pcc.cv_log_loss_[j], ref, rtol=2e-3)
    assert pcc.C_[j] == Cs[int(np.argmin(ref))]


def test_pcc_constant_labels_in_training():
    X, Y = _toy_data(n=120, m=3, seed=3)
    Y = np.column_stack([Y[:, 0], np.zeros(120, int), Y[:, 1], np.ones(120, int), Y[:, 2]])
    pcc = PCC(Cs=[0.1, 1.0], cv=3).fit(X, Y)
    assert np.isnan(pcc.C_[1]) and np.isnan(pcc.C_[3])
    assert pcc.intercept_[1] == -np.inf and pcc.intercept_[3] == np.inf
    Xt = np.random.default_rng(0).normal(size=(20, X.shape[1]))
    S = pcc.sample(Xt, n_samples=100, random_state=0)
    assert (S[:, :, 1] == 0).all() and (S[:, :, 3] == 1).all()
    h, p = pcc.joint_mode(Xt)
    assert (h[:, 1] == 0).all() and (h[:, 3] == 1).all() and np.all(p > 0)
    support, probs = pcc.joint_distribution(Xt)
    assert np.all(np.isfinite(probs))
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert probs[:, (support[:, 1] == 1) | (support[:, 3] == 0)].max() == 0.0


def test_pcc_sparse_features_give_same_chain():
    import scipy.sparse as sp

    X, Y = _toy_data(n=100, m=2, seed=4)
    X = np.where(X > 0.5, 1.0, 0.0)[:, :4]
    a = PCC(Cs=[0.1, 1.0], cv=3, standardize=False).fit(X, Y)
    b = PCC(Cs=[0.1, 1.0], cv=3, standardize=False).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(
        a.conditional_proba(X, Y), b.conditional_proba(sp.csr_matrix(X), Y), rtol=1e-5, atol=1e-7
    )


@pytest.mark.parametrize("sampler", ["tree", "dense"])
def test_pcc_predict_methods_on_a_chain(sampler):
    pcc, rng = _random_chain(5, scale=2.0, seed=6)
    pcc.sampler = sampler
    X = rng.normal(size=(30, 3))
    preds, times = pcc.predict_from_samples(X, ("mm", "fm", "gfm"), n_samples=20_000, random_state=0, return_times=True)
    support, probs = pcc.joint_distribution(X)
    marg = probs @ support
    # MM with many samples = thresholded exact marginals (where not too close to 1/2)
    clear = np.abs(marg - 0.5) > 0.03
    assert np.array_equal(preds["mm"][clear], (marg[clear] > 0.5).astype(np.int8))
    # GFM from samples reaches (nearly) the exact optimum of E[F]
    _, best = pcc.exact_f_maximizer(X)
    ef = np.array([probs[i] @ [_f(y, preds["gfm"][i]) for y in support] for i in range(30)])
    assert np.all(ef >= best - 0.01)
    assert set(times) == {"mm", "fm", "gfm"} and all(t > 0 for t in times.values())
    assert pcc.predict(X, inference="jm").shape == (30, 5)


@pytest.mark.parametrize(
    "bad",
    [
        dict(n_samples=0),
        dict(inference="foo"),
    ],
)
def test_pcc_bad_input(bad):
    pcc, rng = _random_chain(3)
    X = rng.normal(size=(2, 3))
    with pytest.raises(ValueError, match="n_samples|inference"):
        pcc.predict(X, **bad)
    with pytest.raises(ValueError, match="features"):
        pcc.sample(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="max_labels"):
        _random_chain(17)[0].joint_distribution(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="not fitted"):
        PCC().sample(X)
    with pytest.raises(ValueError, match="y must be a binary 0/1"):
        PCC().fit(X, [[0, 2], [1, 0]])


def test_pcc_scoring_f1_picks_the_brute_force_f1_choice():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 4))
    y0 = (X[:, 0] + rng.normal(size=300) > 0).astype(np.int8)
    y1 = (X[:, 1] + 0.5 * y0 + rng.normal(scale=1.5, size=300) > 2.0).astype(np.int8)  # rare
    Y = np.column_stack([y0, y1])
    Cs = [1e-3, 1e-1, 1e1]
    pcc = PCC(Cs=Cs, cv=5, random_state=0, scoring="f1").fit(X, Y)
    for j in range(2):
        Xa, y = np.hstack([X, Y[:, :j]]), Y[:, j]
        ref = []
        for C in Cs:
            vals = []
            for tr, te in StratifiedKFold(5, shuffle=True, random_state=0).split(Xa, y):
                lr = LogisticRegression(C=C, max_iter=5000, tol=1e-10).fit(Xa[tr], y[tr])
                vals.append(f1_score(y[te], (lr.predict_proba(Xa[te])[:, 1] >= 0.5).astype(int), zero_division=0.0))
            ref.append(np.mean(vals))
        assert pcc.C_[j] == Cs[int(np.argmax(ref))], (j, ref)
    assert np.isnan(pcc.cv_log_loss_).all()
    assert pcc.C_[1] != PCC(Cs=Cs, cv=5, random_state=0).fit(X, Y).C_[1]  # the choice differs here


def test_pcc_joint_mode_budget_keeps_the_greedy_path_and_warns(caplog):
    # All 2^12 vectors equally probable: the search cannot finish within 50 pops, so every
    # instance keeps the greedy path; without a budget the search is exact (probability 2^-12).
    m = 12
    pcc = PCC.from_parameters(np.zeros((m, 1)), np.zeros((m, m)), np.zeros(m))
    X = np.zeros((3, 1))
    hg, lpg = pcc.greedy(X)
    with caplog.at_level("WARNING", logger="fmeasure.learners.pcc"):
        h, p = pcc.joint_mode(X, max_frontier=1, max_expansions=50)
    assert np.array_equal(h, hg) and np.allclose(p, np.exp(lpg))
    assert "3 of 3 instance(s) reached max_expansions = 50" in caplog.text
    h, p = pcc.joint_mode(X, max_frontier=1, max_expansions=None)
    assert np.allclose(p, 2.0**-m)


def test_pcc_joint_mode_frontier_cap_shrinks_for_long_chains(monkeypatch):
    import fmeasure.learners.pcc as pcc_module

    seen = []
    original = pcc_module._joint_mode_levelwise
    monkeypatch.setattr(
        pcc_module, "_joint_mode_levelwise", lambda A, V, cap, *a: seen.append(cap) or original(A, V, cap, *a)
    )
    for m in (8, 1000):  # labels almost surely 0: the mode is found at once
        pcc = PCC.from_parameters(np.zeros((m, 1)), np.zeros((m, m)), np.full(m, -20.0))
        h, p = pcc.joint_mode(np.zeros((1, 1)))
        assert not h.any() and p[0] > 0.99
    assert seen == [4096, 2**19 // 1000]


def test_pcc_an_instance_samples_the_same_alone_in_a_batch_or_in_any_chunk():
    """Common random numbers: an instance's samples depend on its x and the seed only."""
    rng = np.random.default_rng(3)
    m, d = 7, 4
    pcc = PCC.from_parameters(
        rng.normal(size=(m, d)), np.tril(rng.normal(size=(m, m)), -1), rng.normal(size=m), n_samples=50
    )
    X = rng.normal(size=(30, d))
    batch = pcc.sample(X, random_state=5)
    for i in (0, 13, 29):
        np.testing.assert_array_equal(pcc.sample(X[i : i + 1], random_state=5)[0], batch[i])
    order = rng.permutation(len(X))
    np.testing.assert_array_equal(pcc.sample(X[order], random_state=5), batch[order])
    small = PCC.from_parameters(
        pcc.coef_x_, pcc.coef_y_, pcc.intercept_, n_samples=50, chunk_size=120
    )  # chunks of 2 instances
    np.testing.assert_array_equal(small.sample(X, random_state=5), batch)
    for method in ("mm", "fm", "gfm"):
        H = pcc.predict_from_samples(X, [method], random_state=5)[method]
        np.testing.assert_array_equal(pcc.predict_from_samples(X[order], [method], random_state=5)[method], H[order])


def test_pcc_links_of_mostly_zero_dense_features_are_the_matrices_the_solver_fitted_before():
    """A dense, mostly-zero X (a bag of words kept dense): each link's [x, y_1..y_j] is built as
    CSR from X's CSR form when the tuned regression would convert it, and left dense when it would
    not, the same entries in the same order as converting the dense matrix."""
    import scipy.sparse as sp

    from fmeasure.learners.logistic import SPARSE_FIT_DENSITY, fit_matrix
    from fmeasure.learners.pcc import _augment, _fit_matrix_of_link

    rng = np.random.default_rng(3)
    X = (rng.random((60, 12)) < 0.05).astype(float) * rng.normal(size=(60, 12))
    Y = (rng.random((60, 40)) < 0.04).astype(np.int8)
    Y[:, 30:] = 1  # the last links' features are dense enough to stay dense
    kinds = set()
    for j in range(Y.shape[1] + 1):
        ours = _fit_matrix_of_link(X, sp.csr_matrix(X), Y, j)
        before = fit_matrix(_augment(X, Y[:, :j]))
        assert sp.issparse(ours) == sp.issparse(before), j
        kinds.add(sp.issparse(ours))
        if sp.issparse(ours):
            for a in ("data", "indices", "indptr"):
                np.testing.assert_array_equal(getattr(ours, a), getattr(before, a))
            assert ours.shape == before.shape
        else:
            np.testing.assert_array_equal(ours, before)
    assert kinds == {True, False}
    assert SPARSE_FIT_DENSITY < 1


def test_pcc_fit_on_mostly_zero_dense_features_is_the_fit_without_the_shortcut(monkeypatch):
    from fmeasure.learners import pcc as module

    rng = np.random.default_rng(5)
    X = (rng.random((150, 20)) < 0.06).astype(float)
    Y = ((X[:, :6] + (rng.random((150, 6)) < 0.1)) > 0).astype(int)
    fast = PCC(Cs=(0.1, 10.0), cv=3, random_state=0).fit(X, Y)
    monkeypatch.setattr(module, "_fit_matrix_of_link", lambda X, Xs, Y, j: module._augment(X, Y[:, :j]))
    slow = PCC(Cs=(0.1, 10.0), cv=3, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(fast.coef_x_, slow.coef_x_)
    np.testing.assert_array_equal(fast.coef_y_, slow.coef_y_)
    np.testing.assert_array_equal(fast.intercept_, slow.intercept_)
