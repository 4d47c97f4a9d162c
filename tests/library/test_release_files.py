"""The files every release carries: the citation, the license, one version, the changelog, the
package's metadata, the README's two commands that CI runs, and a pre-commit configuration that
runs CI's lint checks."""

import ast
import copy
import datetime
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
    bad_date = dict(cff, **{"date-released": "21 November 2026"})
    for broken in (no_authors, misspelt, bad_month, bad_date):
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


def test_citation_names_this_version_and_its_release_date(cff):
    # src/fmeasure/__init__.py holds the version; the citation and the changelog repeat it
    assert cff["version"] == fmeasure.__version__
    released = _changelog_releases()[0]
    assert (cff["version"], cff["date-released"]) == (released["version"], released["date"]), released
    assert isinstance(cff["date-released"], str), "quote date-released: the schema wants a string"


def test_citation_and_pyproject_name_one_repository(cff):
    """No public repository is named yet; once there is one, CITATION.cff's repository-code and
    pyproject.toml's Source URL are the same address, and the changelog's links point into it."""
    urls = PYPROJECT["project"].get("urls", {})
    assert cff.get("repository-code") == urls.get("Source"), (cff.get("repository-code"), urls.get("Source"))
    paper = cff["preferred-citation"]["url"]
    assert urls.get("Paper") == paper
    links = dict(re.findall(r"^\[([^\]]+)\]: (\S+)$", (ROOT / "CHANGELOG.md").read_text(), re.M))
    if "Source" in urls:
        assert set(links) >= {"Unreleased"} | {r["version"] for r in _changelog_releases()}, sorted(links)
        assert all(u.startswith(urls["Source"]) for u in links.values()), links
    else:
        assert not links, f"the changelog links to {links} but pyproject.toml names no Source"


def test_pyproject_classifiers_and_keywords():
    project = PYPROJECT["project"]
    classifiers = project["classifiers"]
    assert len([c for c in classifiers if c.startswith("Development Status ::")]) == 1
    assert {
        "Intended Audience :: Science/Research",
        "Operating System :: OS Independent",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    } <= set(classifiers)
    # the license is an SPDX expression (license = "MIT"): setuptools refuses a License classifier beside it
    assert not [c for c in classifiers if c.startswith("License ::")]
    minimum = tuple(map(int, re.fullmatch(r">=(\d+)\.(\d+)", project["requires-python"]).groups()))
    versions = [
        tuple(map(int, m.groups()))
        for c in classifiers
        if (m := re.fullmatch(r"Programming Language :: Python :: (\d+)\.(\d+)", c))
    ]
    assert versions and min(versions) == minimum and versions == sorted(versions), versions
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert set(cff["keywords"]) <= set(project["keywords"]), sorted(set(cff["keywords"]) - set(project["keywords"]))


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


#: Keep a Changelog's groups, in its order
CHANGE_GROUPS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")


def _changelog_sections() -> list[tuple[str, str]]:
    """(level-2 heading, its text up to the next one) of CHANGELOG.md, in order."""
    text = (ROOT / "CHANGELOG.md").read_text()
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return list(zip(parts[1::2], parts[2::2]))


def _changelog_releases() -> list[dict]:
    """The released versions of CHANGELOG.md, newest first: version, date, text."""
    out = []
    for heading, text in _changelog_sections()[1:]:
        m = re.fullmatch(r"\[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})", heading)
        assert m, f"a release heading reads '## [X.Y.Z] - YYYY-MM-DD', not {heading!r}"
        out.append({"version": m.group(1), "date": m.group(2), "text": text})
    return out


def test_the_changelog_keeps_a_changelog():
    sections = _changelog_sections()
    assert sections and sections[0][0] == "[Unreleased]", [h for h, _ in sections[:2]]
    releases = _changelog_releases()
    # the newest release is this version (Unreleased holds what came after it)
    assert releases and releases[0]["version"] == fmeasure.__version__, [r["version"] for r in releases]
    versions = [tuple(map(int, r["version"].split("."))) for r in releases]
    dates = [datetime.date.fromisoformat(r["date"]) for r in releases]
    assert versions == sorted(set(versions), reverse=True), versions
    assert dates == sorted(dates, reverse=True) and dates[0] <= datetime.date.today(), dates
    for heading, text in sections:
        groups = re.split(r"^### (.+)$", text, flags=re.M)
        assert not groups[0].strip(), f"{heading}: text before its first ### group"
        names = groups[1::2]
        assert names == [g for g in CHANGE_GROUPS if g in names], f"{heading}: groups {names}, not in {CHANGE_GROUPS}"
        for name, body in zip(names, groups[2::2]):
            assert re.search(r"^- \S", body, re.M), f"{heading}, {name}: no entry"
        assert heading == "[Unreleased]" or names, f"{heading}: no ### group"


def _quick_start_commands() -> list[str]:
    text = (ROOT / "README.md").read_text().split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def _extras_installed(command: str) -> set[str]:
    """The distributions ``pip install -e '.[a,b]'`` in ``command`` installs, fmeasure's extras expanded."""
    m = re.search(r"pip install (?:-q )?-e (?:'\.\[([\w,]+)\]'|\.(?= ))", command)
    assert m, f"no pip install -e of the checkout in {command!r}"
    extras = PYPROJECT["project"]["optional-dependencies"]
    wanted, todo = set(), list((m.group(1) or "").split(",") if m.group(1) else [])
    names = {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0] for r in PYPROJECT["project"]["dependencies"]}
    while todo:
        extra = todo.pop()
        wanted.add(extra)
        for req in extras[extra]:
            own = re.fullmatch(r"fmeasure\[([\w,]+)\]", req)
            todo += [e for e in own.group(1).split(",") if e not in wanted] if own else []
            names |= set() if own else {re.split(r"[<>=!~\[ ;]", req, maxsplit=1)[0]}
    return names


def test_the_readme_starts_with_two_commands_and_ci_runs_the_second():
    """Command 1 regenerates the results, command 2 runs the tests; each sets up what it needs in a
    fresh clone, and CI (.ci/run) runs command 2 verbatim."""
    regenerate, test = _quick_start_commands()
    assert regenerate.startswith("python3 -m venv .venv && ") and "snakemake" in regenerate.split("&&")[-1]
    assert test.startswith("python3 -m venv .venv && ") and test.endswith(".venv/bin/python -m pytest")
    assert {"snakemake", "statsmodels", "scikit-posthocs", "matplotlib"} <= _extras_installed(regenerate)
    assert {"snakemake", "pytest", "snakemake-executor-plugin-slurm"} <= _extras_installed(test)
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test in ci, "CI does not run the README's test command verbatim"


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
