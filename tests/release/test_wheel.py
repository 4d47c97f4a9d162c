"""The wheel works installed, without extras, outside the repository.

``python -m build`` makes the sdist and the wheel from a copy of the checkout's files (tracked, and
new files not ignored); the wheel is installed, with no extra, into a new virtual environment (no
system site packages) in a temporary folder, and everything below runs there, from a folder outside
the repository, with no PYTHONPATH: ``import fmeasure`` comes from the environment's site-packages;
the library's dependencies are installed and none of the pipeline's (Snakemake, statsmodels,
scikit-posthocs, scikit-multilearn-ng, ...); ``FOptimalClassifier`` and ``FOptimalSearchCV`` fit
and predict, and the README's quick start prints what the README says; the ``fmeasure`` command
predicts from a CSV file and prints its version; ``fmeasure.datasets.load_mulan`` reads a dataset
from a mirror with the catalog shipped in the package; an F-measure tree compiles its numba kernels
on first use and caches them in the installed package. The environment's ``pip list`` and the time
the installation took are printed.

Marked ``wheel``: it runs only when asked for (``pytest -n 0 -m wheel``). Installing the
dependencies takes most of its time; it needs the package index, or pip's cache holding them.
``FMEASURE_WHEEL_PYTHON=python3.13 pytest -n 0 -m wheel`` makes the new environment with another
interpreter (the classifiers list Python 3.11 to 3.13).
"""

import email.parser
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
import zipfile
from pathlib import Path

import pytest
from _mirror import TEST_DATA, full_mirror, no_mirror_reason

import fmeasure

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

pytestmark = pytest.mark.wheel


def _dist(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0]).lower()


#: what ``pip install fmeasure`` must install, and what it must not: the pipeline extra's packages
CORE = sorted({_dist(r) for r in PROJECT["dependencies"]})
PIPELINE = sorted({_dist(r) for r in PROJECT["optional-dependencies"]["pipeline"]})
#: the import names of the pipeline packages that no library dependency brings along
NOT_IMPORTABLE = ("snakemake", "statsmodels", "scikit_posthocs", "skmultilearn", "matplotlib", "jsonschema", "tabulate")


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
    folder outside the repository, the environment variables to run in). Made with the interpreter
    named by ``$FMEASURE_WHEEL_PYTHON`` (another Python version the classifiers list), else this one."""
    home = tmp_path_factory.mktemp("venv")
    subprocess.run(
        [os.environ.get("FMEASURE_WHEEL_PYTHON") or sys.executable, "-m", "venv", str(home / "env")], check=True
    )
    bindir = home / "env" / "bin"
    unset = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "NUMBA_CACHE_DIR", "FMEASURE_DATA_MIRROR")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env["PATH"] = os.pathsep.join([str(bindir), env.get("PATH", "")])
    (wheel,) = dist.glob("fmeasure-*.whl")
    start = time.perf_counter()
    r = subprocess.run(
        [str(bindir / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q", str(wheel)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0, f"pip install of the wheel failed:\n{r.stderr[-3000:]}"
    (home / "install_seconds").write_text(f"{time.perf_counter() - start:.1f}")
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
    # every file of the package that is not Python (the paper's numbers, the dataset catalog) is in the wheel
    data = {
        f.removeprefix("src/") for f in _checkout_files() if f.startswith("src/fmeasure/") and not f.endswith(".py")
    }
    assert data and not data - set(names), sorted(data - set(names))
    info = f"fmeasure-{version}.dist-info"
    entry_points = zipfile.ZipFile(wheel).read(f"{info}/entry_points.txt").decode()
    assert re.search(r"^fmeasure = fmeasure\.cli:main$", entry_points, re.M)
    assert f"{info}/licenses/LICENSE" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith((".nbi", ".nbc"))]


def test_the_wheel_requires_the_library_and_offers_the_extras(dist):
    (wheel,) = dist.glob("fmeasure-*.whl")
    text = zipfile.ZipFile(wheel).read(f"fmeasure-{fmeasure.__version__}.dist-info/METADATA").decode()
    meta = email.parser.Parser().parsestr(text)
    requires = meta.get_all("Requires-Dist")
    unconditional = sorted({_dist(r) for r in requires if "extra ==" not in r})
    assert unconditional == CORE, unconditional
    for extra in PROJECT["optional-dependencies"]:
        assert extra in meta.get_all("Provides-Extra"), extra
    pipeline = sorted({_dist(r) for r in requires if re.search(r"extra == .pipeline.", r)})
    assert pipeline == PIPELINE, pipeline
    assert meta.get_all("Classifier") == PROJECT["classifiers"]
    assert meta["License-Expression"] == "MIT" and meta["Requires-Python"] == PROJECT["requires-python"]


def test_the_wheel_installs_the_library_and_no_package_of_the_pipeline(venv, capsys, request):
    python, bindir, *_ = venv
    r = _run(venv, python, "-m", "pip", "list", "--disable-pip-version-check", "--format", "json")
    assert r.returncode == 0, r.stderr
    installed = {_dist(p["name"]): p["version"] for p in json.loads(r.stdout)}
    listing = "\n".join(f"{name}=={v}" for name, v in sorted(installed.items()))
    seconds = (bindir.parent.parent / "install_seconds").read_text()
    version = _run(venv, python, "-c", "import platform; print(platform.python_version())").stdout.strip()
    report = (
        f"pip list of the new environment (Python {version}; the wheel, no extra; installed in {seconds} s):\n{listing}"
    )
    request.node.add_report_section("call", "installed", report)
    with capsys.disabled():
        print(f"\n{report}")
    assert "fmeasure" in installed and not set(CORE) - set(installed), sorted(set(CORE) - set(installed))
    assert not set(PIPELINE) & set(installed), sorted(set(PIPELINE) & set(installed))
    code = "import importlib.util, sys; print(*[m for m in sys.argv[1:] if importlib.util.find_spec(m)])"
    found = _run(venv, python, "-c", code, *NOT_IMPORTABLE)
    assert found.returncode == 0 and found.stdout.split() == [], found.stdout + found.stderr
    # the pipeline's helper says which extra brings matplotlib
    r = _run(venv, python, "-c", "import fmeasure.figures")
    assert r.returncode == 1
    assert r.stderr.strip().splitlines()[-1] == (
        "ImportError: fmeasure.figures needs matplotlib, which is not installed: pip install 'fmeasure[pipeline]'"
    )


def test_the_library_fits_and_predicts(venv):
    """FOptimalClassifier over per-label logistic models is FM on their marginals (checked against
    fmeasure.inference.fm on a second fit of the same models); FOptimalSearchCV picks a route by
    cross-validation, predicts with it and gives its expected F."""
    python, *_ = venv
    code = """
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import MultiOutputClassifier

from fmeasure import FOptimalClassifier, FOptimalSearchCV
from fmeasure.inference import fm

rng = np.random.default_rng(0)
X = rng.normal(size=(240, 5))
Y = (X[:, :4] + rng.normal(size=(240, 4)) > 0.8).astype(int)
train, test = slice(0, 180), slice(180, None)

model = MultiOutputClassifier(LogisticRegression())
clf = FOptimalClassifier(model).fit(X[train], Y[train])
H, ef = clf.predict(X[test]), clf.predict_expected_f(X[test])
assert H.shape == (60, 4) and set(np.unique(H)) <= {0, 1} and ef.shape == (60,)
P = np.column_stack([p[:, 1] for p in MultiOutputClassifier(LogisticRegression()).fit(X[train], Y[train]).predict_proba(X[test])])
h_fm, ef_fm = fm(P)
assert (H == h_fm).all() and np.allclose(ef, ef_fm), "FOptimalClassifier is not FM on the marginals"

# every built-in route, as the search's only candidate: the same methods whatever route won
from fmeasure.learners.search import ROUTES

for route in ROUTES:
    one = FOptimalSearchCV([route], cv=2, random_state=0).fit(X[train], Y[train])
    assert one.best_candidate_ == route, (route, one.best_candidate_)
    H1, ef1 = one.predict(X[test]), one.predict_expected_f(X[test])
    assert H1.shape == (60, 4) and set(np.unique(H1)) <= {0, 1}, route
    assert ef1.shape == (60,) and ((0 <= ef1) & (ef1 <= 1)).all(), route
search = FOptimalSearchCV("fast", cv=3, random_state=0).fit(X[train], Y[train])
H2, ef2 = search.predict(X[test]), search.predict_expected_f(X[test])
assert H2.shape == (60, 4) and ef2.shape == (60,)
assert search.best_candidate_ in search.cv_results_["candidate"], search.cv_results_.keys()
print(clf.route_, search.best_candidate_, round(clf.score(X[test], Y[test]), 3), round(search.score(X[test], Y[test]), 3))
"""
    r = _run(venv, python, "-c", code)
    assert r.returncode == 0, r.stderr[-3000:]
    route, best, f_clf, f_search = r.stdout.split()
    assert 0 < float(f_clf) <= 1 and 0 < float(f_search) <= 1, r.stdout


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
    site = bindir.parent
    # the other tests of this environment may have compiled the kernels already: start from none
    for p in [*site.rglob("*.nbi"), *site.rglob("*.nbc")]:
        if "fmeasure" in p.parts:
            p.unlink()
    first = _run(venv, python, "-c", code)
    assert first.returncode == 0, first.stderr[-3000:]
    compiled, score = first.stdout.split()
    assert compiled == "True"
    cached = sorted(p.name for p in site.rglob("*.nbi") if "fmeasure" in p.parts)
    assert cached, "no numba cache index in the installed package"
    # a second process loads the cached kernels and gets the same tree
    second = _run(
        venv, python, "-c", code.replace('assert not kernels_compiled(), "kernels cached before the first use"', "")
    )
    assert second.returncode == 0, second.stderr[-3000:]
    assert second.stdout.split() == ["True", score]


# ----------------------------------------------------------------------------------------------
# fmeasure.datasets.load_mulan in the installed package: the catalog comes from the wheel (no
# config/ beside it).

#: (n_train, n_test, labels, columns) of the datasets read here (MULAN's counts; flags' 19 attributes,
#: 9 of them nominal, are 43 columns one-hot)
MULAN_COUNTS = {"flags": (129, 65, 7, 43), "emotions": (391, 202, 6, 72)}


@pytest.mark.parametrize("name", ["flags", "emotions"])
def test_load_mulan_reads_a_dataset_with_the_shipped_catalog(venv, name):
    """flags comes whole with the tests (tests/data, laid out as a mirror); emotions from the
    full-data mirror ($FMEASURE_DATA_MIRROR, or ../shared/datasets next to the repository)."""
    python, *_ = venv
    mirror = TEST_DATA if name == "flags" else full_mirror()
    if mirror is None:
        pytest.skip(no_mirror_reason())
    code = """
import sys
import numpy as np
from fmeasure.datasets import load_mulan

name, mirror, home = sys.argv[1:]
bunch = load_mulan(name, data_home=home, mirror=mirror)
X_train, Y_train, X_test, Y_test = load_mulan(name, data_home=home, mirror=mirror, return_X_y=True)
assert np.array_equal(bunch.Y_train, Y_train) and np.array_equal(bunch.Y_test, Y_test)
assert len(bunch.target_names) == Y_train.shape[1] and len(bunch.feature_names) == X_train.shape[1]
for X, Y in ((X_train, Y_train), (X_test, Y_test)):
    assert X.shape[0] == Y.shape[0] and set(np.unique(Y)) <= {0, 1}
print(X_train.shape[0], X_test.shape[0], Y_train.shape[1], X_train.shape[1])
"""
    r = _run(venv, python, "-c", code, name, mirror, venv[2] / "data_home")
    assert r.returncode == 0, r.stderr[-3000:]
    n_train, n_test, m, d = MULAN_COUNTS[name]
    assert [int(v) for v in r.stdout.split()] == [n_train, n_test, m, d], r.stdout
