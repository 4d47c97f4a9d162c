"""The test run that ``test_teardown.py`` terminates: it starts the children a test run starts (the
Slurm daemons, a batch job running on the cluster, a Snakemake run and its job) and then waits. Only ``test_teardown.py`` runs it, by
path; its name (no ``test_`` prefix) keeps it out of the suite's collection."""

import subprocess
import time

import pytest
from _workflow import run_snakemake
from slurm.cluster import SlurmCluster


@pytest.fixture
def cluster(tmp_path):
    """The cluster as test_slurm.py's fixture runs it: stopped on teardown."""
    with SlurmCluster(tmp_path / "slurm") as c:
        yield c


def test_start_the_children_then_wait_to_be_terminated(cluster, tmp_path):
    (tmp_path / "cluster-up").touch()
    # a batch job that runs until it is killed (Slurm runs it under slurmstepd, outside our groups)
    out = str(tmp_path / "slurm-%j.out")  # not the working directory: the clone stays clean
    subprocess.run(
        ["sbatch", "-o", out, "--wrap", "sleep 3600"], env=cluster.env(), check=True, capture_output=True, timeout=30
    )
    deadline = time.monotonic() + 30
    while not cluster.running_jobs() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert cluster.running_jobs(), "the batch job never started"
    (tmp_path / "batch-job-running").touch()
    workdir = tmp_path / "run"
    workdir.mkdir()
    mark = workdir / "job-started"
    # one job that marks that it runs, then waits without using the CPU
    (tmp_path / "Snakefile").write_text(
        f'rule wait:\n    output: "never"\n    shell: "touch {mark} && tail -f {mark}"\n'
    )
    run_snakemake(workdir, configs=(), snakefile=tmp_path / "Snakefile", cores=1, timeout=3600)
    pytest.fail("the Snakemake run ended; it was to wait until the test run is terminated")
