"""Fixtures shared by several test modules, and the order in which modules are handed out."""

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import _children
import pytest
from _workflow import run_snakemake
from filelock import FileLock

#: Modules that run the workflow, handed out first and in this order (pyproject.toml: ``--dist
#: loadfile --no-loadscope-reorder``); the short modules fill the time around them. pytest-xdist
#: gives a worker the next module when at most two of its tests are pending: the kill-and-rerun
#: test (one test) runs the session's smoke run through its fixture and gets the smoke module
#: behind it, which reads that run; the Slurm comparison starts its cluster run at once.
LONG_MODULES = (
    "test_workflow_rerun.py",
    "test_slurm.py",
    "test_scaling.py",
    "test_workflow_smoke.py",
    "test_workflow_nominal.py",
    "test_peers_workflow.py",
)


def pytest_configure(config):
    """Stop the children the tests start (Slurm daemons, Snakemake runs) when the test run is
    terminated (tests/_children.py). In a fresh checkout, compile the numba kernels once before the
    workers start: concurrent first compilations of one kernel can fail in numba's cache
    (fmeasure.learners.warmup)."""
    _children.install(controller=not hasattr(config, "workerinput"))
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller has done it
        return
    from fmeasure.learners.warmup import kernels_compiled  # light: imports no learner

    if not kernels_compiled():
        print("compiling the numba kernels once (a fresh checkout)", file=sys.stderr)
        code = "from fmeasure.learners.warmup import compile_kernels; compile_kernels()"
        subprocess.run([sys.executable, "-c", code], check=True)


def pytest_unconfigure(config):
    _children.uninstall(controller=not hasattr(config, "workerinput"))


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker per core plus one. The Slurm comparison spends most of its time
    waiting for the cluster's job states; the extra worker runs other modules meanwhile."""
    return (os.cpu_count() or 1) + 1


#: Markers whose tests run only when the -m expression names them (README, "Quick start"): the
#: release checks (slow; the site needs the docs extra), the tables on the full datasets (minutes
#: of CPU; they need a mirror) and the whole smoke run on the two-node Slurm cluster with a node
#: failure (minutes; root): ``pytest -m docs``, ``pytest -m wheel``, ``pytest -m fulldata``,
#: ``pytest -m cluster``.
ASKED_BY_NAME = ("docs", "wheel", "fulldata", "cluster")


def pytest_collection_modifyitems(config, items):
    expr = config.getoption("markexpr") or ""
    unasked = [
        item
        for item in items
        if any(item.get_closest_marker(m) and not re.search(rf"\b{m}\b", expr) for m in ASKED_BY_NAME)
    ]
    if unasked:
        config.hook.pytest_deselected(items=unasked)
        drop = set(map(id, unasked))
        items[:] = [item for item in items if id(item) not in drop]

    def rank(item):
        name = item.path.name
        return LONG_MODULES.index(name) if name in LONG_MODULES else len(LONG_MODULES)

    items.sort(key=rank)  # stable: the order within and among the other modules is kept


@pytest.fixture(scope="session")
def smoke_output(tmp_path_factory):
    """The full smoke run of the test session: its folder and Snakemake's output.

    One run per session, shared by the pytest-xdist workers: the first worker that needs it runs it
    under a lock in the session's common temporary folder, the others wait and read it. Tests may
    make dry runs and ``--report`` in it (they write nothing under results/ or logs/, which the
    Slurm comparison reads); a test that computes again does so in its own folder."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # a single process (-n 0)
        workdir = tmp_path_factory.mktemp("smoke")
        out = run_snakemake(workdir)
        return workdir, out.stdout + out.stderr
    shared = tmp_path_factory.getbasetemp().parent  # the same folder for every worker of the session
    done = shared / "smoke-run.json"
    with FileLock(str(shared / "smoke-run.lock")):
        if not done.is_file():
            workdir = Path(tempfile.mkdtemp(prefix="smoke-", dir=shared))  # a failed attempt keeps its own
            out = run_snakemake(workdir)
            done.write_text(json.dumps({"workdir": str(workdir), "output": out.stdout + out.stderr}))
    record = json.loads(done.read_text())
    return Path(record["workdir"]), record["output"]


@pytest.fixture(scope="session")
def smoke_run(smoke_output):
    """The folder of the session's smoke run (read its outputs; copy it before running again)."""
    return smoke_output[0]
