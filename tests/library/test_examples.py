"""Every example of the gallery (examples/plot_*.py) runs on small data and writes one figure.

Each script runs as a subprocess with FMEASURE_EXAMPLES_SMALL=1 and FMEASURE_EXAMPLES_OUT set to
an empty folder, as a user would run it; a new example is picked up by its file name. An example
that loads a MULAN dataset finds it in tests/data (added to FMEASURE_DATA_MIRROR, as the
documentation build does) and caches it in a data folder of its own: no network, nothing written
to the home folder.
"""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEST_DATA = ROOT / "tests" / "data"
EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))
FIGURE_SUFFIXES = {".png", ".pdf", ".svg", ".jpg"}


def test_the_gallery_is_found():
    # the glob must find the gallery, or every test below would pass vacuously
    names = {p.name for p in EXAMPLES}
    assert {"plot_dependent_labels.py", "plot_number_of_samples.py", "plot_command_line.py"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_and_writes_one_figure(path, tmp_path, tmp_path_factory):
    out = tmp_path / "out"
    out.mkdir()
    env = dict(os.environ, FMEASURE_EXAMPLES_SMALL="1", FMEASURE_EXAMPLES_OUT=str(out), MPLBACKEND="Agg")
    env["FMEASURE_DATA_MIRROR"] = os.pathsep.join(filter(None, [env.get("FMEASURE_DATA_MIRROR"), str(TEST_DATA)]))
    env["SCIKIT_LEARN_DATA"] = str(tmp_path_factory.mktemp("scikit_learn_data"))
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, str(path)], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    written = sorted(p.name for p in out.iterdir())
    assert len(written) == 1 and Path(written[0]).suffix in FIGURE_SUFFIXES, written
    assert (out / written[0]).stat().st_size > 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # nothing left in the working folder


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_has_a_title_and_is_listed(path):
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc, f"{path.name}: no module docstring"
    title = doc.strip().splitlines()[0].strip()
    assert title and not set(title) <= set("=-"), f"{path.name}: the docstring's first line is not a title"
    assert path.name in (ROOT / "examples" / "README.txt").read_text(), f"{path.name} is not listed in README.txt"
