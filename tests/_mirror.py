"""Where the tests find data: the slices shipped in tests/data, and the full-data mirror if any.

The smoke runs need only ``tests/data`` (laid out as a mirror). Tests on the full datasets use the
first existing folder of ``$FMEASURE_DATA_MIRROR`` (``os.pathsep``-separated) or, failing that,
``../shared/datasets`` next to the repository, and are skipped with the reason when neither exists
(CI sets the mirror, so they run there).
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_DATA = ROOT / "tests" / "data"


def full_mirror() -> Path | None:
    """The folder holding the full datasets (with MANIFEST.md), or None."""
    candidates = [p for p in os.environ.get("FMEASURE_DATA_MIRROR", "").split(os.pathsep) if p]
    candidates.append(str(ROOT.parent / "shared" / "datasets"))
    for folder in map(Path, candidates):
        if (folder / "MANIFEST.md").is_file():
            return folder
    return None


def no_mirror_reason() -> str:
    return (
        "no full-data mirror: set FMEASURE_DATA_MIRROR to the datasets folder (with MANIFEST.md) "
        f"or put it at {ROOT.parent / 'shared' / 'datasets'}"
    )


def snakemake_env(mirror: str | None = None) -> dict:
    """Environment for a Snakemake subprocess: this checkout's package first on the path (its
    jobs run in other working directories, where a relative PYTHONPATH would not resolve), and
    ``FMEASURE_DATA_MIRROR`` set to ``mirror`` (default: the shipped test data)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    env["FMEASURE_DATA_MIRROR"] = mirror if mirror is not None else str(TEST_DATA)
    return env
