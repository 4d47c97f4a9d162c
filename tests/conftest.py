"""Fixtures shared by several test modules."""

import pytest
from _workflow import run_snakemake


@pytest.fixture(scope="session")
def smoke_output(tmp_path_factory):
    """The one full smoke run of the test session: its folder and Snakemake's output."""
    workdir = tmp_path_factory.mktemp("smoke")
    out = run_snakemake(workdir)
    return workdir, out.stdout + out.stderr


@pytest.fixture(scope="session")
def smoke_run(smoke_output):
    """The folder of the session's smoke run (read its outputs; copy it before running again)."""
    return smoke_output[0]
