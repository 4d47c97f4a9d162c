"""tools/rule_coverage.py: which rules and scripts of the workflow a set of Snakemake runs executed."""

import re
import subprocess
import sys

import pytest
from _mirror import ROOT

TOOL = ROOT / "tools" / "rule_coverage.py"


def _rules_in_workflow() -> dict[str, str | None]:
    """{rule: script} read here independently of the tool: each .smk file split at its rules."""
    out = {}
    for path in [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]:
        blocks = re.split(r"^(?=(?:rule|checkpoint) \w+:)", path.read_text(), flags=re.MULTILINE)
        for block in blocks:
            head = re.match(r"(?:rule|checkpoint) (\w+):", block)
            if head:
                script = re.search(r'script:\s*"\.\./scripts/([\w.]+)"', block)
                out[head.group(1)] = script.group(1) if script else None
    return out


@pytest.fixture(autouse=True)
def _no_fake_logs_left(tmp_path):
    """Remove this module's made-up logs afterwards: a coverage count over the test run's
    folders (``--basetemp``) must see the real runs' logs only."""
    yield
    for log in tmp_path.rglob("*.snakemake.log"):
        log.unlink()


def _log(folder, rules, name="2026-01-01T000000.000000.snakemake.log"):
    path = folder / ".snakemake" / "log" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(f"[Thu Jan  1 00:00:00 2026]\nlocalrule {r}:\n    jobid: {i}\n" for i, r in enumerate(rules))
    )


def _run(*folders):
    return subprocess.run([sys.executable, TOOL, *map(str, folders)], capture_output=True, text=True)


def test_every_rule_in_the_logs_gives_full_coverage(tmp_path):
    rules = _rules_in_workflow()
    assert len(rules) > 50 and sum(s is not None for s in rules.values()) > 40
    half = sorted(rules)[: len(rules) // 2]
    _log(tmp_path / "a", half)
    _log(tmp_path / "b" / "nested", sorted(rules)[len(rules) // 2 :])
    res = _run(tmp_path / "a", tmp_path / "b")
    assert res.returncode == 0, res.stdout + res.stderr
    scripts = {s for s in rules.values() if s}
    assert f"rules:   {len(rules)} of {len(rules)} ran" in res.stdout
    assert f"scripts: {len(scripts)} of {len(scripts)} ran" in res.stdout


def test_a_rule_never_run_is_named_and_fails(tmp_path):
    rules = _rules_in_workflow()
    missing = next(r for r, s in sorted(rules.items()) if s)
    _log(tmp_path, [r for r in rules if r != missing] + ["not_a_rule_of_the_workflow"])
    res = _run(tmp_path)
    assert res.returncode == 1
    assert f"rules:   {len(rules) - 1} of {len(rules)} ran" in res.stdout
    assert f"never ran: rule {missing} (script {rules[missing]})" in res.stdout


def test_a_missing_folder_is_one_line(tmp_path):
    res = _run(tmp_path / "nope")
    assert res.returncode == 2 and res.stderr.strip() == f"rule_coverage.py: {tmp_path / 'nope'}: not a folder"
