"""Job resources sized from the data: never below a measured peak, growing with size and retries."""

import csv
import math
import re
import subprocess
import sys

import pytest
import yaml
from _mirror import ROOT, TEST_DATA, snakemake_env

from fmeasure import datasets as D
from fmeasure.experiments.config import with_catalog
from fmeasure.experiments.resources import STAGES, dataset_counts, job_resources

CONFIG = with_catalog(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))
PEAKS = list(csv.DictReader((TEST_DATA / "resource_peaks.csv").open()))
MEDIAMILL = {"n_train": 30993, "n_test": 12914, "d": 120, "m": 101}


def test_resource_peaks_table_has_its_columns_and_known_rules():
    assert PEAKS, "tests/data/resource_peaks.csv has no rows"
    for row in PEAKS:
        assert set(row) == {"rule", "dataset", "max_rss_mb", "runtime_s", "source"}
        assert row["rule"] in STAGES, row["rule"]
        assert row["dataset"] in CONFIG["catalog"], row["dataset"]
        assert row["source"].strip(), row


@pytest.mark.parametrize("row", PEAKS, ids=[f"{r['rule']}-{r['dataset']}" for r in PEAKS])
def test_formula_is_at_least_the_measured_peak(row, tmp_path):
    """Each measured job (max RSS, wall seconds) fits in what its formula asks on the first attempt."""
    config = {**CONFIG, "data": {"dir": str(tmp_path)}}  # no sidecar: the catalog's counts
    got = job_resources(row["rule"], dataset_counts(config, row["dataset"]), 1, CONFIG)
    assert got["mem_mb"] >= float(row["max_rss_mb"]), (row, got)
    assert got["runtime"] * 60 >= float(row["runtime_s"]), (row, got)


@pytest.mark.parametrize("rule", sorted(STAGES))
def test_resources_grow_with_every_count_and_with_each_attempt(rule):
    base = job_resources(rule, MEDIAMILL)
    for key in MEDIAMILL:
        bigger = job_resources(rule, {**MEDIAMILL, key: 4 * MEDIAMILL[key]})
        assert bigger["mem_mb"] >= base["mem_mb"] and bigger["runtime"] >= base["runtime"], key
    assert job_resources(rule, {**MEDIAMILL, "n_train": 4 * MEDIAMILL["n_train"]})["mem_mb"] > base["mem_mb"]
    second = job_resources(rule, MEDIAMILL, attempt=2)
    assert second["mem_mb"] > base["mem_mb"] and second["runtime"] > base["runtime"]
    tiny = job_resources(rule, {"n_train": 100, "n_test": 50, "d": 10, "m": 5})
    assert tiny["mem_mb"] < base["mem_mb"] and tiny["threads"] == 1


def test_config_numbers_override_the_formula_and_threads_cap():
    config = {"knn": {"mem_mb": 123, "runtime_min": 7, "threads": 3}}
    got = job_resources("knn_run", MEDIAMILL, 1, config)
    assert got == {"mem_mb": 123, "runtime": 7, "threads": 3}
    assert job_resources("knn_run", MEDIAMILL, 3, config)["mem_mb"] == round(123 * 1.5**2 + 0.5)


def test_forest_mem_mb_caps_the_forest_term_of_the_foptimal_job():
    """delicious' forest term (2500 MB per million training label cells, 12.7 million) is replaced by
    the budget the job holds its forest under; without a budget the formula stands."""
    counts = {"n_train": 12920, "n_test": 3185, "d": 500, "m": 983}
    cells = (12920 + 3185) * (500 + 983) / 1e6
    capped = job_resources("foptimal_run", counts, 1, {"foptimal": {"forest_mem_mb": 6000}})
    assert capped["mem_mb"] == math.ceil(1000 + 100 * cells + 6000)
    free = job_resources("foptimal_run", counts, 1, {"foptimal": {"forest_mem_mb": None}})
    assert free["mem_mb"] == math.ceil(1000 + 100 * cells + 2500 * 12920 * 983 / 1e6)
    # a budget larger than the formula's term changes nothing
    assert job_resources("foptimal_run", MEDIAMILL, 1, {"foptimal": {"forest_mem_mb": 1e6}}) == job_resources(
        "foptimal_run", MEDIAMILL
    )


def test_counts_come_from_the_sidecar_when_it_exists(tmp_path):
    config = {**CONFIG, "data": {"dir": str(tmp_path)}}
    assert dataset_counts(config, "scene") == {"n_train": 1211, "n_test": 1196, "m": 6, "d": 294}
    assert dataset_counts(config, "mediamill-shape") == MEDIAMILL
    ds = D.Dataset("scene", *(None,) * 4)
    import numpy as np

    ds.X_train, ds.X_test = np.zeros((10, 3)), np.zeros((4, 3))
    ds.Y_train, ds.Y_test = np.zeros((10, 2), np.int8), np.zeros((4, 2), np.int8)
    D.write_counts(ds, tmp_path / "parsed" / "scene.json")
    assert {k: v for k, v in dataset_counts(config, "scene").items() if k in MEDIAMILL} == {
        "n_train": 10,
        "n_test": 4,
        "d": 3,
        "m": 2,
    }


def _dry_run(tmp_path, stages, *options):
    """The text of a dry run of the workflow on mediamill-shape (the real engine)."""
    out = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", *options, "--snakefile", str(ROOT / "Snakefile")]
        + ["--directory", str(tmp_path), "--configfile", str(ROOT / "config" / "config.yaml")]
        + ["--config", "datasets=mediamill-shape", f"stages={stages}"],
        capture_output=True,
        text=True,
        timeout=300,
        env=snakemake_env(),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout + out.stderr


def _rule_block(text, rule):
    """The dry run's block of the first job of ``rule``."""
    block = text[text.index(f"rule {rule}:") :]
    return block[: block.index("\n\n") if "\n\n" in block else len(block)]


@pytest.mark.e2e  # runs the Snakemake engine
def test_workflow_asks_the_formula_for_a_mediamill_sized_job(tmp_path):
    """The rules' resources come from the get_* callables of common.smk (dry run, real engine)."""
    text = _dry_run(tmp_path, "data,knn")
    for rule in ("parse_dataset", "knn_run"):
        block = _rule_block(text, rule)
        want = job_resources(rule, MEDIAMILL, 1, CONFIG)
        assert re.search(rf"\bmem_mb={want['mem_mb']}\b", block), block
        assert re.search(rf"\bruntime={want['runtime']}\b", block), block


def test_rml_request_counts_the_cutting_planes_only_under_that_solver():
    """The planes' term ((d + 1) m weights each) is in RML's request when its solver is the
    cutting-plane method (delicious' too: its overrides leave RML alone), not under bcfw."""
    from fmeasure.experiments.config import dataset_view

    enron = {"n_train": 1123, "n_test": 579, "d": 1001, "m": 53}
    cells, labels = (1123 + 579) * (1001 + 53) / 1e6, 579 * 53 / 1e6
    bcfw = job_resources("structured_rml", enron, 1, {"structured": {"solver": "bcfw"}})["mem_mb"]
    assert bcfw == math.ceil(800 + 120 * cells + 200 * labels)  # by hand: 1,022 MB
    planes = job_resources("structured_rml", enron, 1, {"structured": {"solver": "cutting_plane"}})["mem_mb"]
    assert planes == math.ceil(800 + 120 * cells + 200 * labels + 24000 * 1002 * 53 / 1e6)
    assert job_resources("structured_rml", enron, 1)["mem_mb"] == bcfw  # no solver named: the estimator's bcfw
    assert CONFIG["structured"]["solver"] == "cutting_plane"
    delicious = dataset_counts({**CONFIG, "data": {"dir": "/nonexistent"}}, "delicious")
    view = dataset_view(CONFIG, "delicious")
    assert view["structured"]["solver"] == "cutting_plane"
    as_bcfw = {**view, "structured": {**view["structured"], "solver": "bcfw"}}
    request = job_resources("structured_rml", delicious, 1, view)["mem_mb"]
    weights = (delicious["d"] + 1) * delicious["m"] / 1e6  # 492,483: by hand, 11,820 MB of planes
    assert delicious["d"] == 500 and delicious["m"] == 983
    assert abs(request - job_resources("structured_rml", delicious, 1, as_bcfw)["mem_mb"] - 24000 * weights) <= 1


def test_a_job_gets_at_most_half_the_cores_of_a_run_on_one_machine():
    config = {"pcc": {"threads": 3}}
    got = [job_resources("pcc_fit", MEDIAMILL, 1, config, cores=k)["threads"] for k in (None, 1, 2, 4, 6, 16)]
    assert got == [3, 1, 1, 2, 3, 3]
    tiny = {"n_train": 100, "n_test": 50, "d": 5, "m": 4}
    assert job_resources("pcc_fit", tiny, 1, config, cores=16)["threads"] == 1


@pytest.mark.e2e  # runs the Snakemake engine
@pytest.mark.parametrize("cores, threads", [(2, 1), (8, 2)])
def test_the_workflow_halves_the_threads_of_a_local_run_on_two_cores(tmp_path, cores, threads):
    """Dry run, real engine: pcc.threads is 2; on 2 cores the fit job asks for 1, on 8 for 2."""
    block = _rule_block(_dry_run(tmp_path, "data,pcc", "--cores", str(cores)), "pcc_fit")
    assert re.search(r"\bthreads: (\d+)", block) is None if threads == 1 else f"threads: {threads}" in block, block
