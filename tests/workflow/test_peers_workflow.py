"""The peers stage through the real Snakemake engine on the small datasets of tests/data (the smoke
configuration's `peers` block: three datasets, two seeds and the deterministic systems on the first
alone, a peer whose environment is refused, one dataset under the large datasets' protocol and the
check that reruns the others under it), then the report picks its section up. The table's numbers
are recomputed here from the per-instance files, and the ranks from the table."""

import json

import numpy as np
import pandas as pd
import pytest
from _workflow import run_snakemake
from scipy.stats import friedmanchisquare

from fmeasure.experiments.peers import TABLE_COLUMNS

pytestmark = pytest.mark.e2e  # runs the Snakemake engine

DATASETS = ["scene-small", "flags", "genbase-small"]
SEEDS = [1, 2]
# stochastic: false in the registry: the first seed alone
DETERMINISTIC = {"mlknn", "sklearn_br", "efp", "lfp"}
REFERENCE = "fopt_extratrees"
LARGE = "genbase-small"  # 1,620 training cells >= peers.large.cells: 2 folds, the first seed


def _instances(workdir, dataset, method, setting, variant="peers"):
    """Per-instance F of one row: (n_test, n_seeds)."""
    folder = workdir / "results" / variant / dataset
    seeds = SEEDS[:1] if method in DETERMINISTIC or dataset == LARGE or variant == "peers_check" else SEEDS
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
    assert set(table.method) == {"ewf1", "mlknn", "sklearn_br", "fopt_extratrees", "efp", "lfp"}
    assert set(table[table.method == "efp"].setting) == {"tuned"}  # it tunes itself: one setting
    # every run record carries the protocol's hash and the declared reference, and its dataset's tuning
    records = [json.loads(p.read_text()) for p in (tmp_path / "results" / "peers").glob("*/*_seed*.json")]
    assert len({r["protocol"] for r in records}) == 1 and {r["reference"] for r in records} == {REFERENCE}
    assert {r["tuning"]["name"] for r in records if r["dataset"] == LARGE} == {"large"}
    assert {r["tuning"]["cv"] for r in records if r["dataset"] != LARGE} == {3}
    # the peer whose Python cannot be found: marked not run on every dataset, the rest of the table made
    ewf1 = table[table.method == "ewf1"]
    assert len(ewf1) == 6 and ewf1.status.str.startswith("not run: peer ewf1: needs Python 3.99").all()
    assert ewf1.f.isna().all() and (ewf1.vs_reference == "not run").all()
    ran = table[table.status == "ran"]
    assert len(ran) == 3 * 8  # the reference, efp, lfp, and mlknn, sklearn_br and fopt_extratrees default
    n_seeds = np.where(ran.method.isin(DETERMINISTIC) | (ran.dataset == LARGE), 1, len(SEEDS))
    assert (ran.n_seeds == n_seeds).all()
    assert not list((tmp_path / "results" / "peers" / DATASETS[0]).glob("mlknn_*_seed2*"))
    # every number of a row from its per-instance files: the mean over instances and seeds, the
    # difference to the reference and its SE over instances and seeds
    for r in ran.itertuples():
        S = _instances(tmp_path, r.dataset, r.method, r.setting)
        R = _instances(tmp_path, r.dataset, REFERENCE, "tuned")
        D = S - R
        se = np.sqrt(
            D.mean(axis=1).var(ddof=1) / len(D) + (D.mean(axis=0).var(ddof=1) / D.shape[1] if D.shape[1] > 1 else 0)
        )
        assert r.f == pytest.approx(S.mean()) and r.diff_to_reference == pytest.approx(D.mean(), abs=1e-9)
        assert r.diff_se == pytest.approx(se, abs=1e-9), (r.dataset, r.method)
        fam = r.family
        assert fam == (
            "reference"
            if r.reference
            else "default settings"
            if r.setting == "default"
            else "ours"
            if r.method in ("efp", "lfp")
            else "peers: baselines"
        ), (r.method, fam)
    # the ranks: each dataset ranks the systems' tuned rows by F; the Friedman statistic from scipy
    ranks = pd.read_csv(tmp_path / "results" / "tables" / "peers_ranks.csv")
    peers_rank = ranks[ranks.ranking == "peers"].set_index("method")
    t = ran[ran.setting == "tuned"]
    f = t[t.method.isin(["fopt_extratrees", "mlknn", "sklearn_br"])].pivot_table(
        index="dataset", columns="method", values="f"
    )
    mean_rank = f.rank(axis=1, ascending=False).mean()
    assert peers_rank.loc[mean_rank.index, "mean_rank"].to_numpy() == pytest.approx(mean_rank.to_numpy())
    assert peers_rank.friedman_chi2.iloc[0] == pytest.approx(friedmanchisquare(*f.to_numpy().T).statistic)
    assert peers_rank.loc["ewf1", "vs_reference"] == "not ranked: not run on any dataset"
    assert set(ranks[ranks.ranking == "ours"].method) == {"fopt_extratrees", "efp", "lfp"}
    # the check of the cheaper protocol: the two datasets of the full protocol, rerun under it
    check = pd.read_csv(tmp_path / "results" / "tables" / "peers_protocol_check.csv")
    assert set(check.dataset) == {"scene-small", "flags", "mean"}
    assert "the cheaper protocol" in (tmp_path / "results" / "tables" / "peers_protocol_check.md").read_text()
    cheap = json.loads(
        (tmp_path / "results" / "peers_check" / "flags" / "fopt_extratrees_tuned_seed1.json").read_text()
    )
    assert cheap["tuning"]["name"] == "large (check)" and cheap["tuning"]["cv"] == 2
    findings = pd.read_csv(tmp_path / "results" / "findings" / "peers.csv")
    assert findings.claim_id.tolist() == ["peers.reference", "peers.ranks"]
    for name in ("peers.png", "peers_cd.png", "peers_cd_ours.png"):
        assert (tmp_path / "results" / "figures" / name).stat().st_size > 10_000, name
    assert "Our other routes against the reference" in (tmp_path / "results" / "tables" / "peers_ours.md").read_text()
    # the default target: the report shows the peers section now that its outputs exist
    run_snakemake(tmp_path, "--quiet", "progress", "--config", "stages=data", timeout=900)
    report = (tmp_path / "results" / "report.md").read_text()
    assert "## Public F-maximizers beside ours" in report and "peers_cd.png" in report
    assert "Peers by dataset" in report and "Friedman chi2 =" in report
    collected = pd.read_csv(tmp_path / "results" / "findings.csv")
    assert {"peers.reference", "peers.ranks"} <= set(collected.claim_id)

    # a run record of another protocol in the results folder: the table's job stops, naming it
    rec = tmp_path / "results" / "peers" / "flags" / "mlknn_tuned_seed1.json"
    rec.write_text(json.dumps(json.loads(rec.read_text()) | {"protocol": "0" * 16}))
    out = run_snakemake(
        tmp_path,
        "results/tables/peers.csv",
        "--forcerun",
        "peers_table",
        "--config",
        "stages=data",
        timeout=600,
        check=False,
    )
    assert out.returncode != 0
    log = (tmp_path / "logs" / "peers" / "table.log").read_text()
    assert (
        "were made under another protocol: the first, flags mlknn tuned seed 1, has protocol 0000" in log + out.stderr
    )
