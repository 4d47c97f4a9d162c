"""The scaling benchmark: one timed job per (learner, shape), a timeout recorded as such, exponents."""

import numpy as np
import pandas as pd
import pytest
import yaml
from _mirror import ROOT
from _workflow import SMOKE_CONFIG, run_snakemake

from fmeasure.experiments.report import write_report
from fmeasure.experiments.scaling import LEARNERS, RESOURCE_JOB, cells, curve_points, exponents, run_cell, write_scaling

TINY = yaml.safe_load((ROOT / "tests" / "configs" / "scaling.yaml").read_text())["scaling"]


def test_scaling_cells_cover_both_grids_once():
    # n grid at m = 4: (60, 4), (120, 4); m grid at n = 60: (60, 4) again, (60, 8)
    got = cells({**TINY, "learners": ["BR"]})
    assert got == [("BR", 60, 4), ("BR", 120, 4), ("BR", 60, 8)]


@pytest.mark.parametrize("learner", LEARNERS)
def test_every_learner_of_the_benchmark_fits_and_predicts_a_cell(learner):
    row = run_cell(learner, 60, 4, TINY)
    assert row["status"] == "ok" and row["learner"] == learner and (row["n"], row["m"]) == (60, 4)
    assert row["fit_s"] > 0 and row["predict_s"] > 0 and row["cpu_s"] > 0 and row["peak_rss_mb"] > 10


def test_scaling_cell_over_its_time_limit_is_recorded_as_timeout():
    row = run_cell("PCC", 120, 6, {**TINY, "timeout_s": 1e-4})
    assert row["status"] == "timeout" and np.isnan(row["predict_s"])


def test_scaling_exponents_recover_known_powers():
    n, m = np.array([1000, 2000, 4000, 8000]), np.array([5, 20, 40, 80])
    rows = [{"learner": "a", "n": k, "m": 10, "fit_s": 1e-6 * k**2, "predict_s": 0.0, "status": "ok"} for k in n]
    rows += [{"learner": "a", "n": 500, "m": k, "fit_s": 1e-3 * k, "predict_s": 0.0, "status": "ok"} for k in m]
    rows += [{"learner": "a", "n": 16000, "m": 10, "fit_s": np.nan, "predict_s": np.nan, "status": "timeout"}]
    got = exponents(pd.DataFrame(rows), m_at_n=10, n_at_m=500).set_index("learner")
    assert abs(got.loc["a", "exponent_n"] - 2) < 1e-9 and abs(got.loc["a", "exponent_m"] - 1) < 1e-9


def test_every_learner_is_sized_by_a_job_of_the_resource_formulas():
    from fmeasure.experiments.resources import STAGES, job_resources

    assert set(RESOURCE_JOB) == set(LEARNERS) and set(RESOURCE_JOB.values()) <= set(STAGES)
    # At EUR-Lex's label count the cells fit a 16 GB machine (the foptimal forest's formula would not).
    counts = {"n_train": 4000, "n_test": 2000, "d": 120, "m": 3993}
    assert max(job_resources(RESOURCE_JOB[lrn], counts, 1)["mem_mb"] for lrn in LEARNERS) < 16000
    assert job_resources("foptimal_run", counts, 1)["mem_mb"] > 16000


def test_scaling_curve_points_put_a_cell_over_the_limit_at_the_limit(tmp_path):
    rows = [
        {"learner": "a", "n": 100, "m": 5, "fit_s": 1.0, "predict_s": 0.5, "status": "ok"},
        {"learner": "a", "n": 100, "m": 50, "fit_s": 3.0, "predict_s": 1.0, "status": "ok"},
        {"learner": "a", "n": 100, "m": 500, "fit_s": np.nan, "predict_s": np.nan, "status": "timeout"},
        {"learner": "b", "n": 100, "m": 500, "fit_s": np.nan, "predict_s": np.nan, "status": "timeout"},
        {"learner": "a", "n": 200, "m": 5, "fit_s": 9.0, "predict_s": 0.0, "status": "ok"},
    ]
    table = pd.DataFrame(rows)
    done, over = curve_points(table, "a", "m", "n", 100, timeout_s=60)
    assert done["m"].tolist() == [5, 50] and done["total_s"].tolist() == [1.5, 4.0]
    assert over["m"].tolist() == [500] and over["total_s"].tolist() == [60.0]
    done, over = curve_points(table, "b", "m", "n", 100, timeout_s=60)
    assert done.empty and over["m"].tolist() == [500]
    # the figure is drawn with a learner that never finished (no exponent) beside one that did
    cfg = {"m_at_n": 5, "n_at_m": 100, "n_test": 10, "d": 3, "timeout_s": 60}
    table = table.assign(d=3, cpu_s=1.0, peak_rss_mb=10.0)
    write_scaling(table.to_dict("records"), cfg, tmp_path / "s.csv", tmp_path / "s.md", tmp_path / "s.png")
    assert (tmp_path / "s.png").stat().st_size > 0 and (tmp_path / "s.pdf").stat().st_size > 0


@pytest.mark.e2e  # runs the Snakemake engine
def test_scaling_target_end_to_end_with_snakemake(tmp_path):
    run_snakemake(tmp_path, "scaling", configs=(SMOKE_CONFIG, ROOT / "tests" / "configs" / "scaling.yaml"))
    table = pd.read_csv(tmp_path / "results" / "tables" / "scaling.csv")
    assert list(table.columns[:8]) == ["learner", "n", "m", "d", "fit_s", "predict_s", "cpu_s", "peak_rss_mb"]
    assert sorted(set(table.learner)) == sorted(TINY["learners"])
    assert len(table) == len(cells(TINY)) and (table.status == "ok").all()
    assert (table.fit_s > 0).all() and (table.peak_rss_mb > 10).all()
    # One job (and one benchmark file) per cell.
    assert len(list((tmp_path / "results" / "benchmarks" / "scaling").glob("*.tsv"))) == len(table)
    assert (tmp_path / "results" / "figures" / "scaling.png").stat().st_size > 0
    # The report shows the section when the table exists.
    report = tmp_path / "results" / "report.md"
    write_report({}, report, title="t", tables_dir=tmp_path / "results" / "tables")
    text = report.read_text()
    assert "## How the learners' cost grows" in text and "scaling.png" in text
