"""The cost table: benchmark files summed per dataset and stage, by hand-computed values."""

import pytest

from fmeasure.experiments.costs import MARKERS, markers, read_benchmarks, render_costs, run_costs, write_readme_costs

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _bench(path, s, rss, cpu):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{s}\t0:00:00\t{rss}\t1\t1\t1\t0\t0\t50\t{cpu}\n")


@pytest.fixture
def bench(tmp_path):
    root = tmp_path / "benchmarks"
    _bench(root / "knn" / "run_yeast.tsv", 10.0, 300.0, 18.0)
    _bench(root / "knn" / "run_yeast-libsvm.tsv", 5.0, 200.0, 4.0)
    _bench(root / "parametric" / "yeast_efp.tsv", 30.0, 900.0, 50.0)
    _bench(root / "parametric" / "yeast_br.tsv", 6.0, 500.0, 7.0)
    _bench(root / "trees" / "run_scene" / "bag.tsv", 60.0, 1200.0, 110.0)
    _bench(root / "theory" / "lp_threshold.tsv", 100.0, 150.0, 99.0)
    return root


def test_costs_jobs_assigned_to_whole_dataset_names(bench):
    jobs = read_benchmarks(bench, ["scene", "yeast", "yeast-libsvm"]).set_index("job")
    assert jobs.at["knn/run_yeast", "dataset"] == "yeast"
    assert jobs.at["knn/run_yeast-libsvm", "dataset"] == "yeast-libsvm"  # not yeast
    assert jobs.at["trees/run_scene/bag", "dataset"] == "scene"
    assert jobs.at["theory/lp_threshold", "dataset"] == "(all)"


def test_costs_sums_and_peaks_by_hand(bench):
    costs = run_costs(bench, ["scene", "yeast"]).set_index(["dataset", "stage"])
    assert costs.at[("yeast", "parametric"), "wall_s"] == 36.0
    assert costs.at[("yeast", "parametric"), "cpu_s"] == 57.0
    assert costs.at[("yeast", "parametric"), "max_rss_mb"] == 900.0
    # yeast-libsvm is not selected, and "yeast" is not a component of its path: counted under (all)
    assert costs.at[("yeast", "total"), "wall_s"] == 46.0
    assert costs.at[("yeast", "total"), "jobs"] == 3
    assert costs.at[("(all)", "total"), "wall_s"] == 105.0
    assert list(dict.fromkeys(costs.index.get_level_values(0))) == ["scene", "yeast", "(all)"]


def test_costs_rendered_and_written_between_markers(bench, tmp_path):
    table = render_costs(run_costs(bench, ["scene", "yeast"]))
    row = next(line for line in table.splitlines() if line.startswith("| yeast "))
    # knn 10 s, parametric 36 s: 46 s wall; CPU 18 + 57 = 75 s; peak 900 MB
    assert row.split(" | ")[1:] == ["0.2", "0.6", "-", "-", "0.8", "1.2", "0.88 |"]
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{MARKERS[0]}\nold\n{MARKERS[1]}\nrest\n")
    write_readme_costs(readme, table)
    text = readme.read_text()
    assert "old" not in text and row in text and text.startswith("intro\n") and text.endswith("rest\n")
    # a second, named block is filled on its own; the first one is left as it is
    other = markers("costs-other")
    readme.write_text(f"{MARKERS[0]}\nkeep\n{MARKERS[1]}\n{other[0]}\nold\n{other[1]}\n")
    write_readme_costs(readme, table, block="costs-other")
    text = readme.read_text()
    assert "keep" in text and "old" not in text and text.index(row) > text.index(other[0])


def test_costs_errors_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no benchmark folder"):
        run_costs(tmp_path / "nowhere", ["scene"])
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.tsv").write_text("a\tb\n1\t2\n")
    with pytest.raises(ValueError, match=r"x\.tsv: not a Snakemake benchmark file"):
        run_costs(tmp_path / "b", ["scene"])
    readme = tmp_path / "R.md"
    readme.write_text("no markers\n")
    with pytest.raises(ValueError, match="R.md: needs the lines"):
        write_readme_costs(readme, "t")
