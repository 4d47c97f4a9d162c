"""The scaling benchmark: one timed job per (learner, shape), a timeout recorded as such, exponents."""

import numpy as np
import pandas as pd
import pytest
import yaml
from _mirror import ROOT
from _workflow import SMOKE_CONFIG, run_snakemake

from fmeasure.experiments.report import write_report
from fmeasure.experiments.scaling import LEARNERS, cells, exponents, run_cell

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
