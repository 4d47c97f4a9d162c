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


def test_the_light_scripts_are_found():
    assert len(LIGHT_SCRIPTS) >= 20 and "fmeasure.experiments.report" in MODULES


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.rsplit(".", 1)[1])
def test_module_imports_no_learner(module):
    code = f"import sys, {module}; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [], f"importing {module} imports {out.stdout.split()}"
