"""Runs of the real Snakemake engine in a temporary working directory, for the end-to-end tests.

:func:`run_snakemake` runs the workflow of this checkout with config files (default: the smoke
config on the slices in tests/data) and returns Snakemake's output. The session's full smoke run
(``smoke_run`` in conftest.py) serves every test that only reads its outputs.
"""

import os
import subprocess
import sys
from pathlib import Path

import _children
import pandas as pd
from _mirror import ROOT, TEST_DATA, snakemake_env

from fmeasure.tables import untimed

SMOKE_CONFIG = ROOT / "config" / "smoke.yaml"


def snakemake_cmd(workdir: Path, *extra, configs=(SMOKE_CONFIG,), snakefile: Path = ROOT / "Snakefile") -> list[str]:
    """The command of a Snakemake run of this checkout in ``workdir`` with ``configs`` merged on config.yaml
    (``snakefile``: another workflow, for tests of the test machinery)."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(snakefile), "--directory", str(workdir)]
    if configs:
        cmd += ["--configfile", *map(str, configs)]
    return cmd + list(extra)


def run_snakemake(
    workdir: Path, *extra, configs=(SMOKE_CONFIG,), cores=2, mirror=None, timeout=1200, check=True, **kw
) -> subprocess.CompletedProcess:
    """Run the workflow in ``workdir``; data from ``mirror`` (if given), then tests/data.

    With ``check`` (default), a failed run fails the test with the tail of Snakemake's output.
    Put ``--config key=value`` last in ``extra``: Snakemake reads what follows it as values.
    """
    cmd = snakemake_cmd(workdir, "--cores", str(cores), "--nocolor", *extra, configs=configs, **kw)
    env = snakemake_env(os.pathsep.join(filter(None, [mirror and str(mirror), str(TEST_DATA)])))
    # its own session, recorded: stopped with its jobs if the test run is terminated (tests/_children.py)
    proc = _children.popen(cmd, "snakemake", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except BaseException:  # a timeout, Ctrl-C: stop the run and its jobs
        _children.stop(proc)
        raise
    _children.forget(proc)
    out = subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)
    if check:
        assert out.returncode == 0, f"snakemake failed:\n{out.stdout[-4000:]}\n{out.stderr[-8000:]}"
    return out


def untimed_tables(workdir: Path) -> dict:
    """Every ``results/tables/*.csv`` of a run without the columns of measured times
    (:func:`fmeasure.tables.untimed`), by file name."""
    return {p.name: untimed(pd.read_csv(p)) for p in sorted((workdir / "results" / "tables").glob("*.csv"))}
