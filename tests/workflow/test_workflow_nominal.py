"""flags and genbase (nominal features, an identifier attribute) through every dataset stage.

The real Snakemake engine runs tests/configs/nominal.yaml (on top of the smoke configuration) on
the files shipped in tests/data: Table 1, kNN (Tables 2-3), PCC (Table 4, Figure 5) and the
parametric learners (Table 5) must all be built for both datasets.
"""

import pandas as pd
import pytest
from _mirror import ROOT
from _workflow import SMOKE_CONFIG, run_snakemake

pytestmark = pytest.mark.e2e  # runs the Snakemake engine


def test_flags_and_genbase_run_through_every_dataset_stage(tmp_path):
    nominal = ROOT / "tests" / "configs" / "nominal.yaml"
    run_snakemake(tmp_path, "--quiet", "progress", configs=(SMOKE_CONFIG, nominal), timeout=1800)
    tables = tmp_path / "results" / "tables"
    t1 = pd.read_csv(tables / "table1.csv").set_index("dataset")
    # d counts the file's feature attributes (as MULAN); columns the encoded ones: flags 15 kept +
    # 6 + 4 + 10 + 8 one-hot; genbase 1185 {YES,NO} columns, the protein identifier dropped.
    assert t1.loc["flags", ["n_train", "n_test", "m", "d", "columns"]].tolist() == [129, 65, 7, 19, 43]
    assert t1.loc["genbase-small", ["n_train", "n_test", "m", "d", "columns"]].tolist() == [60, 30, 27, 1186, 1185]
    log = (tmp_path / "logs" / "data" / "parse_genbase-small.log").read_text()
    assert "dropped 1 identifier attribute(s) (a category per instance): ['protein']" in log
    flags_log = (tmp_path / "logs" / "data" / "parse_flags.log").read_text()
    assert flags_log.count("one-hot encoded") == 1
    for name in ("table2.csv", "table4.csv", "table5.csv"):
        df = pd.read_csv(tables / name)
        assert {"flags", "genbase-small"} <= set(df["dataset"]), name
