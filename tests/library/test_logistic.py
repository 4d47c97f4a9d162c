"""The shared tuned logistic regression: the chosen C minimises an independently computed CV log loss."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from fmeasure.learners.logistic import ConstantProbability, check_features, fit_logistic_cv, positive_proba


def _data(n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X @ rng.normal(size=d) + rng.normal(size=n) > 0).astype(int)
    return X, y


def test_fit_logistic_cv_chooses_c_with_best_cv_log_loss():
    X, y = _data()
    Cs = (1e-3, 1e-1, 1e1)
    model = fit_logistic_cv(X, y, Cs=Cs, cv=5, random_state=3)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=3).split(X, y))
    ref = []
    for C in Cs:
        losses = []
        for tr, te in folds:
            m = LogisticRegression(C=C, max_iter=5000, tol=1e-10).fit(X[tr], y[tr])
            losses.append(log_loss(y[te], m.predict_proba(X[te]), labels=[0, 1]))
        ref.append(np.mean(losses))
    np.testing.assert_allclose(model.cv_log_loss_, ref, rtol=1e-3)
    assert model.C_ == Cs[int(np.argmin(ref))]


def test_fit_logistic_cv_multiclass_and_rare_class():
    X, _ = _data(n=200)
    y = np.arange(200) % 3
    y[0] = 7  # a class with a single member: no stratification possible, must not crash
    model = fit_logistic_cv(X, y, Cs=(0.1, 1.0), cv=5)
    proba = model.predict_proba(X)
    assert proba.shape == (200, 4)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert list(model.classes_) == [0, 1, 2, 7]


@pytest.mark.parametrize("value", [0, 1])
def test_fit_logistic_cv_constant_target_predicts_empirical_rate(value):
    X, _ = _data(n=20)
    model = fit_logistic_cv(X, np.full(20, value), Cs=(1.0,))
    assert isinstance(model, ConstantProbability)
    np.testing.assert_array_equal(positive_proba(model, X), np.full(20, float(value)))


def test_fit_logistic_cv_rejects_bad_input():
    X, y = _data(n=10)
    with pytest.raises(ValueError, match="rows"):
        fit_logistic_cv(X, y[:5])
    with pytest.raises(ValueError, match="Cs"):
        fit_logistic_cv(X, y, Cs=(0.0, 1.0))


def test_fit_logistic_cv_rejects_a_missing_target_and_a_matrix_target():
    X, y = _data(n=20)
    y = y.astype(float)
    y[3] = np.nan  # would otherwise become a third class
    with pytest.raises(ValueError, match=r"^fit_logistic_cv: y contains NaN \(row 3\)$"):
        fit_logistic_cv(X, y)
    with pytest.raises(ValueError, match=r"^fit_logistic_cv: y must be 1-D \(n,\), got shape \(20, 2\)$"):
        fit_logistic_cv(X, np.zeros((20, 2)))
    # a column vector is one target
    model = fit_logistic_cv(X, np.arange(20)[:, None] % 2, Cs=(1.0,))
    assert list(model.classes_) == [0, 1]


def test_check_features_names_x_for_values_that_are_not_numbers():
    with pytest.raises(ValueError, match=r"^X: cannot convert to a float array"):
        check_features(np.array([["a", "1"]]))


def test_fit_logistic_cv_multinomial_matches_independent_refit_at_chosen_c():
    X, _ = _data(n=240, d=3, seed=5)
    y = np.array([0, 2, 5])[np.argmax(X + np.random.default_rng(5).normal(size=X.shape), axis=1)]
    model = fit_logistic_cv(X, y, Cs=(1e-2, 1.0, 1e2), cv=4, random_state=0)
    assert list(model.classes_) == [0, 2, 5]
    ref = LogisticRegression(C=model.C_, solver="newton-cg", max_iter=1000, tol=1e-14).fit(X, y)
    # the final fit stops at gradient tolerance 1e-4 (max |gradient| of the mean loss + penalty)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=5e-3)


def test_fit_logistic_cv_fold_with_a_single_class_does_not_crash():
    X, _ = _data(n=12, d=2)
    y = np.zeros(12, dtype=int)
    y[3] = 1  # the fold holding it trains on class 0 only
    model = fit_logistic_cv(X, y, Cs=(0.1, 10.0), cv=3)
    assert np.all(np.isfinite(model.cv_log_loss_))
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_fit_logistic_cv_patience_skips_only_large_c_after_the_optimum():
    X, y = _data(n=200, d=20, seed=1)
    Cs = tuple(10.0**k for k in range(-4, 4))
    full = fit_logistic_cv(X, y, Cs=Cs, cv=5)
    short = fit_logistic_cv(X, y, Cs=Cs, cv=5, patience=2)
    assert short.C_ == full.C_
    done = np.isfinite(short.cv_log_loss_)
    np.testing.assert_allclose(short.cv_log_loss_[done], full.cv_log_loss_[done], rtol=1e-6)
    assert not done.all()
    assert done[: int(np.argmin(full.cv_log_loss_)) + 3].all()
    with pytest.raises(ValueError, match="patience"):
        fit_logistic_cv(X, y, patience=0)


def test_fit_logistic_cv_mostly_zero_dense_input_matches_the_dense_reference():
    # a dense bag-of-words-like matrix (5% nonzero) is fitted as CSR inside; the CV losses must
    # still be those of plain dense scikit-learn fits, computed here independently
    rng = np.random.default_rng(7)
    X = (rng.random((300, 40)) < 0.05).astype(float)
    y = (X @ rng.normal(size=40) * 3 + rng.normal(size=300) > 0).astype(int)
    Cs = (1e-1, 1e1)
    model = fit_logistic_cv(X, y, Cs=Cs, cv=3, random_state=1)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=1).split(X, y))
    ref = [
        np.mean(
            [
                log_loss(
                    y[te],
                    LogisticRegression(C=C, max_iter=5000, tol=1e-10).fit(X[tr], y[tr]).predict_proba(X[te]),
                    labels=[0, 1],
                )
                for tr, te in folds
            ]
        )
        for C in Cs
    ]
    np.testing.assert_allclose(model.cv_log_loss_, ref, rtol=1e-3)
    final = LogisticRegression(C=model.C_, max_iter=5000, tol=1e-10).fit(X, y)
    # lbfgs stops at gradient tolerance 1e-4; at C = 10 that leaves ~1e-2 in the probabilities
    np.testing.assert_allclose(model.predict_proba(X), final.predict_proba(X), atol=1e-2)


@pytest.mark.parametrize("solver, rtol", [("lbfgs", 1e-9), ("newton-cg", 1e-6)])
def test_fit_logistic_cv_csr_path_is_the_dense_path(monkeypatch, solver, rtol):
    # the CSR conversion is a speed-up only: the same iterates, up to rounding (newton-cg's inner
    # conjugate-gradient loop stops on a tolerance, so rounding can move its last step a little)
    from fmeasure.learners import logistic

    # the dense multinomial fits' own lbfgs (its path differs) is left out: the same solver on both
    monkeypatch.setattr(logistic, "_fit_multinomial_lbfgs", lambda *a: False)
    rng = np.random.default_rng(8)
    X = (rng.random((200, 30)) < 0.05).astype(float)
    y = np.argmax(X[:, :3] * 2 + rng.normal(size=(200, 3)), axis=1)
    fast = fit_logistic_cv(X, y, Cs=(1e-2, 1.0, 1e2), cv=4, random_state=2, solver=solver)
    monkeypatch.setattr(logistic, "SPARSE_FIT_DENSITY", -1.0)  # never CSR
    dense = fit_logistic_cv(X, y, Cs=(1e-2, 1.0, 1e2), cv=4, random_state=2, solver=solver)
    np.testing.assert_allclose(fast.cv_log_loss_, dense.cv_log_loss_, rtol=rtol)
    np.testing.assert_allclose(fast.predict_proba(X), dense.predict_proba(X), atol=1e-9)


def _brute_force_cv_scores(X, y, Cs, score, seed, cv=5):
    """Mean validation score per C, each fold fitted from scratch (no warm start)."""
    folds = list(StratifiedKFold(cv, shuffle=True, random_state=seed).split(X, y))
    out = []
    for C in Cs:
        vals = []
        for tr, te in folds:
            m = LogisticRegression(C=C, max_iter=5000, tol=1e-10).fit(X[tr], y[tr])
            vals.append(score(y[te], m.predict_proba(X[te])))
        out.append(np.mean(vals))
    return np.array(out)


def test_fit_logistic_cv_scoring_f1_picks_the_brute_force_f1_choice():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 5))
    y = (X @ rng.normal(size=5) + rng.normal(scale=2.0, size=400) > 2.5).astype(int)  # rare positives
    Cs = (1e-3, 1e-2, 1e-1, 1.0, 10.0)
    ref = _brute_force_cv_scores(
        X, y, Cs, lambda t, p: f1_score(t, (p[:, 1] >= 0.5).astype(int), zero_division=0.0), seed=2
    )
    by_f1 = fit_logistic_cv(X, y, Cs=Cs, cv=5, random_state=2, scoring="f1", tol=1e-10)
    by_loss = fit_logistic_cv(X, y, Cs=Cs, cv=5, random_state=2, tol=1e-10)
    np.testing.assert_allclose(-by_f1.cv_loss_, ref, atol=1e-9)
    assert by_f1.C_ == Cs[int(np.argmax(ref))]
    assert np.isnan(by_f1.cv_log_loss_).all() and np.isfinite(by_loss.cv_log_loss_).all()
    # on these rare positives the smallest C predicts no positive at all (F1 = 0): F1 avoids it
    assert ref[0] == 0.0 and by_f1.C_ > Cs[0]


def test_fit_logistic_cv_scoring_callable_sees_original_labels():
    X, y01 = _data(n=250, seed=4)
    y = np.where(y01 == 1, 5, 3)
    seen = []

    def accuracy(y_true, proba):
        seen.append(set(np.unique(y_true)))
        return float(np.mean(np.array([3, 5])[np.argmax(proba, axis=1)] == y_true))

    Cs = (1e-3, 1e-1, 10.0)
    model = fit_logistic_cv(X, y, Cs=Cs, cv=5, random_state=1, scoring=accuracy, tol=1e-10)
    ref = _brute_force_cv_scores(X, y, Cs, accuracy, seed=1)
    assert all(s <= {3, 5} for s in seen)
    np.testing.assert_allclose(-model.cv_loss_, ref, atol=1e-9)
    assert model.C_ == Cs[int(np.argmax(ref))]


def test_fit_logistic_cv_rejects_unknown_scoring():
    X, y = _data(n=50)
    with pytest.raises(ValueError, match="scoring"):
        fit_logistic_cv(X, y, Cs=(1.0,), cv=3, scoring="auc")


def _correlated_multiclass(n=600, d=12, seed=0):
    """Bounded features driven by two factors, four classes: a multinomial problem where lbfgs crawls."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 2))
    X = 1 / (1 + np.exp(-(Z @ rng.normal(size=(2, d)) + 0.1 * rng.normal(size=(n, d)))))
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = np.argmax(X[:, :4] * 2 + rng.normal(size=(n, 4)), axis=1)
    return X, y


@pytest.mark.parametrize("solver", ["lbfgs", "newton-cg"])
def test_fit_logistic_cv_every_solver_gives_the_exact_cv_choice_and_refit(solver):
    X, y = _correlated_multiclass()
    Cs = (1e-2, 1.0, 1e2)
    model = fit_logistic_cv(X, y, Cs=Cs, cv=3, random_state=1, solver=solver, tol=1e-8)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=1).split(X, y))
    ref = []
    for C in Cs:
        fits = [LogisticRegression(C=C, max_iter=10000, tol=1e-12).fit(X[tr], y[tr]) for tr, _ in folds]
        ref.append(
            np.mean([log_loss(y[te], f.predict_proba(X[te]), labels=[0, 1, 2, 3]) for f, (_, te) in zip(fits, folds)])
        )
    np.testing.assert_allclose(model.cv_log_loss_, ref, rtol=1e-4)
    assert model.C_ == Cs[int(np.argmin(ref))]
    exact = LogisticRegression(C=model.C_, max_iter=10000, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), exact.predict_proba(X), atol=1e-4)


def test_fit_logistic_cv_solver_is_lbfgs_unless_asked():
    X, y = _correlated_multiclass()
    assert fit_logistic_cv(X, y, Cs=(1.0,), cv=3).model_.solver == "lbfgs"
    assert fit_logistic_cv(X, y, Cs=(1.0,), cv=3, solver="newton-cg").model_.solver == "newton-cg"
    with pytest.raises(ValueError, match="solver must be one of"):
        fit_logistic_cv(X, y, solver="saga")


def _correlated_binary(n=400, d=30, seed=0):
    """Correlated features (two factors plus noise): a binary problem on which lbfgs stops early."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 2))
    X = Z @ rng.normal(size=(2, d)) + 0.05 * rng.normal(size=(n, d))
    y = (Z[:, 0] - Z[:, 1] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _optimum(X, y, C):
    """The minimiser of C * sum(log loss) + |w|^2 / 2 (intercept free), by scipy's own solver."""
    from scipy.optimize import minimize
    from scipy.special import expit

    Xa = np.hstack([X, np.ones((len(X), 1))])
    s = 2.0 * y - 1.0

    def f(theta):
        z = Xa @ theta
        loss = np.logaddexp(0.0, -s * z).sum()
        grad = Xa.T @ (-s * expit(-s * z))
        w = theta.copy()
        w[-1] = 0.0
        return C * loss + 0.5 * w @ w, C * grad + w

    res = minimize(f, np.zeros(Xa.shape[1]), jac=True, method="BFGS", options={"gtol": 1e-10, "maxiter": 100000})
    return res.x[:-1], res.x[-1]


def test_fit_logistic_cv_binary_model_is_the_optimum_whatever_the_path():
    """The final binary model is polished to the optimum at its C: the same model whatever path the
    cross-validation's solver took (here: two solver tolerances), equal to scipy's minimiser; without
    the polish the two paths give models that differ (the reason for it)."""
    X, y = _correlated_binary()
    Cs = (0.01, 1.0, 100.0)
    a = fit_logistic_cv(X, y, Cs=Cs, cv=3, random_state=0, tol=1e-4)
    b = fit_logistic_cv(X, y, Cs=Cs, cv=3, random_state=0, tol=1e-2)
    assert a.C_ == b.C_
    w, b0 = _optimum(X, y, a.C_)
    for model in (a, b):
        np.testing.assert_allclose(model.coef_[0], w, rtol=0, atol=1e-6 * max(1.0, np.abs(w).max()))
        assert model.intercept_[0] == pytest.approx(b0, abs=1e-6 * max(1.0, abs(b0)))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-9 * np.abs(w).max())
    za, zb = X @ a.coef_[0] + a.intercept_[0], X @ b.coef_[0] + b.intercept_[0]
    assert np.abs(za - zb).max() < 1e-8
    ua = fit_logistic_cv(X, y, Cs=Cs, cv=3, random_state=0, tol=1e-4, polish=False)
    ub = fit_logistic_cv(X, y, Cs=Cs, cv=3, random_state=0, tol=1e-2, polish=False)
    assert np.abs((X @ ua.coef_[0] + ua.intercept_[0]) - (X @ ub.coef_[0] + ub.intercept_[0])).max() > 1e-4


@pytest.mark.parametrize("block_bytes", [8 * 12 * 7, 2**19])
def test_multinomial_objective_is_scikit_learns_value_and_gradient(monkeypatch, block_bytes):
    # blocks of 7 rows (600 is not a multiple of 7) and one block holding every row
    from sklearn._loss.loss import HalfMultinomialLoss
    from sklearn.linear_model._linear_loss import LinearModelLoss

    from fmeasure.learners import logistic

    monkeypatch.setattr(logistic, "_BLOCK_BYTES", block_bytes)
    X, y = _correlated_multiclass()
    coef = np.random.default_rng(3).normal(size=4 * 13)
    ref = LinearModelLoss(base_loss=HalfMultinomialLoss(n_classes=4), fit_intercept=True)
    value, grad = logistic._MultinomialObjective(X, y.astype(float), 4)(coef, 0.3)
    ref_value, ref_grad = ref.loss_gradient(coef, X, y.astype(float), None, 0.3, 1)
    assert value == pytest.approx(ref_value, rel=1e-13)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-15)


def _sklearn_objective(X, y, K, C):
    from sklearn._loss.loss import HalfMultinomialLoss
    from sklearn.linear_model._linear_loss import LinearModelLoss

    loss = LinearModelLoss(base_loss=HalfMultinomialLoss(n_classes=K), fit_intercept=True)
    return lambda m: loss.loss_gradient(
        np.column_stack([m.coef_, m.intercept_]).ravel(order="F"), X, y.astype(float), None, 1.0 / (C * len(y)), 1
    )


def test_multinomial_objective_reports_the_mean_curvature_of_each_class():
    from fmeasure.learners import logistic

    X, y = _correlated_multiclass()
    m = LogisticRegression(C=0.1).fit(X, y)
    coef = np.column_stack([m.coef_, m.intercept_]).ravel(order="F")
    c = np.empty(4)
    logistic._MultinomialObjective(X, y.astype(float), 4)(coef, 0.1, curvature=c)
    p = m.predict_proba(X)
    np.testing.assert_allclose(c, np.mean(p * (1 - p), axis=0), rtol=1e-12)


def _optimum_multinomial(X, y, C):
    """The optimum itself: newton-cg to a gradient of 1e-14 (quadratic convergence; its line
    search may warn once it is at the optimum to rounding)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return LogisticRegression(C=C, solver="newton-cg", max_iter=1000, tol=1e-14).fit(X, y)


@pytest.mark.parametrize("C", [1e-3, 1.0, 1e2])
def test_multinomial_lbfgs_fit_reaches_the_optimum_closer_than_scikit_learns_lbfgs(C):
    # the multinomial fits: the optimum (to about 1e-6 in the weights at tol 1e-10, where both
    # lbfgs stop on the objective's relative decrease), and closer to it than scikit-learn's lbfgs
    from fmeasure.learners import logistic

    X, y = _correlated_multiclass()
    ours = LogisticRegression(C=C, warm_start=True, max_iter=100000, tol=1e-10)
    assert logistic._fit_multinomial_lbfgs(ours, X, y)
    best = _optimum_multinomial(X, y, C)
    scale = max(1.0, np.abs(best.coef_).max())
    np.testing.assert_allclose(ours.coef_, best.coef_, atol=1e-6 * scale)
    np.testing.assert_allclose(ours.predict_proba(X), best.predict_proba(X), atol=1e-6)
    assert list(ours.classes_) == [0, 1, 2, 3] and ours.n_features_in_ == X.shape[1]
    value = _sklearn_objective(X, y, 4, C)
    for tol in (1e-4, 1e-10):  # at the same tolerance, scikit-learn's own lbfgs stops farther
        ours = LogisticRegression(C=C, warm_start=True, max_iter=100000, tol=tol)
        logistic._fit_multinomial_lbfgs(ours, X, y)
        theirs = LogisticRegression(C=C, max_iter=100000, tol=tol).fit(X, y)
        assert value(ours)[0] - value(best)[0] <= value(theirs)[0] - value(best)[0] + 1e-15


def test_multinomial_lbfgs_fit_stops_on_scikit_learns_gradient_rule():
    # tol bounds the largest absolute entry of the gradient of scikit-learn's objective, as for
    # scikit-learn's lbfgs; a warm start that already meets it is returned as it is
    from fmeasure.learners import logistic

    X, y = _correlated_multiclass()
    model = LogisticRegression(warm_start=True, max_iter=1000, tol=1e-4)
    for C in (1e-2, 1.0, 1e2):
        model.set_params(C=C)
        assert logistic._fit_multinomial_lbfgs(model, X, y)
        assert 0 < model.n_iter_[0] < 1000
        assert np.max(np.abs(_sklearn_objective(X, y, 4, C)(model)[1])) <= 1e-4
    before = model.coef_.copy()
    model.set_params(C=100.0 * (1 + 1e-9))
    assert logistic._fit_multinomial_lbfgs(model, X, y)
    assert model.n_iter_[0] == 0
    np.testing.assert_array_equal(model.coef_, before)


def test_multinomial_lbfgs_warm_start_reaches_the_cold_start_solution():
    from fmeasure.learners import logistic

    X, y = _correlated_multiclass()
    warm = LogisticRegression(warm_start=True, max_iter=100000, tol=1e-10)
    for C in (1e-3, 1e-1, 10.0):  # walked along the path
        assert logistic._fit_multinomial_lbfgs(warm.set_params(C=C), X, y)
    cold = LogisticRegression(C=10.0, warm_start=True, max_iter=100000, tol=1e-10)
    assert logistic._fit_multinomial_lbfgs(cold, X, y)  # from zeros
    best = _optimum_multinomial(X, y, 10.0)
    value = _sklearn_objective(X, y, 4, 10.0)
    for model in (warm, cold):  # both stop on the objective's relative decrease (64 eps)
        assert value(model)[0] - value(best)[0] <= 1e-12
        np.testing.assert_allclose(model.coef_, best.coef_, atol=1e-5 * np.abs(best.coef_).max())
        np.testing.assert_allclose(model.predict_proba(X), best.predict_proba(X), atol=1e-6)


def test_multinomial_lbfgs_fit_leaves_other_problems_to_scikit_learn():
    from fmeasure.learners import logistic

    X, y = _correlated_multiclass()
    assert not logistic._fit_multinomial_lbfgs(LogisticRegression(), X, y % 2)
    assert not logistic._fit_multinomial_lbfgs(LogisticRegression(solver="newton-cg"), X, y)
    assert not logistic._fit_multinomial_lbfgs(LogisticRegression(), logistic.sp.csr_matrix(X), y)


@pytest.mark.parametrize("sparse", [False, True])
def test_binary_lbfgs_fit_is_scikit_learns_fit_bit_for_bit(sparse):
    """The folds' binary fits skip scikit-learn's checks around its lbfgs, not its arithmetic:
    from zeros, from a warm start and when the iteration cap stops them, the same weights,
    intercept, iteration count and probabilities as ``LogisticRegression.fit``, bit for bit."""
    from fmeasure.learners import logistic

    rng = np.random.default_rng(21)
    for case in range(12):
        n, d = int(rng.integers(30, 300)), int(rng.integers(1, 40))
        X = rng.normal(size=(n, d)) * (rng.random((n, d)) < (0.1 if sparse else 1.0))
        y = (X @ rng.normal(size=d) + rng.normal(size=n) > 0.3).astype(np.intp)
        if y.min() == y.max():
            y[0] = 1 - y[0]
        if case % 3 == 2:
            y = np.where(y == 1, 7, 3)  # any two classes; the larger is the positive one
        X = sp.csr_matrix(X) if sparse else np.ascontiguousarray(X)
        C = float(10.0 ** rng.uniform(-3, 3))
        max_iter = 3 if case % 4 == 3 else 1000
        ours = LogisticRegression(C=C, warm_start=True, max_iter=max_iter)
        theirs = LogisticRegression(C=C, warm_start=True, max_iter=max_iter)
        if case % 2:  # a warm start, as along the C path
            start = rng.normal(size=(1, d)) * 0.1
            for m in (ours, theirs):
                m.coef_, m.intercept_ = start.copy(), np.array([0.2])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            assert logistic._fit_binary_lbfgs(ours, X, y)
            theirs.fit(X, y)
        np.testing.assert_array_equal(ours.coef_, theirs.coef_)
        np.testing.assert_array_equal(ours.intercept_, theirs.intercept_)
        np.testing.assert_array_equal(ours.n_iter_, theirs.n_iter_)
        np.testing.assert_array_equal(ours.classes_, theirs.classes_)
        np.testing.assert_array_equal(ours.predict_proba(X), theirs.predict_proba(X))


def test_binary_lbfgs_fit_leaves_other_problems_to_scikit_learn():
    from fmeasure.learners import logistic

    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    assert not logistic._fit_binary_lbfgs(LogisticRegression(solver="newton-cg"), X, y)
    assert not logistic._fit_binary_lbfgs(LogisticRegression(fit_intercept=False), X, y)
    assert not logistic._fit_binary_lbfgs(LogisticRegression(class_weight="balanced"), X, y)
    assert not logistic._fit_binary_lbfgs(LogisticRegression(), X.astype(np.float32), y)
    assert not logistic._fit_binary_lbfgs(LogisticRegression(), np.asfortranarray(X), y)
    assert not logistic._fit_binary_lbfgs(LogisticRegression(), X, np.arange(40) % 3)


def test_fit_logistic_cv_is_the_same_with_scikit_learns_binary_fit(monkeypatch):
    """The whole C walk, the choice and the polished final model are those of scikit-learn's own
    fits in the folds, bit for bit."""
    from fmeasure.learners import logistic

    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 8))
    y = (X @ rng.normal(size=8) + rng.normal(size=300) > 0.5).astype(int)
    fast = fit_logistic_cv(X, y, Cs=(1e-3, 1e-1, 10.0, 1e3), cv=4, random_state=1)
    monkeypatch.setattr(logistic, "_fit_binary_lbfgs", lambda *a: False)
    slow = fit_logistic_cv(X, y, Cs=(1e-3, 1e-1, 10.0, 1e3), cv=4, random_state=1)
    np.testing.assert_array_equal(fast.cv_log_loss_, slow.cv_log_loss_)
    np.testing.assert_array_equal(fast.coef_, slow.coef_)
    np.testing.assert_array_equal(fast.predict_proba(X), slow.predict_proba(X))
