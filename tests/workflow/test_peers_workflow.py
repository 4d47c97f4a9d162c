"""The peers stage through the real Snakemake engine on the small datasets of tests/data (the smoke
configuration's `peers` block: three datasets, two seeds and a deterministic system on the first alone,
a peer whose environment is refused), then
the report picks its section up. The table's numbers are recomputed here from the per-instance
files, and the ranks from the table."""

import numpy as np
import pandas as pd
import pytest
from _workflow import run_snakemake
from scipy.stats import friedmanchisquare

from fmeasure.experiments.peers import TABLE_COLUMNS

pytestmark = pytest.mark.e2e  # runs the Snakemake engine

DATASETS = ["scene-small", "flags", "genbase-small"]
SEEDS = [1, 2]
# stochastic: false in config.yaml (smoke.yaml is merged on top of it): the first seed alone
DETERMINISTIC = {"mlknn", "sklearn_br", "efp"}
REFERENCE = "fopt_extratrees"


def _instances(workdir, dataset, method, setting):
    """Per-instance F of one row: (n_test, n_seeds)."""
    folder = workdir / "results" / "peers" / dataset
    seeds = SEEDS[:1] if method in DETERMINISTIC else SEEDS
    cols = [
        pd.read_csv(folder / f"{method}_{setting}_seed{s}_instances.csv.gz").sort_values("instance").f for s in seeds
    ]
    return np.column_stack([c.to_numpy(float) for c in cols])


def test_peers_stage_on_small_data_then_in_the_report(tmp_path):
    run_snakemake(tmp_path, "peers_all", "--quiet", "progress", "--config", "stages=data", timeout=1800)
    table = pd.read_csv(tmp_path / "results" / "tables" / "peers.csv")
    assert table.columns.tolist() == TABLE_COLUMNS
    # the declared reference has one row per dataset, and nothing else is a reference
    ref = table[table.reference]
    assert ref.method.unique().tolist() == [REFERENCE] and sorted(ref.dataset) == sorted(DATASETS)
    assert set(table.method) == {"ewf1", "mlknn", "sklearn_br", "fopt_extratrees", "efp"}
    assert set(table[table.method == "efp"].setting) == {"tuned"}  # it tunes itself: one setting
    # the peer whose Python cannot be found: marked not run on every dataset, the rest of the table made
    ewf1 = table[table.method == "ewf1"]
    assert len(ewf1) == 6 and ewf1.status.str.startswith("not run: peer ewf1: needs Python 3.99").all()
    assert ewf1.f.isna().all() and (ewf1.vs_reference == "not run").all()
    ran = table[table.status == "ran"]
    assert len(ran) == 3 * 7 and (ran.n_seeds == np.where(ran.method.isin(DETERMINISTIC), 1, len(SEEDS))).all()
    assert not list((tmp_path / "results" / "peers" / DATASETS[0]).glob("mlknn_*_seed2*"))
    # every number of a row from its per-instance files: the mean over seeds, their SD, the SE over
    # instances, and the difference to the reference with the plug-in SE of a paired mean difference
    for r in ran.itertuples():
        S = _instances(tmp_path, r.dataset, r.method, r.setting)
        R = _instances(tmp_path, r.dataset, REFERENCE, "tuned")
        x, d = S.mean(axis=1), S.mean(axis=1) - R.mean(axis=1)
        sd = S.mean(axis=0).std(ddof=1) if S.shape[1] > 1 else np.nan
        assert r.f == pytest.approx(S.mean()) and r.f_sd == pytest.approx(sd, abs=1e-9, nan_ok=True)
        assert r.se == pytest.approx(x.std(ddof=1) / np.sqrt(len(x)))
        assert r.diff_to_reference == pytest.approx(d.mean(), abs=1e-9)
        assert r.diff_se == pytest.approx(d.std() / np.sqrt(len(d)), rel=0.15, abs=1e-9), (r.dataset, r.method)
    # the ranks: each dataset ranks the systems' tuned rows by F; the Friedman statistic from scipy
    ranks = pd.read_csv(tmp_path / "results" / "tables" / "peers_ranks.csv").set_index("method")
    f = ran[ran.setting == "tuned"].pivot_table(index="dataset", columns="method", values="f")
    mean_rank = f.rank(axis=1, ascending=False).mean()
    assert ranks.loc[mean_rank.index, "mean_rank"].to_numpy() == pytest.approx(mean_rank.to_numpy())
    assert ranks.friedman_chi2.iloc[0] == pytest.approx(friedmanchisquare(*f.to_numpy().T).statistic)
    assert ranks.loc["ewf1", "vs_reference"] == "not ranked: not run on any dataset"
    findings = pd.read_csv(tmp_path / "results" / "findings" / "peers.csv")
    assert findings.claim_id.tolist() == ["peers.reference", "peers.ranks"]
    for name in ("peers.png", "peers_cd.png"):
        assert (tmp_path / "results" / "figures" / name).stat().st_size > 10_000, name
    # the default target: the report shows the peers section now that its outputs exist
    run_snakemake(tmp_path, "--quiet", "progress", "--config", "stages=data", timeout=900)
    report = (tmp_path / "results" / "report.md").read_text()
    assert "## Public F-maximizers beside ours" in report and "peers_cd.png" in report
    assert "Peers by dataset" in report and "Friedman chi2 =" in report
    collected = pd.read_csv(tmp_path / "results" / "findings.csv")
    assert {"peers.reference", "peers.ranks"} <= set(collected.claim_id)
