"""The wheel works installed, outside the repository.

``python -m build`` makes the sdist and the wheel from a copy of the checkout's files (tracked, and
new files not ignored); the wheel is installed into a new virtual environment (no system site
packages) in a temporary folder, and everything below runs there, from a folder outside the
repository, with no PYTHONPATH: ``import fmeasure`` comes from the environment's site-packages;
the README's ``FOptimalClassifier`` quick start prints what the README says; the ``fmeasure``
command predicts from a CSV file and prints its version; an F-measure tree compiles its numba
kernels on first use and caches them in the installed package.

Marked ``wheel``: it runs only when asked for (``pytest -n 0 -m wheel``). Installing the
dependencies takes most of its time; it needs the package index, or pip's cache holding them.
"""

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import fmeasure

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.wheel


def _checkout_files():
    r = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, f"git ls-files failed: {r.stderr}"
    return [f for f in r.stdout.split("\0") if f and (ROOT / f).is_file()]


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The folder holding the sdist and the wheel."""
    try:
        import build  # noqa: F401
    except ImportError:
        pytest.fail("the build package is not installed: pip install -e '.[test]'")
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    for f in _checkout_files():
        (src / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, src / f)
    out = tmp / "dist"
    r = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(src)], capture_output=True, text=True)
    assert r.returncode == 0, f"python -m build failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return out


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory):
    """A new virtual environment with the wheel installed: (its python, its bin folder, a work
    folder outside the repository, the environment variables to run in)."""
    home = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(home / "env")], check=True)
    bindir = home / "env" / "bin"
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "NUMBA_CACHE_DIR")
    }
    env["PATH"] = os.pathsep.join([str(bindir), env.get("PATH", "")])
    env["MPLBACKEND"] = "Agg"
    (wheel,) = dist.glob("fmeasure-*.whl")
    r = subprocess.run(
        [str(bindir / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q", str(wheel)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0, f"pip install of the wheel failed:\n{r.stderr[-3000:]}"
    work = home / "work"
    work.mkdir()
    assert ROOT not in work.resolve().parents
    return bindir / "python", bindir, work, env


def _run(venv, *args, **kw):
    python, bindir, work, env = venv
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=work, env=env, timeout=600, **kw)


def test_the_distributions_carry_the_package_data_and_the_command(dist):
    (wheel,) = dist.glob("fmeasure-*.whl")
    (sdist,) = dist.glob("fmeasure-*.tar.gz")
    version = fmeasure.__version__
    assert wheel.name.startswith(f"fmeasure-{version}-") and sdist.name == f"fmeasure-{version}.tar.gz"
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {Path(n).name for n in names if n.startswith("fmeasure/paper_numbers/")}
    assert shipped == {p.name for p in (ROOT / "src" / "fmeasure" / "paper_numbers").glob("*.csv")}
    info = f"fmeasure-{version}.dist-info"
    entry_points = zipfile.ZipFile(wheel).read(f"{info}/entry_points.txt").decode()
    assert re.search(r"^fmeasure = fmeasure\.cli:main$", entry_points, re.M)
    assert f"{info}/licenses/LICENSE" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith((".nbi", ".nbc"))]


def test_import_comes_from_the_environment_not_the_checkout(venv):
    python, bindir, work, env = venv
    r = _run(
        venv,
        python,
        "-c",
        "import fmeasure, importlib.metadata as m; print(fmeasure.__file__); print(m.version('fmeasure'))",
    )
    assert r.returncode == 0, r.stderr
    path, version = r.stdout.split()
    assert Path(path).is_relative_to(bindir.parent) and "site-packages" in Path(path).parts
    assert version == fmeasure.__version__


def test_the_readme_quick_start_prints_what_the_readme_says(venv):
    python, *_ = venv
    text = (ROOT / "README.md").read_text().split("## Use it as a library", 1)[1]
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert "FOptimalClassifier" in code
    r = _run(venv, python, "-c", code)
    assert r.returncode == 0, r.stderr[-3000:]
    printed = " ".join(r.stdout.split())
    claims = [line.split("#", 1)[1].strip() for line in code.splitlines() if line.startswith("print(") and "#" in line]
    claims = [re.split(r"\s{2,}|\(", c)[0].strip() for c in claims]
    assert claims and all(" ".join(c.split()) in printed for c in claims), (claims, printed)


def test_the_command_predicts_from_a_csv_file(venv):
    _, bindir, work, _ = venv
    (work / "P.csv").write_text("cat,dog,bird\n0.9,0.45,0.4\n0.3,0.25,0.2\n")
    r = _run(venv, bindir / "fmeasure", "predict", "--marginals", "P.csv", "-o", "H.csv")
    assert r.returncode == 0, r.stderr
    assert (work / "H.csv").read_text().split() == ["cat,dog,bird,expected_f", "1,1,1,0.7022", "0,0,0,0.42"]


def test_the_command_prints_the_installed_version(venv):
    python, bindir, *_ = venv
    r = _run(venv, bindir / "fmeasure", "--version")
    assert r.returncode == 0, r.stderr
    meta = _run(venv, python, "-c", "import importlib.metadata as m; print(m.version('fmeasure'))").stdout.strip()
    assert r.stdout.strip() == f"fmeasure {meta}" == f"fmeasure {fmeasure.__version__}"


def test_a_learner_compiles_its_numba_kernels_in_the_installed_package(venv):
    python, bindir, *_ = venv
    code = """
import numpy as np
from fmeasure.learners import FMeasureTree
from fmeasure.learners.warmup import kernels_compiled

assert not kernels_compiled(), "kernels cached before the first use"
rng = np.random.default_rng(0)
X = rng.normal(size=(60, 4))
Y = (X[:, :3] + rng.normal(size=(60, 3)) > 0.5).astype(int)
tree = FMeasureTree(max_depth=3).fit(X, Y)
H = tree.predict(X)
assert H.shape == Y.shape and set(np.unique(H)) <= {0, 1}
print(kernels_compiled(), round(tree.score(X, Y), 6))
"""
    first = _run(venv, python, "-c", code)
    assert first.returncode == 0, first.stderr[-3000:]
    compiled, score = first.stdout.split()
    assert compiled == "True"
    site = bindir.parent
    cached = sorted(p.name for p in site.rglob("*.nbi") if "fmeasure" in p.parts)
    assert cached, "no numba cache index in the installed package"
    # a second process loads the cached kernels and gets the same tree
    second = _run(
        venv, python, "-c", code.replace('assert not kernels_compiled(), "kernels cached before the first use"', "")
    )
    assert second.returncode == 0, second.stderr[-3000:]
    assert second.stdout.split() == ["True", score]
