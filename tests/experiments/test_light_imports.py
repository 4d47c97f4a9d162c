"""Table, findings, figure and report jobs import no learner: not scikit-learn, not the numba kernels.

Every Snakemake job starts a fresh Python process, so what its script imports is paid once per job.
Each case imports, in a new interpreter, one experiments module that such a script imports.
"""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The scripts of the jobs that only gather, judge or draw what other jobs computed.
LIGHT_SCRIPTS = [
    p
    for p in sorted((ROOT / "workflow" / "scripts").glob("*.py"))
    if re.search(r"_(table\d*|tables|findings|figure\d*|aggregate|summary|assemble)$", p.stem)
]
HEAVY = ("sklearn", "numba")


def _experiments_modules(path: Path) -> set[str]:
    mods = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("fmeasure.experiments."):
            mods.add(node.module)
        elif isinstance(node, ast.Import):
            mods.update(a.name for a in node.names if a.name.startswith("fmeasure.experiments."))
    return mods


MODULES = sorted(set().union(*map(_experiments_modules, LIGHT_SCRIPTS)))


def _heavy_after(code: str) -> list[str]:
    """The heavy libraries loaded after running ``code`` in a new interpreter."""
    probe = f"{code}\nimport sys; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()


def test_the_light_scripts_are_found():
    assert len(LIGHT_SCRIPTS) >= 20 and "fmeasure.experiments.report" in MODULES


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.rsplit(".", 1)[1])
def test_module_imports_no_learner(module):
    heavy = _heavy_after(f"import {module}")
    assert heavy == [], f"importing {module} imports {heavy}"


def test_the_workflow_definition_imports_no_learner(tmp_path):
    """Snakemake reads the Snakefile in its own process, and again in every cluster job: what the
    rules import while the workflow is built (a dry run) loads neither scikit-learn nor numba."""
    probe = tmp_path / "probe.py"  # runs Snakemake's dry run in-process, then lists the heavy modules
    probe.write_text(
        "import sys\n"
        "from snakemake.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        f"print('HEAVY:', *[m for m in {HEAVY!r} if m in sys.modules])\n"
    )
    args = ["--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path), "-n", "--quiet", "all"]
    args += ["--configfile", str(ROOT / "config" / "smoke.yaml")]
    out = subprocess.run([sys.executable, str(probe), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "HEAVY:", out.stdout[-500:]


def test_every_stage_module_is_light():
    """The report job imports each stage's module for its ``analysis()``."""
    code = (
        "import importlib; from fmeasure.experiments.report import STAGE_TITLES\n"
        "for s in STAGE_TITLES: importlib.import_module(f'fmeasure.experiments.{s}')"
    )
    assert _heavy_after(code) == []


def test_the_registry_of_names_is_lighter_still():
    """The workflow, the config check and every stage module read their names from it: it loads no
    learner, and not pandas either."""
    probe = "import sys, fmeasure.experiments.registry\nprint(' '.join(m for m in ('sklearn', 'numba', 'pandas') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []
