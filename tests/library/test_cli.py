"""The ``fmeasure`` command line: predictions against brute force over {0,1}^m, chunking, errors.

Every behaviour goes through ``fmeasure.cli.main([...])``; a few run ``python -m fmeasure`` as a
real subprocess. Expected F-values are computed here by enumerating every label vector.
"""

import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from fmeasure.cli import bootstrap_ci, main

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------ brute force


def all_vectors(m):
    return np.array(list(itertools.product([0, 1], repeat=m)), dtype=np.int8)


def f_of(y, h):
    """Instance-wise F of two 0/1 vectors, F(0, 0) = 1, written out by hand."""
    tp = int(np.sum(y & h))
    den = int(y.sum() + h.sum())
    return 1.0 if den == 0 else 2.0 * tp / den


def brute_independent(p):
    """(best h, its expected F, all expected F) under independence, by enumerating y and h."""
    m = len(p)
    V = all_vectors(m)
    prob = np.prod(np.where(V == 1, p, 1 - p), axis=1)
    ef = np.array([sum(pr * f_of(y, h) for y, pr in zip(V, prob)) for h in V])
    return V[int(np.argmax(ef))], ef.max(), ef


def brute_samples(S):
    """(best h, its expected F) under the empirical distribution of the samples S (k, m)."""
    V = all_vectors(S.shape[1])
    ef = np.array([np.mean([f_of(y, h) for y in S]) for h in V])
    return V[int(np.argmax(ef))], ef.max()


def run(*args):
    """main([...]) with strings; returns the exit code."""
    return main([str(a) for a in args])


def read_pred(path):
    df = pd.read_csv(path)
    return df.drop(columns="expected_f").to_numpy(), df["expected_f"].to_numpy(), list(df.columns)


@pytest.fixture
def probs():
    rng = np.random.default_rng(3)
    p = rng.random((40, 5)) ** 2
    p[0] = [0.9, 0.45, 0.4, 0.05, 0.0]  # an instance where F wants labels below 0.5
    p[1] = [0.3, 0.25, 0.2, 0.1, 0.05]  # and one where the empty prediction is optimal
    return p


# ------------------------------------------------------------------------------ predict


def test_predict_marginals_matches_brute_force(tmp_path, probs):
    names = ["cat", "dog", "bird", "fish", "cow"]
    pd.DataFrame(probs, columns=names).to_csv(tmp_path / "P.csv", index=False)
    assert run("predict", "--marginals", tmp_path / "P.csv", "-o", tmp_path / "H.csv") == 0
    H, ef, cols = read_pred(tmp_path / "H.csv")
    assert cols == names + ["expected_f"]
    assert H.shape == probs.shape
    for p, h, v in zip(probs, H, ef):
        hb, vb, allv = brute_independent(p)
        idx = int("".join(map(str, h)), 2)  # all_vectors is in binary-counting order
        assert v == pytest.approx(vb, abs=1e-9)
        assert allv[idx] == pytest.approx(vb, abs=1e-9)  # the written h reaches the optimum
        if np.sort(allv)[-2] < vb - 1e-9:  # unique optimum: the same set
            np.testing.assert_array_equal(h, hb)
    np.testing.assert_array_equal(H[0], [1, 1, 1, 0, 0])  # 0.45 and 0.4 are predicted
    np.testing.assert_array_equal(H[1], [0, 0, 0, 0, 0])


def test_predict_hand_computed(tmp_path):
    # one label: p = 0.3 gives E[F] 0.7 for {} (F(0, 0) = 1) and 0.3 for {1}; p = 0.8 the reverse
    (tmp_path / "P.csv").write_text("0.3\n0.8\n")
    assert run("predict", "--marginals", tmp_path / "P.csv", "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text() == "y1,expected_f\n0,0.7\n1,0.8\n"


def test_predict_npy_and_stdout_same_as_csv(tmp_path, probs, capsys):
    np.save(tmp_path / "P.npy", probs)
    np.savetxt(tmp_path / "P.csv", probs, delimiter=",")  # no header: labels y1..ym
    assert run("predict", "--marginals", tmp_path / "P.npy") == 0
    out_npy = capsys.readouterr().out
    assert run("predict", "--marginals", tmp_path / "P.csv") == 0
    out_csv = capsys.readouterr().out
    assert out_npy == out_csv
    assert out_npy.splitlines()[0] == "y1,y2,y3,y4,y5,expected_f"
    assert len(out_npy.splitlines()) == len(probs) + 1


@pytest.mark.parametrize("suffix", [".csv", ".npy", ".csv.gz"])
def test_predict_chunked_equals_unchunked(tmp_path, probs, suffix):
    path = tmp_path / f"P{suffix}"
    if suffix == ".npy":
        np.save(path, probs)
    else:
        pd.DataFrame(probs, columns=list("abcde")).to_csv(path, index=False)
    assert run("predict", "--marginals", path, "-o", tmp_path / "one.csv") == 0
    assert run("predict", "--marginals", path, "--chunksize", 7, "-o", tmp_path / "many.csv") == 0
    assert (tmp_path / "one.csv").read_text() == (tmp_path / "many.csv").read_text()


def test_predict_format_indices_and_names(tmp_path):
    (tmp_path / "P.csv").write_text("a,b,c\n0.9,0.45,0.4\n0.3,0.25,0.2\n0.1,0.95,0.2\n")
    assert run("predict", "--marginals", tmp_path / "P.csv", "--format", "indices", "-o", tmp_path / "I.csv") == 0
    df = pd.read_csv(tmp_path / "I.csv", keep_default_na=False, dtype={"labels": str})
    assert list(df.columns) == ["labels", "expected_f"]
    assert df["labels"].tolist() == ["0 1 2", "", "1"]
    assert run("predict", "--marginals", tmp_path / "P.csv", "--format", "names", "-o", tmp_path / "N.csv") == 0
    df = pd.read_csv(tmp_path / "N.csv", keep_default_na=False)
    assert df["labels"].tolist() == ["a b c", "", "b"]


def _samples(rng, n, k, m):
    # strongly dependent labels: a few joint patterns per instance
    S = np.zeros((n, k, m), np.int8)
    for i in range(n):
        pats = (rng.random((3, m)) < 0.5).astype(np.int8)
        S[i] = pats[rng.integers(0, 3, size=k)]
        S[i, rng.integers(0, k, size=k // 4)] = 0
    return S


def test_predict_samples_matches_brute_force(tmp_path):
    rng = np.random.default_rng(5)
    S = _samples(rng, 12, 9, 4)
    np.save(tmp_path / "S.npy", S)
    assert run("predict", "--samples", tmp_path / "S.npy", "-o", tmp_path / "H.csv") == 0
    H, ef, _ = read_pred(tmp_path / "H.csv")
    for Si, h, v in zip(S, H, ef):
        _, vb = brute_samples(Si)
        assert v == pytest.approx(vb, abs=1e-9)
        assert np.mean([f_of(y, h.astype(np.int8)) for y in Si]) == pytest.approx(vb, abs=1e-9)


def test_predict_samples_layouts_agree(tmp_path):
    rng = np.random.default_rng(6)
    n, k, m = 10, 7, 5
    S = _samples(rng, n, k, m)
    np.save(tmp_path / "S3.npy", S)
    np.save(tmp_path / "S2.npy", S.reshape(n * k, m))
    sp.save_npz(tmp_path / "S.npz", sp.csr_array(S.reshape(n * k, m)))
    np.savetxt(tmp_path / "S.csv", S.reshape(n * k, m), fmt="%d", delimiter=",")
    assert run("predict", "--samples", tmp_path / "S3.npy", "-o", tmp_path / "ref.csv") == 0
    ref = (tmp_path / "ref.csv").read_text()
    for name in ["S2.npy", "S.npz", "S.csv"]:
        for chunk in [None, 3]:
            extra = ["--chunksize", chunk] if chunk else []
            args = ["predict", "--samples", tmp_path / name, "--samples-per-instance", k, *extra]
            assert run(*args, "-o", tmp_path / "h.csv") == 0, name
            assert (tmp_path / "h.csv").read_text() == ref, (name, chunk)
    assert run("predict", "--samples", tmp_path / "S3.npy", "--chunksize", 4, "-o", tmp_path / "h.csv") == 0
    assert (tmp_path / "h.csv").read_text() == ref


def test_predict_samples_independent_agrees_with_marginals(tmp_path):
    # the samples of a product distribution, enumerated with their probabilities as repeated rows:
    # GFM on them is FM on the marginals
    p = np.array([0.5, 0.25, 0.75])
    V = all_vectors(3)
    counts = np.round(np.prod(np.where(V == 1, p, 1 - p), axis=1) * 64).astype(int)
    S = np.repeat(V, counts, axis=0)[None]
    np.save(tmp_path / "S.npy", S)
    np.save(tmp_path / "P.npy", p[None])
    assert run("predict", "--samples", tmp_path / "S.npy", "-o", tmp_path / "g.csv") == 0
    assert run("predict", "--marginals", tmp_path / "P.npy", "-o", tmp_path / "f.csv") == 0
    g, vg, _ = read_pred(tmp_path / "g.csv")
    f, vf, _ = read_pred(tmp_path / "f.csv")
    np.testing.assert_array_equal(g, f)
    np.testing.assert_allclose(vg, vf, atol=1e-9)


# ------------------------------------------------------------------------------ evaluate


def test_evaluate_hand_computed(tmp_path, capsys):
    (tmp_path / "Y.csv").write_text("a,b,c\n1,0,1\n0,0,0\n")
    (tmp_path / "H.csv").write_text("a,b,c,expected_f\n1,1,1,0.7\n0,0,0,0.4\n")
    assert run("evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / "H.csv", "-o", tmp_path / "s.csv") == 0
    out = capsys.readouterr().out
    assert "F-measure" in out and "Hamming loss" in out
    s = pd.read_csv(tmp_path / "s.csv").set_index("measure")
    # row 1: F = 2*2/(2+3) = 0.8, Jaccard 2/3, Hamming 1/3, subset 1; row 2: F(0,0) = 1, J = 1, 0, 0
    assert s.loc["f", "value"] == pytest.approx(0.9)
    assert s.loc["jaccard", "value"] == pytest.approx((2 / 3 + 1) / 2)
    assert s.loc["hamming", "value"] == pytest.approx(1 / 6)
    assert s.loc["subset01", "value"] == pytest.approx(0.5)
    assert (s["ci_low"] <= s["value"]).all() and (s["value"] <= s["ci_high"]).all()


def test_evaluate_columns_by_name_and_indices_format(tmp_path, capsys):
    (tmp_path / "Y.csv").write_text("a,b,c\n1,0,1\n0,1,0\n1,1,0\n")
    (tmp_path / "H.csv").write_text("c,a,b,expected_f\n1,1,0,0.5\n0,0,1,0.5\n0,1,0,0.5\n")  # reordered
    (tmp_path / "I.csv").write_text('labels,expected_f\n"0 2",0.5\n1,0.5\n0,0.5\n')
    (tmp_path / "N.csv").write_text('labels,expected_f\n"a c",0.5\nb,0.5\na,0.5\n')
    outs = []
    for name in ["H.csv", "I.csv", "N.csv"]:
        args = ["evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / name, "-o", tmp_path / "s.csv"]
        assert run(*args) == 0
        outs.append((tmp_path / "s.csv").read_text())
    assert outs[0] == outs[1] == outs[2]
    s = pd.read_csv(tmp_path / "s.csv").set_index("measure")
    assert s.loc["f", "value"] == pytest.approx((1 + 1 + 2 / 3) / 3)


def test_evaluate_bootstrap_is_seeded_and_matches_a_direct_resampling(tmp_path):
    rng = np.random.default_rng(0)
    scores = rng.random((50, 2))
    mean, lo, hi = bootstrap_ci(scores, n_boot=200, seed=7, confidence=0.9)
    idx = np.random.default_rng(7).integers(0, 50, size=(200, 50))
    ref = np.stack([scores[i].mean(axis=0) for i in idx])
    np.testing.assert_allclose(mean, scores.mean(axis=0))
    np.testing.assert_allclose(lo, np.quantile(ref, 0.05, axis=0))
    np.testing.assert_allclose(hi, np.quantile(ref, 0.95, axis=0))
    Y = (rng.random((60, 4)) < 0.4).astype(int)
    H = (rng.random((60, 4)) < 0.4).astype(int)
    np.savetxt(tmp_path / "Y.csv", Y, fmt="%d", delimiter=",")
    np.savetxt(tmp_path / "H.csv", H, fmt="%d", delimiter=",")
    texts = []
    for seed in [1, 1, 2]:
        args = ["evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / "H.csv", "--seed", seed]
        assert run(*args, "--n-boot", 100, "-o", tmp_path / "s.csv") == 0
        texts.append((tmp_path / "s.csv").read_text())
    assert texts[0] == texts[1] != texts[2]


# ------------------------------------------------------------------------------ errors


def _bad(tmp_path, capsys, args, code=1):
    """Run, check the exit code, a single stderr line, and that no output file was left."""
    out = tmp_path / "out" / "H.csv"
    out.parent.mkdir(exist_ok=True)
    assert run(*args, "-o", out) == code
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    assert not out.exists()
    assert not list(out.parent.glob("*")) if out.parent.exists() else True
    return err


@pytest.mark.parametrize(
    "text, message",
    [
        ("a,b\n0.1,0.2\n0.3,1.3\n", "P.csv: row 2: column 'b': probability 1.3 outside [0, 1]"),
        ("a,b\n0.1,0.2\n-0.5,0.3\n", "P.csv: row 2: column 'a': probability -0.5 outside [0, 1]"),
        ("a,b\n0.1,0.2\nnan,0.3\n", "P.csv: row 2: column 'a': missing value or NaN"),
        ("a,b\n0.1,0.2\n0.2,\n", "P.csv: row 2: column 'b': missing value or NaN"),
        ("a,b\n0.1,0.2\n0.2,x\n", "P.csv: row 2: column 'b': 'x' is not a number"),
        ("a,b\n0.1,0.2\n0.2\n", "P.csv: row 2: 1 values, expected 2 (ragged row)"),
        ("a,b\n0.1,0.2\n0.2,0.3,0.4\n", "P.csv: row 2: 3 values, expected 2 (ragged row)"),
        ("0.1,0.2\n0.2,0.3,0.4\n", "P.csv: row 2: 3 values, expected 2 (ragged row)"),
        ("", "P.csv: empty file"),
    ],
)
def test_predict_bad_csv_one_line_and_nothing_written(tmp_path, capsys, text, message):
    (tmp_path / "P.csv").write_text(text)
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"])
    assert err == f"fmeasure: {tmp_path / 'P.csv'}: {message.split(': ', 1)[1]}"


def test_predict_bad_row_in_a_later_chunk_leaves_nothing(tmp_path, capsys):
    p = np.full((100, 3), 0.5)
    p[83, 2] = 1.5
    pd.DataFrame(p, columns=["a", "b", "c"]).to_csv(tmp_path / "P.csv", index=False)
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv", "--chunksize", 10])
    assert err.endswith("P.csv: row 84: column 'c': probability 1.5 outside [0, 1]")
    np.save(tmp_path / "P.npy", p)
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.npy", "--chunksize", 10])
    assert err.endswith("P.npy: row 84: column 'y3': probability 1.5 outside [0, 1]")


def test_predict_bad_samples(tmp_path, capsys):
    S = np.zeros((4, 3, 2), np.int8)
    S[2, 1, 1] = 2
    np.save(tmp_path / "S.npy", S)
    err = _bad(tmp_path, capsys, ["predict", "--samples", tmp_path / "S.npy"])
    assert err.endswith("S.npy: row 8: column 'y2': value 2 is not 0 or 1")
    sp.save_npz(tmp_path / "S.npz", sp.csr_array(np.ones((7, 2))))
    err = _bad(tmp_path, capsys, ["predict", "--samples", tmp_path / "S.npz", "--samples-per-instance", 3])
    assert err.endswith("S.npz: 7 rows is not a multiple of --samples-per-instance 3")
    (tmp_path / "S.csv").write_text("a,b\n1,0\n0,1\n1,1\n")
    err = _bad(tmp_path, capsys, ["predict", "--samples", tmp_path / "S.csv", "--samples-per-instance", 2])
    assert err.endswith("S.csv: 3 rows is not a multiple of --samples-per-instance 2")


def test_evaluate_column_and_row_mismatch(tmp_path, capsys):
    (tmp_path / "Y.csv").write_text("1,0,1\n0,0,0\n")
    (tmp_path / "H.csv").write_text("1,0\n0,0\n")
    (tmp_path / "H3.csv").write_text("1,0,1\n")
    (tmp_path / "Hx.csv").write_text("1,0,1\n0,5,0\n")
    err = _bad(tmp_path, capsys, ["evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / "H.csv"])
    assert err.endswith(f"H.csv: 2 label columns, but {tmp_path / 'Y.csv'} has 3")
    err = _bad(tmp_path, capsys, ["evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / "H3.csv"])
    assert err.endswith(f"H3.csv: 1 rows, but {tmp_path / 'Y.csv'} has 2")
    err = _bad(tmp_path, capsys, ["evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / "Hx.csv"])
    assert err.endswith("Hx.csv: row 2: column 'y2': value 5 is not 0 or 1")


def test_usage_errors_exit_2(tmp_path, capsys):
    (tmp_path / "P.csv").write_text("0.5\n")
    assert run("predict") == 2  # neither --marginals nor --samples
    assert run("predict", "--marginals", tmp_path / "P.csv", "--samples", tmp_path / "P.csv") == 2
    assert run("frobnicate") == 2
    assert run("predict", "--marginals", tmp_path / "missing.csv") == 2
    assert run("predict", "--marginals", tmp_path / "P.txt") == 2
    assert run("predict", "--samples", tmp_path / "P.csv") == 2  # 2-D samples need k
    assert run("predict", "--marginals", tmp_path / "P.csv", "--chunksize", 0) == 2
    capsys.readouterr()
    assert run("--help") == 0
    assert "fmeasure predict --marginals P.csv" in capsys.readouterr().out
    assert run("predict", "--help") == 0
    assert "--samples-per-instance" in capsys.readouterr().out


# ------------------------------------------------------------------------------ subprocess


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_subprocess_predict_pipe_evaluate(tmp_path, probs):
    pd.DataFrame(probs, columns=list("abcde")).to_csv(tmp_path / "P.csv", index=False)
    cmd = [sys.executable, "-m", "fmeasure"]
    r = subprocess.run(
        [*cmd, "predict", "--marginals", "P.csv"], cwd=tmp_path, env=_env(), capture_output=True, text=True
    )
    assert r.returncode == 0 and r.stderr == ""  # no progress bar in a pipe
    assert run("predict", "--marginals", tmp_path / "P.csv", "-o", tmp_path / "H.csv") == 0
    assert r.stdout == (tmp_path / "H.csv").read_text()  # the same as main() in this process
    Y = (np.random.default_rng(1).random(probs.shape) < probs).astype(int)
    pd.DataFrame(Y, columns=list("abcde")).to_csv(tmp_path / "Y.csv", index=False)
    r = subprocess.run(
        [*cmd, "evaluate", "--true", "Y.csv", "--pred", "H.csv", "--n-boot", "50"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert "F-measure" in r.stdout and r.stderr == ""


def test_subprocess_bad_data_exit_1_and_usage_exit_2(tmp_path):
    (tmp_path / "P.csv").write_text("a,b\n0.1,0.2\n0.3,1.3\n")
    cmd = [sys.executable, "-m", "fmeasure"]
    r = subprocess.run(
        [*cmd, "predict", "--marginals", "P.csv", "-o", "H.csv"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1
    assert r.stderr == "fmeasure: P.csv: row 2: column 'b': probability 1.3 outside [0, 1]\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["P.csv"]
    r = subprocess.run([*cmd, "predict"], cwd=tmp_path, env=_env(), capture_output=True, text=True)
    assert r.returncode == 2 and "usage:" in r.stderr


def test_failed_run_keeps_an_existing_output(tmp_path, capsys):
    (tmp_path / "P.csv").write_text("a\n0.5\n2\n")
    (tmp_path / "H.csv").write_text("previous\n")
    assert run("predict", "--marginals", tmp_path / "P.csv", "-o", tmp_path / "H.csv") == 1
    assert (tmp_path / "H.csv").read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["H.csv", "P.csv"]


def test_header_guess_delimiter_and_header_override(tmp_path, capsys):
    # a missing value in the first row does not make it a header
    (tmp_path / "P.csv").write_text("0.3,\n0.8,0.1\n")
    assert run("predict", "--marginals", tmp_path / "P.csv", "-o", tmp_path / "H.csv") == 1
    assert capsys.readouterr().err.strip().endswith("P.csv: row 1: column 'y2': missing value or NaN")
    # a header of numbers, and a semicolon-separated file. p = (0.3, 0.8): E[F] of {2} is
    # 0.8 * (0.7 * 1 + 0.3 * 2/3) = 0.72, of {1, 2} 0.24 * 1 + 0.56 * 2/3 + 0.06 * 2/3 ~ 0.653, of {} 0.14
    (tmp_path / "Q.csv").write_text("1;2\n0.3;0.8\n")
    args = ["predict", "--marginals", tmp_path / "Q.csv", "--delimiter", ";", "--header", "yes"]
    assert run(*args, "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text() == "1,2,expected_f\n0,1,0.72\n"
    (tmp_path / "T.tsv").write_text("a\tb\n0.3\t0.8\n")
    assert run("predict", "--marginals", tmp_path / "T.tsv", "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text() == "a,b,expected_f\n0,1,0.72\n"


def test_unnamed_index_column_is_named_in_the_error(tmp_path, capsys):
    pd.DataFrame({"a": [0.1, 0.9]}).to_csv(tmp_path / "P.csv")  # pandas writes its index first
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"])
    assert "column 1 of the header has no name (a row index?" in err


def test_evaluate_counts_every_row_of_the_longer_file(tmp_path, capsys):
    np.savetxt(tmp_path / "Y.csv", np.zeros((25, 2)), fmt="%d", delimiter=",")
    np.savetxt(tmp_path / "H.csv", np.zeros((38, 2)), fmt="%d", delimiter=",")
    args = ["evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / "H.csv", "--chunksize", 10]
    err = _bad(tmp_path, capsys, args)
    assert err.endswith(f"H.csv: 38 rows, but {tmp_path / 'Y.csv'} has 25")


def test_excel_style_csv_bom_and_spaces(tmp_path):
    # a byte-order mark (Excel's "CSV UTF-8") and spaces around the header's names
    (tmp_path / "P.csv").write_bytes("\ufeffcat , dog\r\n0.3, 0.8\r\n".encode())
    assert run("predict", "--marginals", tmp_path / "P.csv", "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text() == "cat,dog,expected_f\n0,1,0.72\n"
    (tmp_path / "Q.csv").write_bytes("\ufeff0.3,0.8\n".encode())
    assert run("predict", "--marginals", tmp_path / "Q.csv", "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text() == "y1,y2,expected_f\n0,1,0.72\n"


def test_progress_bar_on_a_terminal_only(tmp_path):
    # stderr a pseudo-terminal (100 columns): a tqdm bar; a pipe (the tests above): nothing
    import fcntl
    import pty
    import struct
    import termios

    np.save(tmp_path / "P.npy", np.full((50, 3), 0.4))
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    cmd = [sys.executable, "-m", "fmeasure", "predict", "--marginals", "P.npy", "-o", "H.csv"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=_env(), stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            block = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not block:
            break
        seen += block
    os.close(master)
    assert proc.wait() == 0
    # the bar counts the 50 rows; whether a frame past 0/50 is drawn depends on the time the rows
    # take (tqdm redraws at most every 0.1 s), and the finished bar is cleared (leave=False)
    assert b"predict:" in seen and b"/50 [" in seen, seen


def test_subprocess_samples_npz_indices(tmp_path):
    rng = np.random.default_rng(8)
    n, k, m = 6, 5, 4
    S = _samples(rng, n, k, m)
    sp.save_npz(tmp_path / "S.npz", sp.csr_array(S.reshape(n * k, m)))
    cmd = [sys.executable, "-m", "fmeasure", "predict", "--samples", "S.npz", "--samples-per-instance", str(k)]
    r = subprocess.run([*cmd, "--format", "indices"], cwd=tmp_path, env=_env(), capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "labels,expected_f" and len(lines) == n + 1
    for Si, line in zip(S, lines[1:]):
        labels, ef = line.rsplit(",", 1)
        h = np.zeros(m, np.int8)
        h[[int(j) for j in labels.split()]] = 1
        _, vb = brute_samples(Si)
        assert float(ef) == pytest.approx(vb, abs=1e-9)
        assert np.mean([f_of(y, h) for y in Si]) == pytest.approx(vb, abs=1e-9)


def test_label_names_that_cannot_be_written(tmp_path, capsys):
    (tmp_path / "P.csv").write_text("a,expected_f\n0.5,0.5\n")
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"])
    assert err.endswith("P.csv: a label is named 'expected_f', the output's value column: rename it")
    (tmp_path / "Q.csv").write_text("a,big cat\n0.5,0.5\n")
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "Q.csv", "--format", "names"])
    assert err.endswith("Q.csv: label name 'big cat' holds a space: use --format indices")


def test_evaluate_default_names_match_by_position(tmp_path):
    # P.npy has no names, so predict writes y1..ym; Y.csv names its labels
    np.save(tmp_path / "P.npy", np.array([[0.9, 0.1], [0.2, 0.7]]))
    (tmp_path / "Y.csv").write_text("cat,dog\n1,0\n0,0\n")
    assert run("predict", "--marginals", tmp_path / "P.npy", "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text().splitlines()[0] == "y1,y2,expected_f"
    args = ["evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / "H.csv", "-o", tmp_path / "s.csv"]
    assert run(*args) == 0
    s = pd.read_csv(tmp_path / "s.csv").set_index("measure")
    assert s.loc["f", "value"] == pytest.approx((1 + 0) / 2)  # {cat} for {cat}: 1; {dog} for no label: 0


# ------------------------------------------------------------------------------ reading CSV: the header and the shape


def test_row_longer_than_the_header_is_an_error(tmp_path, capsys):
    # pandas drops the extra field of such a row (index_col=False) with only a warning
    (tmp_path / "P.csv").write_text("a,b\n0.1,0.2,0.3\n0.5,0.2,0.1\n")
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"])
    assert err == f"fmeasure: {tmp_path / 'P.csv'}: row 1: 3 values, expected 2 (ragged row)"
    (tmp_path / "Q.csv").write_text("a,b\n0.1,0.2\n0.5,0.2\n0.4,0.3,0.1\n")
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "Q.csv", "--chunksize", 1])
    assert err == f"fmeasure: {tmp_path / 'Q.csv'}: row 3: 3 values, expected 2 (ragged row)"


def test_first_row_mixing_numbers_and_text_is_an_error(tmp_path, capsys):
    # not a header (it holds numbers), not data (it holds a word): a typo must not turn it into names
    (tmp_path / "P.csv").write_text("0.1,hi,0.3\n0.5,0.2,0.1\n")
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"])
    assert err == f"fmeasure: {tmp_path / 'P.csv'}: row 1: column 2: 'hi' is not a number, but the row holds numbers"
    # said to be data, the word is reported as in any other row
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv", "--header", "no"])
    assert err == f"fmeasure: {tmp_path / 'P.csv'}: row 1: column 'y2': 'hi' is not a number"


@pytest.mark.parametrize("text", ["a,b\n", "a,b\n\n\n"])
def test_header_without_rows_is_an_error(tmp_path, capsys, text):
    (tmp_path / "P.csv").write_text(text)
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"])
    assert err == f"fmeasure: {tmp_path / 'P.csv'}: no rows (only a header)"
    args = ["predict", "--samples", tmp_path / "P.csv", "--samples-per-instance", 2]
    err = _bad(tmp_path, capsys, args)
    assert err == f"fmeasure: {tmp_path / 'P.csv'}: no rows (only a header)"
    np.save(tmp_path / "P.npy", np.zeros((0, 3)))
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.npy"])
    assert err == f"fmeasure: {tmp_path / 'P.npy'}: no rows (shape (0, 3))"


def test_output_that_cannot_be_written_is_one_line(tmp_path, capsys):
    (tmp_path / "P.csv").write_text("a,b\n0.1,0.2\n")
    (tmp_path / "d").mkdir()
    targets = [tmp_path / "d", tmp_path / "P.csv" / "H.csv"]  # a folder; a path below a file
    if Path("/proc/self").is_dir():
        targets.append(Path("/proc/out.csv"))  # a file system that refuses new files
    for target in targets:
        for cmd in (["predict", "--marginals", tmp_path / "P.csv"], ["evaluate", "--true", tmp_path / "P.csv"]):
            if cmd[0] == "evaluate":
                cmd = [*cmd, "--pred", tmp_path / "P.csv", "--header", "yes", "--n-boot", 5]
            assert run(*cmd, "-o", target) == 2, (cmd, target)
            err = capsys.readouterr().err.strip()
            assert len(err.splitlines()) == 1 and "Traceback" not in err, err
            assert err.startswith(f"fmeasure {cmd[0]}: error: -o {target}: "), err
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == []


def test_pandas_default_header_is_a_header(tmp_path, capsys):
    # DataFrame(P).to_csv(index=False) writes the header 0,1,...,m-1
    p = np.array([[0.9, 0.45, 0.4, 0.05], [0.3, 0.25, 0.2, 0.1], [0.6, 0.6, 0.0, 1.0]])
    pd.DataFrame(p).to_csv(tmp_path / "P.csv", index=False)
    assert (tmp_path / "P.csv").read_text().splitlines()[0] == "0,1,2,3"
    assert run("predict", "--marginals", tmp_path / "P.csv", "-o", tmp_path / "H.csv") == 0
    H, ef, cols = read_pred(tmp_path / "H.csv")
    assert cols == ["0", "1", "2", "3", "expected_f"]
    assert H.shape == p.shape
    for row, h, v in zip(p, H, ef):
        _, vb, allv = brute_independent(row)
        assert v == pytest.approx(vb, abs=1e-9)
        assert allv[int("".join(map(str, h)), 2)] == pytest.approx(vb, abs=1e-9)
    # the predictions' header 0,1,2,3,expected_f is read back by evaluate, matched by name
    Y = np.array([[1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 0, 1]])
    pd.DataFrame(Y).to_csv(tmp_path / "Y.csv", index=False)
    args = ["evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / "H.csv", "--n-boot", 10]
    assert run(*args, "-o", tmp_path / "s.csv") == 0
    assert pd.read_csv(tmp_path / "s.csv").set_index("measure").loc["f", "n"] == 3


@pytest.mark.parametrize("m", [1, 2])
def test_pandas_default_header_of_one_or_two_labels_is_ambiguous(tmp_path, capsys, m):
    # "0" and "0,1" are also valid rows of probabilities (and of 0/1 samples): the command asks
    p = np.full((3, m), 0.4)
    pd.DataFrame(p).to_csv(tmp_path / "P.csv", index=False)
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"])
    first = ",".join(map(str, range(m)))
    assert err == (
        f"fmeasure: {tmp_path / 'P.csv'}: row 1 ({first}) may be a header (pandas' column names) "
        "or data: pass --header yes or --header no"
    )
    assert run("predict", "--marginals", tmp_path / "P.csv", "--header", "yes", "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text().splitlines()[0] == first + ",expected_f"
    assert len((tmp_path / "H.csv").read_text().splitlines()) == 4


def test_unreadable_npy_and_npz_are_one_line(tmp_path, capsys):
    import gzip

    (tmp_path / "E.npy").write_bytes(b"")  # an empty file
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "E.npy"])
    assert err.startswith(f"fmeasure: {tmp_path / 'E.npy'}: not a readable .npy array")
    with open(tmp_path / "Z.npy", "wb") as f:  # an .npz archive under a .npy name
        np.savez(f, a=np.zeros((2, 2)))
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "Z.npy"])
    assert err.startswith(f"fmeasure: {tmp_path / 'Z.npy'}: not a readable .npy array")
    (tmp_path / "G.npy").write_bytes(gzip.compress(b"not an array"))  # compressed, but not an array inside
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "G.npy"])
    assert err.startswith(f"fmeasure: {tmp_path / 'G.npy'}: not a readable .npy array")
    (tmp_path / "G.npz").write_bytes(gzip.compress(b"not an archive"))
    err = _bad(tmp_path, capsys, ["predict", "--samples", tmp_path / "G.npz", "--samples-per-instance", 2])
    assert err.startswith(f"fmeasure: {tmp_path / 'G.npz'}: not a scipy.sparse .npz matrix")
    # the name's compression suffix is not what decides: a plain .npz named .npz.gz is read as it is
    sp.save_npz(tmp_path / "S.npz", sp.csr_array(np.ones((4, 2))))
    (tmp_path / "S.npz.gz").write_bytes((tmp_path / "S.npz").read_bytes())
    assert (
        run("predict", "--samples", tmp_path / "S.npz.gz", "--samples-per-instance", 2, "-o", tmp_path / "H.csv") == 0
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("a,b\n0.1,0.2\n\n0.3,0.4\n", "row 2: empty line"),  # a skipped line would shift later rows
        ("a,b\n0.1,0.2\n,\n", "row 2: column 'a': missing value or NaN"),  # empty fields, at the end too
        ("a,b\n0.1,0.2\n\n,\n", "row 2: empty line"),
        ("\n\na,b\n0.1,0.2\n", "line 1 is blank: the file must start with its header or its first row"),
        ("\n \n", "empty file"),
        # the first bad row is named, also when a later row of the same chunk is too long
        ("a,b\n0.1,0.2\n0.3,2\n0.3,0.2,0.5\n", "row 2: column 'b': probability 2 outside [0, 1]"),
        (
            "1,2\n0.1,0.1\n",
            "row 1: column 'y2': probability 2 outside [0, 1] (if row 1 is a header, pass --header yes)",
        ),
    ],
)
def test_blank_lines_and_the_first_bad_row(tmp_path, capsys, text, message):
    (tmp_path / "P.csv").write_text(text)
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"])
    assert err == f"fmeasure: {tmp_path / 'P.csv'}: {message}"


def test_blank_lines_at_the_end_are_ignored(tmp_path):
    (tmp_path / "P.csv").write_text("a,b\n0.3,0.8\n\n  \n\n")
    assert run("predict", "--marginals", tmp_path / "P.csv", "--chunksize", 1, "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text() == "a,b,expected_f\n0,1,0.72\n"


def test_separator_that_ends_lines_or_quotes_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "P.csv").write_text("0.5\n")
    for sep in ['"', "\n"]:
        assert run("predict", "--marginals", tmp_path / "P.csv", "--delimiter", sep) == 2
        assert "cannot separate fields" in capsys.readouterr().err


def test_a_number_with_spaces_reads_as_that_number(tmp_path, capsys):
    # pandas reads "3 " as 3 but not "inf " as inf: the fields of a text column are stripped first
    (tmp_path / "P.csv").write_text("a,b\n0.5,x\ninf ,0.5\n")
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv", "--header", "yes"])
    assert err == f"fmeasure: {tmp_path / 'P.csv'}: row 1: column 'b': 'x' is not a number"
    (tmp_path / "Q.csv").write_text("a,b\n0.25 ,0.5\ninf ,0.5\n")
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "Q.csv"])
    assert err == f"fmeasure: {tmp_path / 'Q.csv'}: row 2: column 'a': probability inf outside [0, 1]"


# ------------------------------------------------------------------------------ messages quote the file


@pytest.mark.parametrize(
    "field, shown",
    [("1.0000001", "1.0000001"), ("-1e-9", "-1e-9"), ("1e400", "1e400"), ('"1.50"', "1.50"), (" 2.000 ", "2.000")],
)
def test_a_bad_value_is_shown_as_the_file_writes_it(tmp_path, capsys, field, shown):
    # 1.0000001 printed with %g would read "probability 1 outside [0, 1]"
    (tmp_path / "P.csv").write_text(f"a,b\n0.5,0.5\n0.5,{field}\n")
    for chunk in ([], ["--chunksize", 1]):
        err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv", *chunk])
        assert err == f"fmeasure: {tmp_path / 'P.csv'}: row 2: column 'b': probability {shown} outside [0, 1]"
    (tmp_path / "Q.csv").write_text(f"a,b\nx,0.5\n0.5,{field}\n")  # a column pandas keeps as text
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "Q.csv", "--header", "yes"])
    assert err == f"fmeasure: {tmp_path / 'Q.csv'}: row 1: column 'a': 'x' is not a number"


def test_a_bad_value_of_an_array_is_shown_in_its_own_dtype(tmp_path, capsys):
    for dtype, shown in [("float64", "1.0000001"), ("float32", "1.0000001")]:
        np.save(tmp_path / "P.npy", np.array([[0.5, 1.0000001]], dtype=dtype))
        err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.npy"])
        assert err == f"fmeasure: {tmp_path / 'P.npy'}: row 1: column 'y2': probability {shown} outside [0, 1]"
    (tmp_path / "Y.csv").write_text("a,b\n1,0\n")
    (tmp_path / "H.csv").write_text("a,b\n1,0.9999\n")
    err = _bad(tmp_path, capsys, ["evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / "H.csv"])
    assert err == f"fmeasure: {tmp_path / 'H.csv'}: row 1: column 'b': value 0.9999 is not 0 or 1"
    sp.save_npz(tmp_path / "S.npz", sp.csr_array(np.array([[1.0, 0.0], [0.0, 1.0000001]])))
    err = _bad(tmp_path, capsys, ["predict", "--samples", tmp_path / "S.npz", "--samples-per-instance", 1])
    assert err == f"fmeasure: {tmp_path / 'S.npz'}: row 2: column 'y2': value 1.0000001 is not 0 or 1"


# ------------------------------------------------------------------------------ compressed content, whatever the name


def _zstd_frame(data: bytes) -> bytes:
    """A zstd frame holding ``data`` in one raw (stored) block, written by hand (no zstandard needed)."""
    assert len(data) < 256
    block = (1 | (len(data) << 3)).to_bytes(3, "little")  # last block, raw, its size
    return b"\x28\xb5\x2f\xfd" + bytes([0x20, len(data)]) + block + data  # single segment, 1-byte size


@pytest.mark.parametrize("method", ["gzip", "bz2", "xz", "zip", "none"])
@pytest.mark.parametrize("name", ["P.csv", "P.csv.gz", "P.csv.bz2"])
def test_compressed_content_is_recognised_by_its_first_bytes(tmp_path, method, name):
    import bz2
    import gzip
    import lzma
    import zipfile

    text = b"a,b\n0.3,0.8\n0.9,0.45\n"
    path = tmp_path / name
    if method == "zip":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("P.csv", text)
    else:
        pack = {"gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress, "none": bytes}[method]
        path.write_bytes(pack(text))
    assert run("predict", "--marginals", path, "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text() == "a,b,expected_f\n0,1,0.72\n1,0,0.765\n"


def test_compressed_npy_and_npz_are_read_whatever_the_name(tmp_path, capsys, probs):
    import gzip
    import lzma

    np.save(tmp_path / "P.npy", probs)
    assert run("predict", "--marginals", tmp_path / "P.npy", "-o", tmp_path / "want.csv") == 0
    raw = (tmp_path / "P.npy").read_bytes()
    for name, data in [("G.npy", gzip.compress(raw)), ("G.npy.gz", gzip.compress(raw)), ("X.npy", lzma.compress(raw))]:
        (tmp_path / name).write_bytes(data)
        for chunk in ([], ["--chunksize", 7]):
            assert run("predict", "--marginals", tmp_path / name, *chunk, "-o", tmp_path / "H.csv") == 0, name
            assert (tmp_path / "H.csv").read_text() == (tmp_path / "want.csv").read_text()
    # a Fortran-ordered array, and a bad value found while streaming
    np.save(tmp_path / "F.npy", np.asfortranarray(probs))
    (tmp_path / "F.npy").write_bytes(gzip.compress((tmp_path / "F.npy").read_bytes()))
    assert run("predict", "--marginals", tmp_path / "F.npy", "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text() == (tmp_path / "want.csv").read_text()
    bad = probs.copy()
    bad[33, 1] = 1.5
    np.save(tmp_path / "B.npy", bad)
    (tmp_path / "B.npy").write_bytes(gzip.compress((tmp_path / "B.npy").read_bytes()))
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "B.npy", "--chunksize", 5])
    assert err == f"fmeasure: {tmp_path / 'B.npy'}: row 34: column 'y2': probability 1.5 outside [0, 1]"
    # a compressed file cut short
    (tmp_path / "T.npy").write_bytes(gzip.compress(raw)[:-200])
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "T.npy"])
    assert err.startswith(f"fmeasure: {tmp_path / 'T.npy'}: not a readable .npy array (gzip content"), err
    # samples: a 3-D array and a sparse .npz, each gzipped
    S = (np.random.default_rng(0).random((6, 4, 3)) < 0.4).astype(np.int8)
    np.save(tmp_path / "S.npy", S)
    (tmp_path / "S.npy").write_bytes(gzip.compress((tmp_path / "S.npy").read_bytes()))
    sp.save_npz(tmp_path / "S.npz", sp.csr_array(S.reshape(24, 3)))
    (tmp_path / "S.npz.gz").write_bytes(gzip.compress((tmp_path / "S.npz").read_bytes()))
    assert run("predict", "--samples", tmp_path / "S.npy", "--chunksize", 4, "-o", tmp_path / "a.csv") == 0
    k = ["--samples-per-instance", 4]
    assert run("predict", "--samples", tmp_path / "S.npz.gz", *k, "-o", tmp_path / "b.csv") == 0
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()


def test_zstd_content(tmp_path):
    """zstd content is read with the zstandard package (the zstd extra; the test extra installs it)."""
    (tmp_path / "P.csv").write_bytes(_zstd_frame(b"a,b\n0.3,0.8\n"))
    assert run("predict", "--marginals", tmp_path / "P.csv", "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text() == "a,b,expected_f\n0,1,0.72\n"


def test_zstd_content_without_zstandard_names_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)  # as if it were not installed
    (tmp_path / "P.csv").write_bytes(_zstd_frame(b"a,b\n0.3,0.8\n"))
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"], code=2)
    assert err == (
        f"fmeasure predict: error: {tmp_path / 'P.csv'}: zstd-compressed content: "
        "reading it needs the zstandard package: pip install 'fmeasure[zstd]'"
    )


@pytest.mark.parametrize(
    "content, message",
    [
        (b"\x93NUMPY\x01\x00v\x00{'descr': '<f8'", "a .npy array, not text: name it .npy"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100), "an Excel workbook, not text: save it as CSV"),
        (b"PAR1\x15\x04", "a Parquet file, not text: save it as CSV"),
        (b"a,b\n0.5,\x000.5\n", "line 2: a NUL byte: binary content, not a text table"),
        ("a,caf\xe9\n0.5,0.5\n".encode("latin-1"), "line 1: not UTF-8 text (byte 0xe9): save the file as UTF-8"),
        (
            b"a,b\n" + b"0.5,0.5\n" * 20000 + b"0.5,\xe90.5\n",
            "line 20002: not UTF-8 text (byte 0xe9): save the file as UTF-8",
        ),
    ],
)
def test_content_that_is_not_a_text_table(tmp_path, capsys, content, message):
    (tmp_path / "P.csv").write_bytes(content)
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"])
    assert err == f"fmeasure: {tmp_path / 'P.csv'}: {message}"


def test_utf16_text_and_an_excel_workbook_in_a_zip(tmp_path, capsys):
    import zipfile

    (tmp_path / "P.csv").write_bytes("cat,dog\r\n0.3,0.8\r\n".encode("utf-16"))  # with its byte-order mark
    assert run("predict", "--marginals", tmp_path / "P.csv", "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text() == "cat,dog,expected_f\n0,1,0.72\n"
    with zipfile.ZipFile(tmp_path / "W.csv", "w") as z:  # what an .xlsx is
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "W.csv"])
    assert err == f"fmeasure: {tmp_path / 'W.csv'}: an Excel workbook, not text: save it as CSV"
    with zipfile.ZipFile(tmp_path / "Z.csv.zip", "w") as z:
        z.writestr("a.csv", "a\n0.5\n")
        z.writestr("b.csv", "a\n0.5\n")
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "Z.csv.zip"])
    assert err == f"fmeasure: {tmp_path / 'Z.csv.zip'}: a zip archive of 2 files: put the CSV alone in it"


def test_an_input_that_cannot_be_read_is_a_usage_error(tmp_path, capsys, monkeypatch):
    import fmeasure.cli._files as files

    (tmp_path / "P.csv").write_text("a\n0.5\n")
    (tmp_path / "D.csv").mkdir()
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "D.csv"], code=2)
    assert err == f"fmeasure predict: error: {tmp_path / 'D.csv'}: is a directory, expected a file"
    if os.geteuid() != 0:  # root reads a file of mode 000
        (tmp_path / "P.csv").chmod(0)
        err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"], code=2)
        assert err == f"fmeasure predict: error: {tmp_path / 'P.csv'}: cannot read (Permission denied)"
        (tmp_path / "P.csv").chmod(0o644)

    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(files, "open", refuse, raising=False)
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"], code=2)
    assert err == f"fmeasure predict: error: {tmp_path / 'P.csv'}: cannot read (Permission denied)"


# ------------------------------------------------------------------------------ the field separator


@pytest.mark.parametrize(
    "text, name",
    [
        ("a;b\n0.3;0.8\n0.9;0.45\n", "P.csv"),  # Excel's CSV where the comma is the decimal mark
        ("0.3;0.8\n0.9;0.45\n", "P.csv"),
        ("a\tb\r\n0.3\t0.8\r\n0.9\t0.45\r\n", "P.csv"),  # tab-separated text named .csv
        ("a;b\n0.3;0.8\n\n0.9;0.45\n", "P.csv"),  # the blank line is still reported, as for commas
        ("a;b\n0.3 ; 0.8\n0.9;0.45\n", "P.tsv"),
    ],
)
def test_a_semicolon_or_tab_on_every_line_is_the_separator(tmp_path, capsys, text, name):
    (tmp_path / name).write_text(text)
    code = run("predict", "--marginals", tmp_path / name, "-o", tmp_path / "H.csv")
    if "\n\n" in text:
        assert code == 1 and capsys.readouterr().err.strip().endswith(f"{name}: row 2: empty line")
        return
    assert code == 0, capsys.readouterr().err
    names = "a,b" if text.startswith("a") else "y1,y2"
    assert (tmp_path / "H.csv").read_text() == f"{names},expected_f\n0,1,0.72\n1,0,0.765\n"


@pytest.mark.parametrize(
    "text, options, message",
    [
        # quotes: the separator is not guessed, but named
        (
            '"a";"b"\n0.3;0.8\n',
            [],
            "row 1: column 'a;\"b\"': '0.3;0.8' is not a number (fields separated by ';'? pass --delimiter ';')",
        ),
        # the fields hold decimal commas, so commas split them: the first row mixes numbers and text
        (
            "0,3;0,8\n0,9;0,45\n",
            [],
            "row 1: column 2: '3;0' is not a number, but the row holds numbers (fields separated by ';'? pass --delimiter ';')",
        ),
        (
            "a;b\n0,3;0,8\n",
            [],
            "row 1: 3 values, expected 1 (ragged row) (fields separated by ';'? pass --delimiter ';')",
        ),
        (
            "a;b\n0,3;0,8\n",
            ["--delimiter", ";"],
            "row 1: column 'a': '0,3' is not a number (a decimal comma? write numbers with a decimal point)",
        ),
        (
            "a,b\n0.3,0.8\n",
            ["--delimiter", ";"],
            "row 1: column 'a,b': '0.3,0.8' is not a number (fields separated by ','? pass --delimiter ',')",
        ),
        (
            "a,b\n0.3,0.8\n",
            ["--delimiter", "tab"],
            "row 1: column 'a,b': '0.3,0.8' is not a number (fields separated by ','? pass --delimiter ',')",
        ),
        (
            'a;b\n0.3;"0.8\t0.1"\n',
            ["--delimiter", ";"],
            "row 1: column 'b': '0.8\\t0.1' is not a number (fields separated by tabs? pass --delimiter tab)",
        ),
        # a ragged ';' file: no guess, as for commas
        (
            "a;b\n0.3;0.8\n0.9;0.45;0.1\n",
            [],
            "row 1: column 'a;b': '0.3;0.8' is not a number (fields separated by ';'? pass --delimiter ';')",
        ),
    ],
)
def test_another_separator_is_named_in_the_message(tmp_path, capsys, text, options, message):
    (tmp_path / "P.csv").write_text(text)
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv", *options])
    assert err == f"fmeasure: {tmp_path / 'P.csv'}: {message}"


def test_a_separator_is_not_guessed_where_commas_would_read(tmp_path):
    # a single column with a tab after each value reads with commas: the tab is not a separator
    (tmp_path / "P.csv").write_text("a\t\n0.3\t\n0.8\t\n")
    assert run("predict", "--marginals", tmp_path / "P.csv", "-o", tmp_path / "H.csv") == 0
    assert (tmp_path / "H.csv").read_text() == "a,expected_f\n0,0.7\n1,0.8\n"
    # evaluate guesses for both files; --delimiter is used as given
    (tmp_path / "Y.csv").write_text("a;b\n1;0\n0;1\n")
    (tmp_path / "H.csv").write_text("a\tb\n1\t0\n0\t0\n")
    args = ["evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / "H.csv", "--n-boot", 10]
    assert run(*args, "-o", tmp_path / "s.csv") == 0
    assert pd.read_csv(tmp_path / "s.csv").set_index("measure").loc["f", "value"] == pytest.approx(0.5)
    assert run(*args, "--delimiter", ",") == 1


def test_a_bad_number_beside_a_short_row_is_shown_as_written(tmp_path, capsys):
    # the short row turns the other columns to text, while pandas parsed this one: 2, not 2.0
    (tmp_path / "S.tsv").write_text("2\t0.0\t0.0\n0.0\n")
    err = _bad(tmp_path, capsys, ["predict", "--samples", tmp_path / "S.tsv", "--samples-per-instance", 1])
    assert err == (
        f"fmeasure: {tmp_path / 'S.tsv'}: row 1: column 'y1': value 2 is not 0 or 1 (if row 1 is a header, pass --header yes)"
    )


# ------------------------------------------------------------------------------ the output file


def _tree(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("target", ["missing/H.csv", "missing/deeper/H.csv"])
def test_an_output_in_a_folder_that_does_not_exist_is_refused(tmp_path, capsys, target):
    (tmp_path / "P.csv").write_text("a,b\n0.3,0.8\n")
    (tmp_path / "Y.csv").write_text("a,b\n0,1\n")
    folder = str(Path(target).parent)
    for cmd in (["predict", "--marginals", "P.csv"], ["evaluate", "--true", "Y.csv", "--pred", "Y.csv"]):
        for data in ("P.csv", "Bad.csv"):  # a run that would succeed, and one that fails on its data
            (tmp_path / "Bad.csv").write_text("a,b\n0.3,1.5\n")
            args = [str(tmp_path / x) if x.endswith(".csv") else x for x in cmd]
            if data == "Bad.csv":
                args = [a.replace("P.csv", "Bad.csv").replace("Y.csv", "Bad.csv") for a in args]
            out = tmp_path / target
            assert run(*args, "-o", out) == 2
            err = capsys.readouterr().err.strip()
            assert err == f"fmeasure {cmd[0]}: error: -o {out}: no such directory {tmp_path / folder}: create it first"
            assert _tree(tmp_path) == ["Bad.csv", "P.csv", "Y.csv"]


def test_an_output_named_as_a_folder_or_as_an_input_is_refused(tmp_path, capsys):
    (tmp_path / "P.csv").write_text("a,b\n0.3,0.8\n")
    (tmp_path / "Y.csv").write_text("a,b\n0,1\n")
    (tmp_path / "link.csv").symlink_to(tmp_path / "P.csv")
    before = (tmp_path / "P.csv").read_text()
    assert run("predict", "--marginals", tmp_path / "P.csv", "-o", f"{tmp_path}/new/") == 2
    err = capsys.readouterr().err.strip()
    assert err == f"fmeasure predict: error: -o {tmp_path}/new/: names a directory, expected a file name"
    cases = [
        (["predict", "--marginals", tmp_path / "P.csv"], tmp_path / "P.csv", "--marginals"),
        (["predict", "--marginals", tmp_path / "P.csv"], tmp_path / "." / "link.csv", "--marginals"),
        (["predict", "--samples", tmp_path / "Y.csv", "--samples-per-instance", 1], tmp_path / "Y.csv", "--samples"),
        (["evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / "P.csv"], tmp_path / "Y.csv", "--true"),
        (["evaluate", "--true", tmp_path / "Y.csv", "--pred", tmp_path / "P.csv"], tmp_path / "link.csv", "--pred"),
    ]
    for args, out, flag in cases:
        assert run(*args, "-o", out) == 2
        err = capsys.readouterr().err.strip()
        assert err == f"fmeasure {args[0]}: error: -o {out}: is the input {flag}: write the output to another file"
    assert (tmp_path / "P.csv").read_text() == before
    assert _tree(tmp_path) == ["P.csv", "Y.csv", "link.csv"]


# ------------------------------------------------------------------------------ more files people have


@pytest.mark.parametrize(
    "text, chunk, message",
    [
        ('a,b\n0.3,0.8\n0.1,0.2\n"0.3,0.8\n0.1,0.2\n', [], 'line 4: a quote (") that is never closed'),
        ('a,b\n0.3,0.8\n0.1,0.2\n"0.3,0.8\n0.1,0.2\n', ["--chunksize", 1], 'line 4: a quote (") that is never closed'),
        ('a,"b\n"",0.3\n', [], 'line 1: a quote (") that is never closed'),
    ],
)
def test_a_quote_never_closed_names_its_line(tmp_path, capsys, text, chunk, message):
    (tmp_path / "P.csv").write_text(text)
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv", *chunk])
    assert err == f"fmeasure: {tmp_path / 'P.csv'}: {message}"


@pytest.mark.parametrize("text", ["\t\t\n", " \t \n\n"])
def test_a_line_of_tabs_is_blank(tmp_path, capsys, text):
    (tmp_path / "P.csv").write_text(text)
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"])
    assert err == f"fmeasure: {tmp_path / 'P.csv'}: empty file"
    (tmp_path / "Q.csv").write_text("a,b\n0.3,0.8\n" + text)
    assert run("predict", "--marginals", tmp_path / "Q.csv", "-o", tmp_path / "H.csv") == 0


def test_a_pipe_is_refused_not_waited_for(tmp_path, capsys):
    os.mkfifo(tmp_path / "P.csv")  # reading it would wait for a writer, and the file is read more than once
    err = _bad(tmp_path, capsys, ["predict", "--marginals", tmp_path / "P.csv"], code=2)
    assert err == (
        f"fmeasure predict: error: {tmp_path / 'P.csv'}: not a regular file (a pipe or a device): save the data to a file"
    )
