"""The files every release carries: the citation, the license, one version, the changelog, and a
pre-commit configuration that runs CI's lint checks."""

import ast
import copy
import importlib.metadata
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml

import fmeasure

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


@pytest.fixture(scope="module")
def cff():
    return yaml.safe_load((ROOT / "CITATION.cff").read_text())


@pytest.fixture(scope="module")
def cff_validator():
    schema = json.loads((ROOT / "tests" / "schemas" / "cff-1.2.0.json").read_text())
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def test_citation_cff_is_valid_cff_1_2_0(cff, cff_validator):
    errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in cff_validator.iter_errors(cff)]
    assert not errors, errors
    assert cff["cff-version"] == "1.2.0"


def test_the_schema_check_refuses_a_broken_citation(cff, cff_validator):
    # the check above can fail: a citation without authors, or with a misspelt key, is refused
    no_authors = {k: v for k, v in cff.items() if k != "authors"}
    misspelt = dict(cff, autors=cff["authors"])
    bad_month = copy.deepcopy(cff)
    bad_month["preferred-citation"]["month"] = 13
    for broken in (no_authors, misspelt, bad_month):
        assert not cff_validator.is_valid(broken)


def test_citation_prefers_the_paper_it_reproduces(cff):
    paper = cff["preferred-citation"]
    assert paper["type"] == "article"
    assert paper["title"].lower() == "on the bayes-optimality of f-measure maximizers"
    assert [a["family-names"] for a in paper["authors"]] == [
        "Waegeman",
        "Dembczyński",
        "Jachnik",
        "Cheng",
        "Hüllermeier",
    ]
    assert (paper["journal"], paper["volume"], paper["year"]) == ("Journal of Machine Learning Research", 15, 2014)
    assert cff["license"] == PYPROJECT["project"]["license"] == "MIT"
    # the version is written in one place only (src/fmeasure/__init__.py), not here
    assert "version" not in cff


def test_license_is_mit_for_the_fmeasure_developers():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert re.search(r"^Copyright \(c\) \d{4} the fmeasure developers$", text, re.M)
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]


def test_the_version_is_written_once_and_the_command_prints_it():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "fmeasure.__version__"}
    installed = importlib.metadata.version("fmeasure")
    assert fmeasure.__version__ == installed
    r = subprocess.run([sys.executable, "-m", "fmeasure", "--version"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"fmeasure {installed}"


def test_the_changelog_starts_with_this_version():
    headings = re.findall(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings and headings[0] == fmeasure.__version__, headings[:3]


def test_pre_commit_runs_the_lint_checks_of_ci():
    hooks = [
        h for repo in yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())["repos"] for h in repo["hooks"]
    ]
    ci = (ROOT / ".ci" / "run").read_text()
    ruff = next(r for r in PYPROJECT["project"]["optional-dependencies"]["test"] if re.match(r"ruff\b", r))
    entries = {h["entry"] for h in hooks}
    assert entries == {"ruff check .", "ruff format --check ."}
    for entry in entries:
        assert re.search(rf"\bruff {re.escape(entry.removeprefix('ruff '))}", ci), f"CI does not run {entry!r}"
    for h in hooks:
        assert h["additional_dependencies"] == [ruff] and h["pass_filenames"] is False, h["id"]


def test_the_docs_extra_holds_what_docs_conf_loads():
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text())
    values = {
        t.id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name) and t.id in ("extensions", "html_theme")
    }
    wanted = {e.split(".")[0].replace("_", "-") for e in values["extensions"]} | {values["html_theme"]}
    extra = {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0] for r in PYPROJECT["project"]["optional-dependencies"]["docs"]}
    assert wanted <= extra, sorted(wanted - extra)
