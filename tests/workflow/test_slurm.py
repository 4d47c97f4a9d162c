"""End-to-end tests of the Slurm path on a real two-node Slurm cluster.

Brings up a throwaway cluster (``tests/slurm/cluster.py``: munged + slurmctld + one slurmd per node,
two nodes on this host, no accounting) and runs the workflow through
``snakemake --profile workflow/profiles/slurm``, comparing it with the session's local smoke run of
``config/smoke.yaml`` (``smoke_output`` in conftest.py):

* the default test runs the data and theory stages of the smoke config (``--config
  stages=data,theory``: eight cluster jobs that can all run at once, in well under a minute) and
  checks that every job of a rule that is not a ``localrule`` was submitted with ``sbatch`` (the
  plugin prints the Slurm job id of each job) and completed on the cluster (its id is in the
  cluster's job-completion file); that the jobs ran on both nodes; that the result CSVs equal the
  local run's same files cell for cell (columns holding wall times excepted); and that rule logs
  come back under ``logs/`` of the working directory, and Slurm's output of each job under
  ``.snakemake/slurm_logs/``;
* the test marked ``cluster`` (runs only when named: ``pytest -n 0 -m cluster``, minutes) runs the
  whole smoke config, sets node 2 DOWN once a job runs there, and checks that the run still
  finishes with every table identical to the local run's: each job the node held was failed by
  Slurm (``NODE_FAIL``) and resubmitted by Snakemake to the other node.

A dry run through the profile (no cluster, no root) checks that every profile key is an
option of the installed Snakemake and plugin. The cluster tests need root and either the Slurm binaries or ``apt-get`` (CI: Debian 12, root); skipped with
the reason otherwise. Every wait is bounded and the daemons are stopped by PID on teardown.
The cluster runs' wall times are printed (``pytest -s``) and recorded as test properties.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Collection
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
#: Settings a cluster without accounting needs (see the profile's comments). The first status check
#: comes 2 s after a submission or a finished job (the plugin waits 10 s more after each check that
#: finds none finished): the short jobs here finish within seconds of each other.
NO_ACCOUNTING = ["--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "2"]


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
    """{'rule'|'localrule': [(rule name, snakemake job id), ...]} from Snakemake's output (a job
    started again after a failure keeps its id and is listed once)."""
    jobs: dict[str, list[tuple[str, str]]] = {"rule": [], "localrule": []}
    for kind, name, body in re.findall(r"^(rule|localrule) (\w+):\n((?:    .*\n)+)", text, flags=re.MULTILINE):
        jobid = re.search(r"^    jobid: (\d+)$", body, flags=re.MULTILINE).group(1)
        if (name, jobid) not in jobs[kind]:
            jobs[kind].append((name, jobid))
    return jobs


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def _env(base: dict) -> dict:
    env = dict(base)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    env["FMEASURE_DATA_MIRROR"] = DATA_MIRROR
    return env


#: The cheap subset of the smoke config the default test runs: Table 1 and the theory stage. Its
#: cluster jobs (2 parse_dataset, theory_figure1, theory_independence, theory_jaccard and 3
#: theory_lp_solve) have no dependencies among them, so all can run at once on the two nodes.
SUBSET = ["--config", "stages=data,theory"]
#: Outputs of the report rule: they list the stages run, so a subset's differ from the full run's.
REPORT_OUTPUTS = {"report.md", "findings.csv", "tables/deviations.csv"}


def _slurm_run(cluster: SlurmCluster, workdir: Path, log: Path, extra: tuple[str, ...] = ()) -> _Run:
    """Start the smoke config through the Slurm profile in ``workdir`` (with ``extra`` options)."""
    return _Run(
        [
            *SNAKEMAKE,
            "--snakefile",
            str(SNAKEFILE),
            "--configfile",
            str(SMOKE),
            "--nocolor",
            "--directory",
            str(workdir),
            "--profile",
            str(PROFILE),
            *NO_ACCOUNTING,
            "--slurm-keep-successful-logs",
            *extra,
        ],
        cwd=workdir,
        env=_env(cluster.env()),
        log=log,
    )


def _submissions(text: str, workdir: Path, lost: Collection[str] = ()) -> list[tuple[str, str]]:
    """[(Snakemake job id, Slurm job id), ...] in the order submitted; a job resubmitted after a
    failure appears once per submission. Slurm's own output of each job must have come back, except
    for the Slurm jobs in ``lost``: a job whose node failed may never have started its batch script
    (it is RUNNING once allocated), so its log may not exist."""
    found = re.findall(
        r"^Job (\d+) has been submitted with SLURM jobid (\d+) \(log: (.+)\)\.$", text, flags=re.MULTILINE
    )
    for _, slurm_id, slurm_log in found:
        assert str(workdir) in slurm_log
        if slurm_id not in lost:
            assert Path(slurm_log).is_file(), f"no Slurm log {slurm_log} for job {slurm_id}"
    return [(job, slurm_id) for job, slurm_id, _ in found]


def _check_cluster_jobs(out: str, workdir: Path, cluster: SlurmCluster, lost: Collection[str] = ()) -> dict[str, str]:
    """Every non-local job was submitted with sbatch and its last submission completed on the
    cluster; returns {Snakemake job id: Slurm job id of its last submission}. ``lost``: Slurm jobs
    whose node failed (see :func:`_submissions`)."""
    ran = _executed(out)
    assert ran["rule"], "no job ran on the cluster: is everything a localrule?"
    submitted = dict(_submissions(out, workdir, lost))  # the last submission of each job wins
    completed = cluster.completed_jobs()
    for rule, jobid in ran["rule"]:
        assert jobid in submitted, f"rule {rule} (job {jobid}) was not submitted to Slurm"
        state = completed.get(submitted[jobid], {}).get("JobState")
        assert state == "COMPLETED", f"rule {rule}: Slurm job {submitted[jobid]} is {state}"
    assert sorted(submitted) == sorted(j for _, j in ran["rule"]), "a Slurm job for no rule of the run"
    return submitted


def _check_spread(nodes_of: dict[str, str], nodes: list[str]) -> None:
    """The jobs ran on every node of the cluster (``nodes_of``: {Slurm job id: node})."""
    used = sorted(set(nodes_of.values()))
    assert used == sorted(nodes), f"jobs ran on {used}, not on every node of {nodes}: {nodes_of}"


def _compare_results(local_dir: Path, slurm_dir: Path, *, subset: bool) -> None:
    """The cluster run's results equal the local run's: the same files (for a ``subset``: files the
    local run has too), the CSVs cell for cell (measured times aside), non-empty figures."""
    results_local, results_slurm = local_dir / "results", slurm_dir / "results"
    files = _files(results_slurm)
    assert files, "the cluster run wrote nothing under results/"
    if subset:
        assert files <= _files(results_local), f"not in the local run: {sorted(files - _files(results_local))}"
        files -= REPORT_OUTPUTS
    else:
        assert files == _files(results_local)
    csvs = sorted(f for f in files if f.endswith(".csv"))
    assert csvs, "no CSV to compare"
    for rel in csvs:
        a, b = pd.read_csv(results_local / rel), pd.read_csv(results_slurm / rel)
        if "claim_id" in a.columns:  # findings: verdicts of timing claims follow the measured times
            a, b = (d[~d.claim_id.isin(TIMED_CLAIMS)].reset_index(drop=True) for d in (a, b))
        pd.testing.assert_frame_equal(untimed(a), untimed(b), check_exact=True, obj=rel)
    for rel in files:
        if rel.endswith((".png", ".pdf")):
            assert (results_slurm / rel).stat().st_size > 0, rel


def _check_logs(local_dir: Path, slurm_dir: Path, *, subset: bool) -> None:
    """Rule logs come back to the working directory, as in a local run."""
    logs_local, logs_slurm = _files(local_dir / "logs"), _files(slurm_dir / "logs")
    assert logs_slurm, "no rule log came back under logs/"
    if subset:
        assert logs_slurm <= logs_local, f"not in the local run: {sorted(logs_slurm - logs_local)}"
    else:
        assert logs_slurm == logs_local


def _check_setup() -> None:
    if not (SNAKEFILE.exists() and SMOKE.exists()):
        pytest.fail(f"{SNAKEFILE} or {SMOKE} missing: nothing to run on the cluster")
    if not Path(DATA_MIRROR).is_dir():
        pytest.fail(f"data mirror {DATA_MIRROR} not found: set FMEASURE_DATA_MIRROR")


# The comparison comes first in this module: pytest-xdist gives its worker no other module while
# more than two of this module's tests are pending, so no module waits behind the cluster run.
@needs_cluster
def test_slurm_run_of_data_and_theory_stages_matches_local_run(slurm_cluster, request, tmp_path, record_property):
    _check_setup()
    slurm_dir = tmp_path / "slurm"
    slurm_dir.mkdir()
    run = _slurm_run(slurm_cluster, slurm_dir, tmp_path / "slurm.log", tuple(SUBSET))
    try:
        slurm_out = run.finish()
    finally:
        run.kill()
    record_property("slurm_seconds", round(run.seconds, 1))
    print(f"\ndata+theory stages' wall time on the two-node cluster: {run.seconds:.1f} s")

    submitted = _check_cluster_jobs(slurm_out, slurm_dir, slurm_cluster)
    assert len(submitted) >= 6, f"only {len(submitted)} cluster jobs: the subset no longer exercises the cluster"
    _check_spread(slurm_cluster.nodes_of(submitted.values()), slurm_cluster.nodes)

    # the local run to compare with: the session's smoke run (conftest.py), same config; fetched
    # after the cluster run, so that both can run at once on two workers
    local_dir, local_out = request.getfixturevalue("smoke_output")
    ran_local, ran_slurm = _executed(local_out), _executed(slurm_out)
    local_rules = {n for n, _ in ran_local["rule"] + ran_local["localrule"]}
    assert {n for n, _ in ran_slurm["rule"]} <= local_rules
    _compare_results(local_dir, slurm_dir, subset=True)
    _check_logs(local_dir, slurm_dir, subset=True)


def test_spread_check_fails_when_one_node_ran_every_job():
    """The spread check above can fail: jobs all on one node of two are refused."""
    with pytest.raises(AssertionError, match="not on every node"):
        _check_spread({"1": "fmnode1", "2": "fmnode1"}, ["fmnode1", "fmnode2"])
    _check_spread({"1": "fmnode1", "2": "fmnode2"}, ["fmnode1", "fmnode2"])


def test_submission_check_fails_on_a_missing_log_unless_the_node_failed(tmp_path):
    """Each submission's Slurm log must exist; only a job whose node failed may have none."""
    logs = tmp_path / ".snakemake" / "slurm_logs"
    logs.mkdir(parents=True)
    (logs / "7.log").write_text("done\n")
    out = "".join(
        f"Job {job} has been submitted with SLURM jobid {sid} (log: {logs / sid}.log).\n"
        for job, sid in [("3", "5"), ("3", "7")]
    )
    with pytest.raises(AssertionError, match="no Slurm log .*5.log for job 5"):
        _submissions(out, tmp_path)
    assert _submissions(out, tmp_path, lost={"5"}) == [("3", "5"), ("3", "7")]
    (logs / "7.log").unlink()  # the last submission's log is required even so
    with pytest.raises(AssertionError, match="no Slurm log .*7.log for job 7"):
        _submissions(out, tmp_path, lost={"5"})


#: Seconds to wait for a job to be RUNNING on the node that is then set DOWN.
FAILURE_WAIT = 300


@needs_cluster
@pytest.mark.cluster
def test_slurm_smoke_run_survives_a_node_failure(slurm_cluster, request, tmp_path, record_property):
    """The whole smoke config on the two-node cluster, node 2 set DOWN once it runs a job: the run
    finishes, every table equals the local run's, and each job the node held was resubmitted."""
    _check_setup()
    victim = slurm_cluster.nodes[-1]
    slurm_dir = tmp_path / "slurm"
    slurm_dir.mkdir()
    run = _slurm_run(slurm_cluster, slurm_dir, tmp_path / "slurm.log")
    try:
        deadline = time.monotonic() + FAILURE_WAIT
        held: list[str] = []
        while not held and time.monotonic() < deadline and run.proc.poll() is None:
            held = [j for j, node in slurm_cluster.running_jobs().items() if node == victim]
            if not held:
                time.sleep(0.3)
        assert held, f"no job ran on {victim} within {FAILURE_WAIT} s (or the run ended first)"
        slurm_cluster.set_node_state(victim, "DOWN", reason="node failure test")
        failed_at = time.monotonic() - run.t0
        slurm_out = run.finish()
    finally:
        run.kill()
        if slurm_cluster.node_state(victim) not in (None, "idle"):
            slurm_cluster.set_node_state(victim, "RESUME")
    record_property("slurm_seconds", round(run.seconds, 1))
    print(f"\nsmoke run on the two-node cluster, {victim} DOWN after {failed_at:.0f} s: {run.seconds:.1f} s")

    # Every job that the node held ended NODE_FAIL there, and its Snakemake job was submitted again
    # and completed on another node: none was lost.
    records = slurm_cluster.job_records()
    node_failed = {r["JobId"] for r in records if r["JobState"] == "NODE_FAIL"}
    assert node_failed, f"no job ended NODE_FAIL on {victim}: it held {held}"
    assert all(r["NodeList"] == victim for r in records if r["JobId"] in node_failed)
    submissions = _submissions(slurm_out, slurm_dir, lost=node_failed)
    submitted = _check_cluster_jobs(slurm_out, slurm_dir, slurm_cluster, lost=node_failed)
    job_of = {slurm_id: job for job, slurm_id in submissions}
    for slurm_id in node_failed:
        assert slurm_id in job_of, f"Slurm job {slurm_id} (NODE_FAIL) was not submitted by this run"
        again = submitted[job_of[slurm_id]]
        assert again != slurm_id, f"Snakemake job {job_of[slurm_id]} was not resubmitted after NODE_FAIL"
        assert slurm_cluster.nodes_of([again])[again] != victim
    # and the node stayed out of service: no job submitted after the failure ran there
    after = {j: n for j, n in slurm_cluster.nodes_of(submitted.values()).items() if int(j) > max(map(int, node_failed))}
    assert after and victim not in after.values(), f"jobs after the failure: {after}"

    local_dir, local_out = request.getfixturevalue("smoke_output")
    ran_local, ran_slurm = _executed(local_out), _executed(slurm_out)
    names = lambda jobs: sorted(n for n, _ in jobs)  # noqa: E731
    assert names(ran_slurm["rule"] + ran_slurm["localrule"]) == names(ran_local["rule"] + ran_local["localrule"])
    _compare_results(local_dir, slurm_dir, subset=False)
    _check_logs(local_dir, slurm_dir, subset=False)


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


@needs_cluster
def test_slurm_cluster_spreads_jobs_and_takes_a_node_out(slurm_cluster, tmp_path):
    """The harness's nodes: two concurrent one-CPU jobs run on different nodes, a two-CPU job fits
    on one node; a node set DOWN gets no job until it is resumed."""
    env = slurm_cluster.env()

    def submit(*args: str) -> str:
        cmd = ["sbatch", "--parsable", "-o", str(tmp_path / "%j.out"), *args]
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=30, check=True)
        return res.stdout.strip().split(";")[0]

    def wait(jobs: list[str]) -> dict[str, str]:
        deadline = time.monotonic() + 60
        while not set(jobs) <= set(slurm_cluster.completed_jobs()) and time.monotonic() < deadline:
            time.sleep(0.3)
        done = slurm_cluster.completed_jobs()
        assert all(done.get(j, {}).get("JobState") == "COMPLETED" for j in jobs), {j: done.get(j) for j in jobs}
        return slurm_cluster.nodes_of(jobs)

    pair = [submit("-c", "1", "--wrap", "sleep 2") for _ in range(2)]
    wide = submit("-c", "2", "--wrap", "true")
    nodes = wait([*pair, wide])
    _check_spread({j: nodes[j] for j in pair}, slurm_cluster.nodes)
    assert nodes[wide] in slurm_cluster.nodes

    first, last = slurm_cluster.nodes[0], slurm_cluster.nodes[-1]
    slurm_cluster.set_node_state(last, "DOWN", reason="harness test")
    try:
        assert slurm_cluster.node_state(last).startswith("down")
        assert set(wait([submit("--wrap", "true") for _ in range(2)]).values()) == {first}
    finally:
        slurm_cluster.set_node_state(last, "RESUME")
    deadline = time.monotonic() + 30
    while slurm_cluster.node_state(last) != "idle" and time.monotonic() < deadline:
        time.sleep(0.3)
    assert slurm_cluster.node_state(last) == "idle"
