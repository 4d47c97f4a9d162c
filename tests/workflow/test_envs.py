"""envs/fmeasure.yaml (conda, for `--sdm conda`) lists the same packages as pyproject.toml."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
# conda-forge names for the PyPI names that differ
CONDA_NAME = {}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower()


def test_conda_env_matches_pyproject_dependencies():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wanted = {CONDA_NAME.get(_name(d), _name(d)): d for d in deps}
    env = yaml.safe_load((ROOT / "envs" / "fmeasure.yaml").read_text())
    have = {}
    for item in env["dependencies"]:
        for req in item["pip"] if isinstance(item, dict) else [item]:
            have[_name(req)] = req
    missing = sorted(set(wanted) - set(have))
    assert not missing, f"envs/fmeasure.yaml lacks {missing}"
    for name, req in wanted.items():
        spec = re.sub(r"^[^<>=!~]*", "", req.split(";")[0]).replace(" ", "")
        got = re.sub(r"^[^<>=!~]*", "", have[name]).replace(" ", "")
        assert spec == got, f"{name}: pyproject says {spec!r}, envs/fmeasure.yaml says {got!r}"
