"""Runs of the real Snakemake engine in a temporary working directory, for the end-to-end tests.

:func:`run_snakemake` runs the workflow of this checkout with config files (default: the smoke
config on the slices in tests/data) and returns Snakemake's output. The session's full smoke run
(``smoke_run`` in conftest.py) serves every test that only reads its outputs.
"""

import os
import re
import subprocess
import sys
import threading
import time
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


def _files_written(workdir: Path) -> int:
    """How many files the run has written under results/ and logs/ (its progress, whatever it prints)."""
    return sum(len(files) for sub in ("results", "logs") for _, _, files in os.walk(Path(workdir) / sub))


_STEPS = re.compile(r"(\d+) of (\d+) steps \((\d+)%\) done")


def run_snakemake(
    workdir: Path, *extra, configs=(SMOKE_CONFIG,), cores=2, mirror=None, timeout=1200, check=True, **kw
) -> subprocess.CompletedProcess:
    """Run the workflow in ``workdir``; data from ``mirror`` (if given), then tests/data.

    ``timeout`` bounds the time without progress, not the whole run: the run is stopped when for
    ``timeout`` seconds no job has finished and no file has appeared under results/ or logs/ (so a
    loaded machine slows a run without failing it), and the failure says how far it got
    (Snakemake's last "N of M steps" line, the files written).
    With ``check`` (default), a failed run fails the test with the tail of Snakemake's output.
    Put ``--config key=value`` last in ``extra``: Snakemake reads what follows it as values.
    """
    cmd = snakemake_cmd(workdir, "--cores", str(cores), "--nocolor", *extra, configs=configs, **kw)
    env = snakemake_env(os.pathsep.join(filter(None, [mirror and str(mirror), str(TEST_DATA)])))
    # its own session, recorded: stopped with its jobs if the test run is terminated (tests/_children.py)
    proc = _children.popen(cmd, "snakemake", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    out, err, state = [], [], {"last": time.monotonic(), "steps": "no job finished"}

    def read(stream, sink):
        for line in stream:
            sink.append(line)
            found = _STEPS.search(line)
            if found:
                state["last"], state["steps"] = time.monotonic(), found.group(0)

    readers = [threading.Thread(target=read, args=a, daemon=True) for a in ((proc.stdout, out), (proc.stderr, err))]
    for r in readers:
        r.start()
    try:
        written, checked = _files_written(workdir), time.monotonic()
        while proc.poll() is None:
            if time.monotonic() - checked > 5.0:  # a new output or log file is progress too
                now = _files_written(workdir)
                if now != written:
                    written, state["last"] = now, time.monotonic()
                checked = time.monotonic()
            if time.monotonic() - state["last"] > timeout:
                _children.stop(proc)
                for r in readers:
                    r.join(timeout=5)
                raise AssertionError(
                    f"snakemake made no progress for {timeout} s and was stopped ({state['steps']}; "
                    f"{written} files under results/ and logs/):\n" + "".join(err)[-4000:]
                )
            time.sleep(0.5)
    except BaseException:  # interrupted (Ctrl-C, a signal): stop the run and its jobs
        _children.stop(proc)
        raise
    _children.forget(proc)
    for r in readers:
        r.join()
    result = subprocess.CompletedProcess(cmd, proc.returncode, "".join(out), "".join(err))
    if check:
        assert result.returncode == 0, f"snakemake failed:\n{result.stdout[-4000:]}\n{result.stderr[-8000:]}"
    return result


def untimed_tables(workdir: Path) -> dict:
    """Every ``results/tables/*.csv`` of a run without the columns of measured times
    (:func:`fmeasure.tables.untimed`), by file name."""
    return {p.name: untimed(pd.read_csv(p)) for p in sorted((workdir / "results" / "tables").glob("*.csv"))}
