"""BR, LFP and EFP (Section 7.1.4): hand-computed toy predictions, convergence of EFP's P, edge cases."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from fmeasure.learners.parametric import EFP, LFP, BinaryRelevance

# ---------------------------------------------------------------- helpers independent of the library


def _f(y, h):
    s = sum(y) + sum(h)
    return 1.0 if s == 0 else 2.0 * sum(a * b for a, b in zip(y, h)) / s


def _true_p(support, probs, m):
    """P[i, s-1] = P(y_i = 1, s_y = s) and P(y = 0), by summing over the support."""
    P = np.zeros((m, m))
    p0 = 0.0
    for y, q in zip(support, probs):
        s = sum(y)
        if s == 0:
            p0 += q
        for i in range(m):
            if y[i]:
                P[i, s - 1] += q
    return P, p0


def _groups_data(groups, reps):
    """One-hot group features; group g repeats its label vectors (given with counts) ``reps`` times."""
    X, Y = [], []
    for g, counts in enumerate(groups):
        for y, c in counts.items():
            for _ in range(c * reps):
                X.append(np.eye(len(groups))[g])
                Y.append(y)
    return np.array(X), np.array(Y, dtype=np.int8)


# Two label vectors groups, counts out of 20 (hand-computed expectations in the test below).
# A: labels mutually exclusive, 35% empty. p = (0.3, 0.35).
#    BR: (0, 0). Independence: E[F(00)] = 0.7 * 0.65 = 0.455 beats E[F(11)] = 0.4133 -> LFP (0, 0).
#    True joint: E[F(00)] = 0.35, E[F(10)] = 0.30, E[F(01)] = 0.35, E[F(11)] = (0.3 + 0.35) * 2/3 = 0.4333 -> EFP (1, 1).
# B: p = (0.4, 0.4). BR (0, 0). Independence: E[F(11)] = 0.16 + 0.48 * 2/3 = 0.48 > E[F(00)] = 0.36 -> LFP (1, 1).
#    True joint: E[F(11)] = 0.15 + 0.5 * 2/3 = 0.4833 > E[F(00)] = E[F(10)] = 0.35 -> EFP (1, 1).
GROUP_A = {(0, 0): 7, (1, 0): 6, (0, 1): 7}
GROUP_B = {(0, 0): 7, (1, 0): 5, (0, 1): 5, (1, 1): 3}


def test_toy_two_labels_hand_computed_predictions():
    X, Y = _groups_data([GROUP_A, GROUP_B], reps=5)
    Xq = np.eye(2)
    kw = dict(Cs=(1e3,), cv=2)
    br, lfp, efp = BinaryRelevance(**kw).fit(X, Y), LFP(**kw).fit(X, Y), EFP(**kw).fit(X, Y)
    np.testing.assert_allclose(br.predict_marginals(Xq), [[0.3, 0.35], [0.4, 0.4]], atol=0.01)
    np.testing.assert_array_equal(br.predict(Xq), [[0, 0], [0, 0]])
    np.testing.assert_array_equal(lfp.predict(Xq), [[0, 0], [1, 1]])
    np.testing.assert_array_equal(efp.predict(Xq), [[1, 1], [1, 1]])
    # EFP's P is the group's joint P, computed by hand
    P, p0 = efp.predict_p_matrix(Xq)
    np.testing.assert_allclose(P[0], [[0.30, 0.0], [0.35, 0.0]], atol=0.01)
    np.testing.assert_allclose(P[1], [[0.25, 0.15], [0.25, 0.15]], atol=0.01)
    np.testing.assert_allclose(p0, [0.35, 0.35], atol=0.01)


def test_toy_expectations_by_brute_force():
    """The hand-computed optima quoted above, checked by enumerating {0,1}^2."""
    V = list(itertools.product((0, 1), repeat=2))
    for counts, want_lfp, want_efp in [(GROUP_A, (0, 0), (1, 1)), (GROUP_B, (1, 1), (1, 1))]:
        joint = {y: counts.get(y, 0) / 20 for y in V}
        p = [sum(q for y, q in joint.items() if y[i]) for i in range(2)]
        ind = {y: np.prod([p[i] if y[i] else 1 - p[i] for i in range(2)]) for y in V}
        assert max(V, key=lambda h: sum(ind[y] * _f(y, h) for y in V)) == want_lfp
        assert max(V, key=lambda h: sum(joint[y] * _f(y, h) for y in V)) == want_efp


def _sample_groups(n, seed):
    """Two groups (one-hot x) with different, dependent joint distributions over 3 labels."""
    support = [(0, 0, 0), (1, 0, 0), (0, 1, 1), (1, 1, 1), (0, 0, 1)]
    probs = [np.array([0.2, 0.3, 0.3, 0.1, 0.1]), np.array([0.05, 0.1, 0.15, 0.5, 0.2])]
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, size=n)
    Y = np.empty((n, 3), dtype=np.int8)
    for k in (0, 1):
        idx = np.flatnonzero(g == k)
        Y[idx] = np.array(support)[rng.choice(len(support), size=idx.size, p=probs[k])]
    return np.eye(2)[g], Y, [_true_p(support, pr, 3) for pr in probs]


@pytest.mark.parametrize("train_on", ["nonempty", "all"])
def test_efp_p_matrix_converges_to_the_true_p(train_on):
    errors = []
    for n in (300, 30000):
        X, Y, truth = _sample_groups(n, seed=1)
        efp = EFP(Cs=(1e2,), cv=2, train_on=train_on).fit(X, Y)
        P, p0 = efp.predict_p_matrix(np.eye(2))
        errors.append(max(max(np.abs(P[k] - truth[k][0]).max(), abs(p0[k] - truth[k][1])) for k in (0, 1)))
    assert errors[1] < 0.015
    assert errors[1] < errors[0]


def test_efp_p_matrix_is_a_valid_gfm_input():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    Y = (X[:, :3] + rng.normal(size=(150, 3)) > 0.8).astype(np.int8)  # some empty rows
    for train_on in ("nonempty", "all"):
        P, p0 = EFP(Cs=(1e-2, 1e2), cv=3, train_on=train_on).fit(X, Y).predict_p_matrix(X)
        assert P.min() >= 0
        assert np.all(P.sum(axis=2) <= (1 - p0)[:, None] + 1e-9)
        mass = (P.sum(axis=1) / np.arange(1, 4)).sum(axis=1)
        assert np.all(p0 + mass <= 1 + 1e-9)


def test_efp_predicts_from_the_count_columns_with_mass_in_chunks(monkeypatch):
    """At most 2 labels per training example out of 8: P has mass in its first 2 count columns
    only; predict (over those columns, in chunks of a few instances) equals the best expected F of
    the full P by brute force over all 2^8 predictions."""
    import fmeasure.learners.parametric as par

    rng = np.random.default_rng(5)
    m, n = 8, 400
    X = rng.normal(size=(n, 3))
    Y = np.zeros((n, m), dtype=np.int8)
    for j in range(n):
        Y[j, rng.choice(m, size=int(rng.integers(0, 3)), replace=False, p=np.arange(1, m + 1) / 36)] = 1
    efp = EFP(Cs=(1.0,), cv=2).fit(X, Y)
    Xq = X[:13]
    P, p0 = efp.predict_p_matrix(Xq)
    assert P.shape == (13, m, m) and not P[:, :, 2:].any() and P[:, :, :2].any()
    monkeypatch.setattr(par, "_CHUNK_BYTES", 8 * m * 2 * 3)  # three instances per chunk
    H = efp.predict(Xq)
    vectors = list(itertools.product((0, 1), repeat=m))
    for k in range(len(Xq)):
        # E[F(y, h)] from P: sum_i h_i sum_s 2 P[i, s-1] / (s + |h|), plus P(y = 0) for h = 0
        def ef(h):
            size = sum(h)
            if size == 0:
                return p0[k]
            return sum(2 * P[k, i, s - 1] / (s + size) for i in range(m) if h[i] for s in range(1, m + 1))

        best = max(ef(h) for h in vectors)
        assert ef(tuple(H[k])) == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("cls", [BinaryRelevance, LFP, EFP])
def test_constant_labels_do_not_crash(cls):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    Y = np.zeros((60, 3), dtype=np.int8)
    Y[:, 1] = 1  # always 1
    Y[:, 2] = X[:, 0] > 0  # label 0 always 0
    model = cls(Cs=(1.0,), cv=3).fit(X, Y)
    H = model.predict(X)
    assert H.shape == (60, 3) and H.dtype == np.int8
    assert np.all(H[:, 0] == 0)
    if cls is not EFP:
        assert np.all(H[:, 1] == 1)
        np.testing.assert_array_equal(model.predict_marginals(X)[:, :2], np.tile([0.0, 1.0], (60, 1)))
    # every training label vector empty
    H = cls(Cs=(1.0,), cv=3).fit(X, np.zeros((60, 3), dtype=np.int8)).predict(X)
    np.testing.assert_array_equal(H, 0)


def test_sparse_input_and_clone():
    rng = np.random.default_rng(3)
    X = sp.random(80, 20, density=0.2, random_state=3, format="csr")
    Y = (rng.random((80, 2)) < 0.4).astype(np.int8)
    for cls in (BinaryRelevance, LFP, EFP):
        model = clone(cls(Cs=(0.1, 1.0), cv=3))
        assert model.fit(X, Y).predict(X[:5]).shape == (5, 2)


def test_indicator_features_are_not_standardised():
    # 0/1 features (bag of words) are used as they are, like sparse ones; real-valued ones are scaled
    rng = np.random.default_rng(4)
    Y = (rng.random((60, 2)) < 0.5).astype(np.int8)
    binary = (rng.random((60, 5)) < 0.2).astype(float)
    assert BinaryRelevance(Cs=(1.0,), cv=3).fit(binary, Y).scaler_ is None
    real = rng.normal(size=(60, 5))
    model = BinaryRelevance(Cs=(1.0,), cv=3).fit(real, Y)
    np.testing.assert_allclose(model.scaler_.mean_, real.mean(axis=0))


def test_bad_input_is_rejected():
    X = np.zeros((10, 2))
    Y = np.zeros((10, 2), dtype=np.int8)
    with pytest.raises(ValueError, match="not fitted"):
        EFP().predict(X)
    with pytest.raises(ValueError, match="binary"):
        BinaryRelevance(Cs=(1.0,)).fit(X, Y + 2)
    with pytest.raises(ValueError, match="rows"):
        LFP(Cs=(1.0,)).fit(X, Y[:5])
    with pytest.raises(ValueError, match="train_on"):
        EFP(train_on="some").fit(X, Y)
    with pytest.raises(ValueError, match="Cs"):
        EFP(Cs=(-1.0,)).fit(X, Y)
    with pytest.raises(ValueError, match="features"):
        BinaryRelevance(Cs=(1.0,), cv=2).fit(X, Y).predict(np.zeros((3, 5)))


# ---------------------------------------------------------------- options used by the ablations


def _sparse_labels_data(seed=0, n=300, m=4):
    """Rare labels: many instances whose LFP prediction is empty."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    Y = (X @ rng.normal(size=(3, m)) + rng.normal(size=(n, m)) > 1.8).astype(np.int8)
    return X, Y


def test_lfp_without_empty_never_predicts_empty_and_agrees_elsewhere():
    X, Y = _sparse_labels_data()
    lfp = LFP(Cs=[1.0], cv=3).fit(X, Y)
    strict = clone(lfp).set_params(allow_empty=False).fit(X, Y)
    H, Hs = lfp.predict(X), strict.predict(X)
    empty = H.sum(axis=1) == 0
    assert empty.sum() > 20  # the case the option is about does occur
    assert (Hs.sum(axis=1) > 0).all()
    np.testing.assert_array_equal(Hs[~empty], H[~empty])
    # where LFP predicts nothing, the strict variant predicts the best non-empty h by brute force
    # over all 2^m - 1 non-empty vectors under independence of the (same) marginals
    P = strict.predict_marginals(X)
    m = Y.shape[1]
    cands = [np.array(h) for h in itertools.product((0, 1), repeat=m) if any(h)]
    for i in np.flatnonzero(empty)[:15]:

        def ef(h, p=P[i]):
            return sum(
                np.prod([p[j] if y[j] else 1 - p[j] for j in range(m)]) * _f(y, h)
                for y in itertools.product((0, 1), repeat=m)
            )

        best = max(ef(h) for h in cands)
        assert ef(Hs[i]) == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("cls", [BinaryRelevance, LFP, EFP])
def test_scoring_option_reaches_every_model(cls):
    X, Y = _sparse_labels_data(seed=1, n=200, m=3)
    model = cls(Cs=[0.01, 1.0], cv=3, scoring="f1").fit(X, Y)
    fitted = list(model.estimators_) + ([model.zero_model_] if cls is EFP else [])
    for est in fitted:
        if est is not None and len(est.classes_) > 1:
            assert np.isnan(est.cv_log_loss_).all() and np.isfinite(est.cv_loss_).all()
    with pytest.raises(ValueError, match="scoring"):
        cls(Cs=[1.0], cv=3, scoring="nope").fit(X, Y)


def test_br_predict_is_the_threshold_alone(monkeypatch):
    """BR's inference (timed in Table 5) thresholds the marginals at 1/2, as marginal_modes does,
    without computing an expected F it would discard."""
    from fmeasure import inference

    X, Y = _groups_data([GROUP_A, GROUP_B], reps=5)
    br = BinaryRelevance(Cs=(1e3,), cv=2).fit(X, Y)
    Xq = np.array([[1.0, 0.0], [0.0, 1.0], [0.3, 0.7]])
    want = inference.marginal_modes(br.predict_marginals(Xq))[0]

    def unused(*a, **k):
        raise AssertionError("BR's predict computed more than the threshold")

    monkeypatch.setattr(inference, "marginal_modes", unused)
    monkeypatch.setattr(inference, "expected_f_independent", unused)
    got = br.predict(Xq)
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, (br.predict_marginals(Xq) > 0.5).astype(np.int8))


def test_fitted_state_names_the_c_of_each_label_and_the_workers_cpu():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(150, 3))
    Y = (X + rng.normal(size=(150, 3)) > 0).astype(np.int8)
    Y[:, 2] = 0  # one class only: no C is tuned
    br = BinaryRelevance(Cs=(0.01, 1.0), cv=3).fit(X, Y)
    np.testing.assert_array_equal(br.C_[:2], [est.C_ for est in br.estimators_[:2]])
    assert np.isnan(br.C_[2]) and set(br.C_[:2]) <= {0.01, 1.0}
    efp = EFP(Cs=(0.01, 1.0), cv=3).fit(X, Y)
    assert efp.C_.shape == (3,) and np.isnan(efp.C_[2]) and efp.zero_model_.C_ in (0.01, 1.0)
    # the label models fitted in worker processes count in fit_cpu_time_, with this process's CPU
    par = BinaryRelevance(Cs=(0.01, 1.0), cv=3, n_jobs=2).fit(X, Y)
    assert par._worker_cpu_time > 0 and par.fit_cpu_time_ > par._worker_cpu_time
    np.testing.assert_array_equal(par.predict(X), br.predict(X))


@pytest.mark.parametrize("density", [0.06, 0.3])
def test_label_models_of_mostly_zero_dense_features_are_those_fitted_one_by_one(density):
    """The label models' common X is made CSR once (a mostly-zero dense X, as a bag of words kept
    dense; a denser X stays dense), not once per model: each of BR's label models has the weights,
    bit for bit, of the tuned regression fitted alone on X (which converts its own copy)."""
    from fmeasure.learners.logistic import fit_logistic_cv

    rng = np.random.default_rng(6)
    X = (rng.random((160, 25)) < density) * rng.normal(size=(160, 25))
    Y = ((X[:, :5] + (rng.random((160, 5)) < 0.15)) > 0).astype(int)
    br = BinaryRelevance(Cs=(0.1, 10.0), cv=3, standardize=False, random_state=0).fit(X, Y)
    seeds = np.random.RandomState(0).randint(0, 2**31 - 1, size=Y.shape[1])  # one per label, as BR draws them
    for j in range(Y.shape[1]):
        alone = fit_logistic_cv(X, Y[:, j], Cs=(0.1, 10.0), cv=3, random_state=int(seeds[j]))
        np.testing.assert_array_equal(br.estimators_[j].coef_, alone.coef_)
        np.testing.assert_array_equal(br.estimators_[j].cv_log_loss_, alone.cv_log_loss_)
