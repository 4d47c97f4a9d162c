"""envs/fmeasure.yaml (conda, for `--sdm conda`) lists the same packages as pyproject.toml: the
library's dependencies and the pipeline extra, each with the same version bound, and nothing else."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
# conda-forge names for the PyPI names that differ
CONDA_NAME = {}
#: what a conda environment needs beside the packages: the interpreter and pip (for the pip: block)
CONDA_ONLY = {"python", "pip"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower()


def _spec(requirement: str) -> str:
    return re.sub(r"^[^<>=!~]*", "", requirement.split(";")[0]).replace(" ", "")


def _extra(name: str) -> list[str]:
    """An extra's requirements, with the extras of fmeasure it names (``fmeasure[pipeline]``) expanded."""
    out = []
    for req in PROJECT["optional-dependencies"][name]:
        own = re.fullmatch(r"fmeasure\[([\w,-]+)\]", req.replace(" ", ""))
        out += [r for e in own.group(1).split(",") for r in _extra(e)] if own else [req]
    return out


def _conda_env() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "envs" / "fmeasure.yaml").read_text())
    have = {}
    for item in env["dependencies"]:
        for req in item["pip"] if isinstance(item, dict) else [item]:
            have[_name(req)] = req
    return have


def test_conda_env_matches_the_library_and_the_pipeline_extra():
    deps = PROJECT["dependencies"] + _extra("pipeline")
    wanted = {CONDA_NAME.get(_name(d), _name(d)): d for d in deps}
    have = _conda_env()
    missing = sorted(set(wanted) - set(have))
    assert not missing, f"envs/fmeasure.yaml lacks {missing}"
    extra = sorted(set(have) - set(wanted) - CONDA_ONLY)
    assert not extra, f"envs/fmeasure.yaml lists {extra}, which pyproject.toml's dependencies and pipeline extra do not"
    for name, req in wanted.items():
        assert _spec(req) == _spec(have[name]), (
            f"{name}: pyproject says {_spec(req)!r}, envs/fmeasure.yaml says {_spec(have[name])!r}"
        )


def test_every_package_has_one_version_bound_across_the_dependencies_and_extras():
    """A package named in two places (matplotlib in the pipeline and docs extras) is bounded alike."""
    seen: dict[str, tuple[str, str]] = {}
    places = {"dependencies": PROJECT["dependencies"], **PROJECT["optional-dependencies"]}
    for place, reqs in places.items():
        for req in reqs:
            if _name(req) == "fmeasure":
                continue
            name, spec = _name(req), _spec(req)
            if name in seen:
                assert seen[name][1] == spec, f"{name}: {seen[name][0]} says {seen[name][1]!r}, {place} says {spec!r}"
            seen[name] = (place, spec)


def test_the_extras_that_run_the_pipeline_bring_it():
    """The test suite runs the workflow, and the Slurm profile is the workflow on a cluster: both
    extras install the pipeline's packages; the library's dependencies hold none of them."""
    pipeline = {_name(r) for r in _extra("pipeline")}
    assert {"snakemake", "statsmodels", "scikit-posthocs", "scikit-multilearn-ng", "matplotlib"} <= pipeline
    for extra in ("test", "slurm"):
        assert pipeline <= {_name(r) for r in _extra(extra)}, extra
    assert not pipeline & {_name(r) for r in PROJECT["dependencies"]}
