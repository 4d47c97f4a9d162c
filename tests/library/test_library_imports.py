"""The library stands on its own dependencies: ``pip install fmeasure`` installs what it imports.

The library is every module of ``fmeasure`` but the pipeline's ``fmeasure.experiments``. Read from
the source with :mod:`ast` (imports inside functions included), each of its imports is the standard
library, fmeasure, or a package of ``[project] dependencies``; a module that uses a package of an
extra is listed in :data:`OPTIONAL`, and its error names the extra to install. Then, in a new
interpreter where the pipeline extra's packages cannot be imported (a meta-path finder refuses
them, as if they were not installed), every library module imports and the ``fmeasure`` command
runs. The wheel test (``pytest -m wheel``) checks the same in a new environment without extras.
"""

import ast
import functools
import importlib.metadata
import json
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import fmeasure

ROOT = Path(__file__).resolve().parents[2]
PKG = Path(fmeasure.__file__).resolve().parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

#: Library modules that use a package of an extra: module -> (package, the extra that installs it).
#: Importing one without the package raises one ImportError line naming ``pip install 'fmeasure[extra]'``.
OPTIONAL = {"fmeasure.figures": ("matplotlib", "pipeline"), "fmeasure.cli._files": ("zstandard", "zstd")}


def _dist(requirement: str) -> str:
    return _normal(re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0])


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: every module of the library (the pipeline's fmeasure.experiments and ``python -m fmeasure`` aside)
LIBRARY = {
    _module_name(p): p
    for p in sorted(PKG.rglob("*.py"))
    if "experiments" not in p.relative_to(PKG).parts and p.name != "__main__.py"
}


def _top_level_imports(path: Path) -> set[str]:
    """The top-level names of the absolute imports anywhere in ``path`` (functions included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.add(node.module.split(".")[0])
    return names - {"__future__", "fmeasure"} - set(sys.stdlib_module_names)


def _extra(name: str) -> set[str]:
    """The distributions of an extra, the extras of fmeasure it names expanded."""
    out = set()
    for req in PROJECT["optional-dependencies"][name]:
        own = re.fullmatch(r"fmeasure\[([\w,-]+)\]", req.replace(" ", ""))
        out |= set().union(*map(_extra, own.group(1).split(","))) if own else {_dist(req)}
    return out


CORE = {_dist(r) for r in PROJECT["dependencies"]}
PIPELINE = _extra("pipeline")


@functools.cache
def _packages_distributions() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


def _distributions_of(import_name: str) -> set[str]:
    dists = _packages_distributions().get(import_name)
    assert dists, f"{import_name!r} is imported by the library but no installed distribution provides it"
    return {_normal(d) for d in dists}


def _import_names(dist: str) -> set[str]:
    """The top-level import names an installed distribution provides."""
    return {
        name
        for name, dists in _packages_distributions().items()
        if dist in {_normal(d) for d in dists} and not name.startswith("_")
    }


def test_the_library_is_found():
    assert {"fmeasure", "fmeasure.cli", "fmeasure.metrics", "fmeasure.inference", "fmeasure.learners"} <= set(LIBRARY)
    assert "fmeasure.datasets" in LIBRARY and not [m for m in LIBRARY if m.startswith("fmeasure.experiments")]


@pytest.mark.parametrize("module", sorted(LIBRARY))
def test_every_import_of_the_library_is_a_declared_dependency(module):
    used = {name: _distributions_of(name) for name in _top_level_imports(LIBRARY[module])}
    undeclared = {name: sorted(dists) for name, dists in used.items() if not dists & CORE}
    if module in OPTIONAL:
        package, extra = OPTIONAL[module]
        assert set(undeclared) == {package}, f"{module} imports {undeclared}, {package} expected"
        assert _normal(package) in _extra(extra), f"the {extra} extra does not install {package}"
        assert f"pip install 'fmeasure[{extra}]'" in LIBRARY[module].read_text(), (
            f"{module}: its ImportError does not name the {extra} extra"
        )
    else:
        assert not undeclared, (
            f"{module} imports {undeclared}: not in pyproject.toml's dependencies (add it there, or import it "
            "lazily with an ImportError naming the extra, and list the module in OPTIONAL)"
        )


def test_no_dependency_of_the_library_is_a_package_of_the_pipeline():
    assert CORE.isdisjoint(PIPELINE), sorted(CORE & PIPELINE)
    assert {"snakemake", "statsmodels", "scikit-posthocs", "scikit-multilearn-ng", "matplotlib"} <= PIPELINE


#: The import names of the pipeline extra's packages (jsonschema, matplotlib, scikit_posthocs,
#: skmultilearn, snakemake, statsmodels, tabulate, ...), found from the installed distributions.
BLOCKED = sorted(set().union(*map(_import_names, sorted(PIPELINE))))

#: Run first in each new interpreter: the pipeline's packages cannot be imported (ModuleNotFoundError,
#: as when they are not installed), and none is imported already.
BLOCKER = textwrap.dedent(
    f"""
    import sys

    BLOCKED = frozenset({BLOCKED!r})


    class NotInstalled:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {{name!r}} (blocked: not installed)", name=name)
            return None


    sys.meta_path.insert(0, NotInstalled())
    assert not BLOCKED & set(sys.modules), sorted(BLOCKED & set(sys.modules))
    """
)


def _run_blocked(code: str, *args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + textwrap.dedent(code), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def test_the_blocked_packages_are_the_pipelines():
    pipeline = {"snakemake", "statsmodels", "scikit_posthocs", "skmultilearn", "matplotlib", "jsonschema", "tabulate"}
    assert pipeline <= set(BLOCKED)
    assert not set(BLOCKED) & {"numpy", "scipy", "pandas", "sklearn", "numba", "yaml", "arff", "tqdm", "joblib"}
    r = _run_blocked("import matplotlib")
    assert r.returncode != 0 and "ModuleNotFoundError: No module named 'matplotlib'" in r.stderr


def test_every_library_module_imports_without_the_pipelines_packages():
    code = """
    import importlib, json

    failed = {}
    for name in sys.argv[1:]:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            failed[name] = str(exc)
    print(json.dumps({"failed": failed, "loaded": sorted(BLOCKED & set(sys.modules))}))
    """
    r = _run_blocked(code, *sorted(LIBRARY))
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["loaded"] == []
    # the modules that import a blocked package when they are imported (cli._files imports
    # zstandard, which is not the pipeline's, only when it reads zstd content)
    assert set(out["failed"]) == {m for m, (package, _) in OPTIONAL.items() if package in BLOCKED}, out["failed"]
    for module, message in out["failed"].items():
        package, extra = OPTIONAL[module]
        assert "\n" not in message and package in message, message
        assert message.endswith(f"pip install 'fmeasure[{extra}]'"), message


def test_the_command_runs_without_the_pipelines_packages(tmp_path):
    (tmp_path / "P.csv").write_text("cat,dog,bird\n0.9,0.45,0.4\n0.3,0.25,0.2\n")
    code = """
    import contextlib, io, runpy

    def fmeasure(*args):
        sys.argv = ["fmeasure", *args]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                runpy.run_module("fmeasure", run_name="__main__")
            except SystemExit as exc:
                assert not exc.code, (args, exc.code)
        return out.getvalue()

    assert "predict" in fmeasure("--help")
    print(fmeasure("--version").strip())
    fmeasure("predict", "--marginals", "P.csv", "-o", "H.csv")
    assert not BLOCKED & set(sys.modules), sorted(BLOCKED & set(sys.modules))
    """
    r = _run_blocked(code, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["fmeasure", fmeasure.__version__]
    assert (tmp_path / "H.csv").read_text().split() == ["cat,dog,bird,expected_f", "1,1,1,0.7022", "0,0,0,0.42"]
