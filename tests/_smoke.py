"""The smoke run of the real Snakemake engine (config/smoke.yaml on the slices in tests/data).

One run serves every test that only reads its outputs (``smoke_run`` in conftest.py); tests that
must run the engine again (a forced rerun, a killed job, the Slurm executor) start from its
folder or compare with it.
"""

import subprocess
import sys
from pathlib import Path

from _mirror import ROOT, TEST_DATA, snakemake_env

SMOKE_CONFIG = ROOT / "config" / "smoke.yaml"


def snakemake_cmd(workdir: Path, *extra) -> list[str]:
    """The command of a Snakemake run of the smoke config in ``workdir``."""
    return [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(ROOT / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        str(SMOKE_CONFIG),
        *extra,
    ]


def run_smoke(workdir: Path, *extra, timeout: int = 1200) -> subprocess.CompletedProcess:
    """Run the smoke config in ``workdir`` on 2 cores; fail with Snakemake's output tail."""
    cmd = snakemake_cmd(workdir, "--cores", "2", "--nocolor", *extra)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=snakemake_env(str(TEST_DATA)))
    assert out.returncode == 0, f"snakemake failed:\n{out.stdout[-4000:]}\n{out.stderr[-8000:]}"
    return out
