"""End-to-end test of the Slurm path: the smoke config on a real single-node Slurm cluster.

Brings up a throwaway cluster (``tests/slurm/cluster.py``: munged + slurmctld + slurmd, no
accounting), runs ``config/smoke.yaml`` through ``snakemake --profile workflow/profiles/slurm`` and compares
it with the session's local smoke run of the same config (``smoke_output`` in conftest.py); then
checks that

* every job of a rule that is not a ``localrule`` was submitted with ``sbatch`` (the plugin
  prints the Slurm job id of each job) and completed on the cluster (its id is in the
  cluster's job-completion file);
* the two runs executed the same rules, produced the same files under ``results/``, and the
  CSV tables are equal cell for cell (columns holding wall times excepted);
* rule logs come back under ``logs/`` of the working directory, and Slurm's output of
  each job under ``.snakemake/slurm_logs/``.

A dry run through the profile (no cluster, no root) checks that every profile key is an
option of the installed Snakemake and plugin. The cluster tests need root and either the Slurm binaries or ``apt-get`` (CI: Debian 12, root); skipped with
the reason otherwise. Every wait is bounded and the daemons are stopped by PID on teardown.
The cluster run's wall time is printed (``pytest -s``) and recorded as a test property.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import _children
import pandas as pd
import pytest

from fmeasure.experiments.findings import TIMED_CLAIMS
from fmeasure.tables import untimed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from slurm.cluster import (  # noqa: E402
    SlurmCluster,
    ensure_slurm_installed,
    slurm_unavailable_reason,
)

REPO = Path(__file__).resolve().parents[2]
SNAKEFILE = REPO / "Snakefile"
SMOKE = REPO / "config" / "smoke.yaml"
PROFILE = REPO / "workflow" / "profiles" / "slurm"
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
#: Where the smoke run finds its data slices without network (as in test_workflow_smoke.py).
DATA_MIRROR = str(REPO / "tests" / "data")
#: Upper bound on each Snakemake run (the smoke run takes well under a minute locally).
RUN_TIMEOUT = 900
#: Settings a cluster without accounting needs (see the profile's comments).
NO_ACCOUNTING = ["--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "5"]


def _skip_reason() -> str | None:
    reason = slurm_unavailable_reason()
    if reason:
        return reason
    try:
        import snakemake_executor_plugin_slurm  # noqa: F401
    except ImportError:
        return "snakemake-executor-plugin-slurm not installed (pip install 'fmeasure[slurm]')"
    return None


needs_cluster = pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))
pytestmark = [pytest.mark.timeout(3 * RUN_TIMEOUT), pytest.mark.e2e, pytest.mark.slurm]


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory):
    """A running single-node Slurm cluster for this module; stopped afterwards."""
    try:
        ensure_slurm_installed()
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"could not install Slurm with apt-get: {exc}")
    cluster = SlurmCluster(tmp_path_factory.mktemp("slurm-cluster"))
    with cluster:
        yield cluster


class _Run:
    """A command running in the background with output to ``log``, started now."""

    def __init__(self, cmd: list[str], cwd: Path, env: dict, log: Path):
        self.cmd, self.log, self.t0 = cmd, log, time.monotonic()
        with open(log, "w") as out:  # own session, recorded (tests/_children.py)
            self.proc = _children.popen(
                cmd, "snakemake", cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        self.seconds = None

    def kill(self) -> None:
        """Stop the run's process group (snakemake cancels its Slurm jobs on SIGTERM)."""
        if self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        _children.forget(self.proc)

    def finish(self, timeout: float = RUN_TIMEOUT) -> str:
        """Wait (bounded), assert success, return the output."""
        try:
            self.proc.wait(timeout=max(1.0, self.t0 + timeout - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(
                f"timed out after {timeout} s: {' '.join(map(str, self.cmd))}\n"
                + "\n".join(self.log.read_text().splitlines()[-40:])
            )
        self.seconds = time.monotonic() - self.t0
        _children.forget(self.proc)
        text = self.log.read_text()
        assert self.proc.returncode == 0, f"exit {self.proc.returncode}: {' '.join(map(str, self.cmd))}\n" + "\n".join(
            text.splitlines()[-60:]
        )
        return text


def _executed(text: str) -> dict[str, list[tuple[str, str]]]:
    """{'rule'|'localrule': [(rule name, snakemake job id), ...]} from Snakemake's output."""
    jobs: dict[str, list[tuple[str, str]]] = {"rule": [], "localrule": []}
    for kind, name, body in re.findall(r"^(rule|localrule) (\w+):\n((?:    .*\n)+)", text, flags=re.MULTILINE):
        jobid = re.search(r"^    jobid: (\d+)$", body, flags=re.MULTILINE).group(1)
        jobs[kind].append((name, jobid))
    return jobs


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def _env(base: dict) -> dict:
    env = dict(base)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    env["FMEASURE_DATA_MIRROR"] = DATA_MIRROR
    return env


# The comparison comes first in this module: pytest-xdist gives its worker no other module while
# more than two of this module's tests are pending, so no module waits behind the cluster run.
@needs_cluster
def test_slurm_smoke_run_matches_local_run(slurm_cluster, request, tmp_path, record_property):
    if not (SNAKEFILE.exists() and SMOKE.exists()):
        pytest.fail(f"{SNAKEFILE} or {SMOKE} missing: nothing to run on the cluster")
    if not Path(DATA_MIRROR).is_dir():
        pytest.fail(f"data mirror {DATA_MIRROR} not found: set FMEASURE_DATA_MIRROR")
    common = ["--snakefile", str(SNAKEFILE), "--configfile", str(SMOKE), "--nocolor"]
    slurm_dir = tmp_path / "slurm"
    slurm_dir.mkdir()
    slurm_run = _Run(
        [
            *SNAKEMAKE,
            *common,
            "--directory",
            str(slurm_dir),
            "--profile",
            str(PROFILE),
            *NO_ACCOUNTING,
            "--slurm-keep-successful-logs",
        ],
        cwd=slurm_dir,
        env=_env(slurm_cluster.env()),
        log=tmp_path / "slurm.log",
    )
    try:
        slurm_out = slurm_run.finish()
    finally:
        slurm_run.kill()
    # the local run to compare with: the session's smoke run (conftest.py), same config; fetched
    # after the cluster run, so that both can run at once on two workers
    local_dir, local_out = request.getfixturevalue("smoke_output")
    record_property("slurm_seconds", round(slurm_run.seconds, 1))
    print(f"\nsmoke run wall time on the cluster: {slurm_run.seconds:.1f} s")

    # Same rules ran, and every non-local job went through sbatch and completed on the cluster.
    ran_local, ran_slurm = _executed(local_out), _executed(slurm_out)
    names = lambda jobs: sorted(n for n, _ in jobs)  # noqa: E731
    assert names(ran_slurm["rule"] + ran_slurm["localrule"]) == names(ran_local["rule"] + ran_local["localrule"])
    assert ran_slurm["rule"], "no job ran on the cluster: is everything a localrule?"
    submissions = re.findall(
        r"^Job (\d+) has been submitted with SLURM jobid (\d+) "
        r"\(log: (.+)\)\.$",
        slurm_out,
        flags=re.MULTILINE,
    )
    submitted = {job: slurm_id for job, slurm_id, _ in submissions}
    for _, slurm_id, slurm_log in submissions:  # Slurm's own output comes back too
        assert Path(slurm_log).is_file(), f"no Slurm log {slurm_log} for job {slurm_id}"
        assert str(slurm_dir) in slurm_log
    completed = slurm_cluster.completed_jobs()
    for rule, jobid in ran_slurm["rule"]:
        assert jobid in submitted, f"rule {rule} (job {jobid}) was not submitted to Slurm"
        state = completed.get(submitted[jobid], {}).get("JobState")
        assert state == "COMPLETED", f"rule {rule}: Slurm job {submitted[jobid]} is {state}"
    assert len(set(submitted.values())) == len(ran_slurm["rule"])

    # Same files; tables equal cell for cell (measured times aside); figures exist.
    results_local, results_slurm = local_dir / "results", slurm_dir / "results"
    files = _files(results_local)
    assert files, "the local smoke run wrote nothing under results/"
    assert _files(results_slurm) == files
    for rel in sorted(f for f in files if f.endswith(".csv")):
        a, b = pd.read_csv(results_local / rel), pd.read_csv(results_slurm / rel)
        if "claim_id" in a.columns:  # findings: verdicts of timing claims follow the measured times
            a, b = (d[~d.claim_id.isin(TIMED_CLAIMS)].reset_index(drop=True) for d in (a, b))
        pd.testing.assert_frame_equal(untimed(a), untimed(b), check_exact=True, obj=rel)
    for rel in files:
        if rel.endswith((".png", ".pdf")):
            assert (results_slurm / rel).stat().st_size > 0, rel

    # Rule logs come back to the working directory, as in a local run.
    assert _files(slurm_dir / "logs") == _files(local_dir / "logs")


def test_slurm_profile_is_accepted_by_snakemake_and_plugin():
    """A dry run through the profile: every key is a valid option of this Snakemake/plugin.

    Runs without a cluster (and without root), so a typo or an option renamed by a plugin
    release fails here too.
    """
    pytest.importorskip("snakemake_executor_plugin_slurm")
    res = subprocess.run(
        [
            *SNAKEMAKE,
            "--snakefile",
            str(SNAKEFILE),
            "--configfile",
            str(SMOKE),
            "--profile",
            str(PROFILE),
            "--dry-run",
            "--quiet",
            "all",
        ],
        cwd=REPO,
        env=_env(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-4000:]


@needs_cluster
def test_slurm_cluster_runs_a_batch_job(slurm_cluster, tmp_path):
    """The harness itself: a job submitted with sbatch runs and is recorded as completed."""
    env = slurm_cluster.env()
    res = subprocess.run(
        ["sbatch", "--parsable", "-o", str(tmp_path / "out.txt"), "--wrap", "echo $SLURM_JOB_ID"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    jobid = res.stdout.strip().split(";")[0]
    deadline = time.monotonic() + 60
    while jobid not in slurm_cluster.completed_jobs() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert slurm_cluster.completed_jobs()[jobid]["JobState"] == "COMPLETED"
    assert (tmp_path / "out.txt").read_text().strip() == jobid
