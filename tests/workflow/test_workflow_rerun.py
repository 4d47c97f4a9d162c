"""A run killed mid-job resumes, and a second run reproduces every table of the smoke run.

The run starts from nothing but the data slices in tests/data (its own data stage), so it can run
beside the session's smoke run (tests/conftest.py) on another worker; the smoke run's tables are
fetched only for the comparison at the end.
"""

import signal
import subprocess
import time

import pandas as pd
import psutil  # a dependency of Snakemake
import pytest
from _mirror import TEST_DATA, snakemake_env
from _workflow import run_snakemake, snakemake_cmd, untimed_tables

pytestmark = pytest.mark.e2e  # runs the Snakemake engine

#: Scripts that compute (past their imports, they are mid-way through real work when killed).
COMPUTE_SCRIPTS = ("parametric_fit_predict", "pcc_fit", "knn_run", "simulations_run")


def _kill_first_compute_job(cmd, env) -> tuple[str | None, int, str]:
    """Run ``cmd``; SIGKILL the first compute script seen running for 1.5 s. Returns what was
    killed, Snakemake's exit code and its output."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    killed = None
    deadline = time.monotonic() + 600
    try:
        while killed is None and proc.poll() is None and time.monotonic() < deadline:
            for child in psutil.Process(proc.pid).children(recursive=True):
                try:
                    line = " ".join(child.cmdline())
                    running_for = time.time() - child.create_time()
                except psutil.Error:
                    continue
                if ".snakemake/scripts/" in line and any(s in line for s in COMPUTE_SCRIPTS) and running_for > 1.5:
                    child.send_signal(signal.SIGKILL)
                    killed = line
                    break
            time.sleep(0.05)
        output, _ = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    return killed, proc.returncode, output


def test_sigkill_of_a_running_compute_job_then_rerun_reproduces_every_table(request, tmp_path):
    workdir = tmp_path / "killed"
    env = snakemake_env(str(TEST_DATA))
    cmd = snakemake_cmd(workdir, "--cores", "1", "--config", "stages=data,knn,pcc,parametric", "--quiet", "progress")
    killed, returncode, output = _kill_first_compute_job(cmd, env)
    assert killed is not None, "no compute job was seen running"
    assert returncode != 0, output[-2000:]
    # the whole workflow in the same folder: the killed job's outputs are redone, the rest resumes
    run_snakemake(workdir, "--quiet", "progress")
    smoke_run = request.getfixturevalue("smoke_run")  # waits for the session's smoke run if need be
    first, again = untimed_tables(smoke_run), untimed_tables(workdir)
    assert first and first.keys() == again.keys()
    for name in first:
        pd.testing.assert_frame_equal(first[name], again[name], check_exact=False, rtol=1e-12, obj=name)
