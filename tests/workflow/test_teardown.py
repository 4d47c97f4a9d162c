"""A test run stopped by SIGTERM (a CI time limit) leaves none of the processes it started.

The check runs ``timeout -s TERM 60 python -m pytest -n 0 tests/workflow/_terminated_run.py``: that
test brings up the Slurm cluster of ``tests/slurm/cluster.py``, submits a batch job that runs until
killed, starts a Snakemake run through ``tests/_workflow.py`` (whose job waits forever), and waits.
As soon as all of them run, the check sends SIGTERM through ``timeout`` (which passes it on, as a CI
runner's stop would; ``timeout`` sends it itself after 60 s otherwise). Afterwards no process whose
command line, working folder, open files or environment name the run's temporary folder may be left
(munged, slurmctld, slurmd, snakemake, its job, the batch job's shell and its slurmstepd): other
processes of the machine, which never name that folder, are not looked at.
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil  # a dependency of Snakemake
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from slurm.cluster import slurm_unavailable_reason  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
HELPER = Path(__file__).with_name("_terminated_run.py")
#: Seconds the run may take before `timeout` sends SIGTERM: the cluster comes up in ~10 s, the batch
#: job and Snakemake's job in ~5 s more; the test sends it as soon as all of them run.
TERMINATE_AFTER = 60


def _reason() -> str | None:
    if shutil.which("timeout") is None:
        return "no `timeout` command"
    return slurm_unavailable_reason()


pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slurm,
    pytest.mark.timeout(4 * TERMINATE_AFTER),
    pytest.mark.skipif(_reason() is not None, reason=str(_reason())),
]


def _left_over(root: Path) -> list[psutil.Process]:
    """The processes whose command line, working folder, open files or environment name ``root``
    (the run's own folder): the daemons, Snakemake, its job, the batch job (``SLURM_CONF`` in its
    environment) and Slurm's step daemon (which holds its node's log open)."""
    out = []
    for p in psutil.process_iter(["cmdline", "cwd", "open_files", "environ"]):
        try:
            files = " ".join(f.path for f in p.info["open_files"] or [])
            env = " ".join((p.info["environ"] or {}).values())
            if str(root) in " ".join([*(p.info["cmdline"] or []), p.info["cwd"] or "", files, env]):
                out.append(p)
        except psutil.Error:
            continue
    return out


@pytest.fixture
def root():
    """The run's folder: short, as munged's socket path must stay under 108 bytes."""
    path = Path(tempfile.mkdtemp(prefix="fm-term-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_terminated_test_run_leaves_no_daemon_and_no_snakemake(root):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "FMEASURE_TEST_"))}
    cmd = ["timeout", "-s", "TERM", str(TERMINATE_AFTER), sys.executable, "-m", "pytest", "-n", "0"]
    cmd += ["-p", "no:cacheprovider", f"--basetemp={root}", str(HELPER)]
    started = ("cluster-up", "batch-job-running", "job-started")
    with tempfile.TemporaryFile("w+") as output:
        run = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=output, stderr=subprocess.STDOUT, text=True)
        # once every child runs, SIGTERM at once, through `timeout` (which passes it on, as a CI
        # runner's stop would); `timeout` itself sends it after TERMINATE_AFTER s otherwise
        deadline = time.monotonic() + TERMINATE_AFTER
        while run.poll() is None and time.monotonic() < deadline:
            if all(list(root.rglob(s)) for s in started):
                time.sleep(1.0)
                run.send_signal(signal.SIGTERM)
                break
            time.sleep(0.5)
        try:
            returncode = run.wait(timeout=2 * TERMINATE_AFTER)
        except subprocess.TimeoutExpired:
            run.kill()
            returncode = run.wait()
        output.seek(0)
        text = output.read()
    log = f"exit {returncode}:\n{text[-6000:]}"
    deadline = time.monotonic() + 10  # SIGKILLed processes vanish within moments
    while (left := _left_over(root)) and time.monotonic() < deadline:
        time.sleep(0.5)
    names = sorted(f"{p.pid} {' '.join(p.cmdline())[:200]}" for p in left if p.is_running())
    for p in left:  # never leave them on the machine, even when the check fails
        try:
            p.kill()
        except psutil.Error:
            pass
    # terminated (by our SIGTERM, which `timeout` passes on and then dies of; by `timeout`: 124)
    assert returncode in (124, -signal.SIGTERM, 128 + signal.SIGTERM), log
    assert all(list(root.rglob(s)) for s in started), "the run never got going\n" + log
    assert not names, "left running after SIGTERM:\n" + "\n".join(names) + "\n" + log
