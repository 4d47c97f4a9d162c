"""A run killed mid-job resumes, and what it recomputes equals the smoke run's tables.

The test works on a copy of the session's smoke run (tests/conftest.py): it deletes the outputs of
PCC's chain fits and of every job downstream of them (the state of a first run that had not got
there yet), runs the workflow, kills the first fit while it computes, and runs the workflow again
in the same folder. That rerun must redo the killed fit and everything after it, and every table
must equal the smoke run's. (Two independent
full runs of the smoke config, local and on Slurm, are compared cell for cell in test_slurm.py.)
"""

import re
import shutil
import signal
import subprocess
import time

import pandas as pd
import psutil  # a dependency of Snakemake
import pytest
from _mirror import TEST_DATA, snakemake_env
from _workflow import run_snakemake, snakemake_cmd, untimed_tables

pytestmark = pytest.mark.e2e  # runs the Snakemake engine

#: The rule whose outputs are deleted, and its script (past its imports, a job is mid-way through its fit).
RULE, SCRIPT = "pcc_fit", "pcc_fit.py"
DATASET = "scene-small"  # one of the smoke config's datasets


def _kill_first_job_of_rule(cmd, env) -> tuple[str | None, int, str]:
    """Run ``cmd``; SIGKILL the first job of ``RULE`` seen running for 1.5 s. Returns what
    was killed, Snakemake's exit code and its output."""
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
                if ".snakemake/scripts/" in line and SCRIPT in line and running_for > 1.5:
                    child.send_signal(signal.SIGKILL)
                    killed = line
                    break
            time.sleep(0.05)
        output, _ = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    return killed, proc.returncode, output


def test_sigkill_of_a_running_compute_job_then_rerun_reproduces_every_table(smoke_run, tmp_path):
    workdir = tmp_path / "killed"
    shutil.copytree(smoke_run, workdir, symlinks=True)  # keeps the files' times: nothing is out of date
    # the state of a first run that stopped before the chains: every output of the jobs that
    # depend on them (Snakemake's dry run forcing the rule lists those jobs) is not there yet
    dry = run_snakemake(workdir, "--dry-run", "--forcerun", RULE)
    outputs = [f for line in re.findall(r"^\s+output: (.+)$", dry.stdout, flags=re.M) for f in line.split(", ")]
    assert f"results/pcc/{DATASET}/chain.pkl" in outputs and "results/tables/table4.csv" in outputs
    for name in outputs:
        (workdir / name).unlink()
    env = snakemake_env(str(TEST_DATA))
    cmd = snakemake_cmd(workdir, "--cores", "1", "--quiet", "progress")
    killed, returncode, output = _kill_first_job_of_rule(cmd, env)
    assert killed is not None, f"no {RULE} job was seen running:\n{output[-2000:]}"
    assert returncode != 0, output[-2000:]
    # the same folder again: the killed fit, the one not yet started, and what follows them are redone
    out = run_snakemake(workdir)
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", out.stdout + out.stderr, flags=re.M))  # Snakemake's job stats
    assert counts.get(RULE) == "2" and counts.get("pcc_table4") == "1", counts
    first, again = untimed_tables(smoke_run), untimed_tables(workdir)
    assert first and first.keys() == again.keys()
    for name in first:
        pd.testing.assert_frame_equal(first[name], again[name], check_exact=False, rtol=1e-12, obj=name)
