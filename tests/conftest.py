"""Fixtures shared by several test modules."""

import pytest
from _workflow import run_snakemake


@pytest.fixture(scope="session")
def smoke_output(tmp_path_factory):
    """The full smoke run of the test session: its folder and Snakemake's output.

    Once per pytest process: with pytest-xdist's ``--dist loadfile`` (pyproject.toml) the smoke
    module and the Slurm module may land on two workers, and each then makes its own run."""
    workdir = tmp_path_factory.mktemp("smoke")
    out = run_snakemake(workdir)
    return workdir, out.stdout + out.stderr


@pytest.fixture(scope="session")
def smoke_run(smoke_output):
    """The folder of the session's smoke run (read its outputs; copy it before running again)."""
    return smoke_output[0]
