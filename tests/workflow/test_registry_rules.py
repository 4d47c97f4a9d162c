"""The workflow takes its names from fmeasure.experiments.registry.

* Wildcards that stand for a name (a learner, a model, a surrogate, a data model) are constrained to
  the registry's list, built in workflow/rules/common.smk: checked on the workflow as Snakemake
  builds it, and again with a name added to the registry, which the rules must then accept.
* No rule file writes a list of names in a wildcard constraint by hand.
* The Snakefile includes one rule file per stage of the registry (and the rule files built like
  one), and each stage's file registers the stage's targets.

Each static check is a function of the registry returning its differences; it is also run on a
registry holding the made-up stage FAKE, or on a rule file written the old way, to show it fails.
"""

import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from _mirror import ROOT, snakemake_env

from fmeasure.experiments import registry
from fmeasure.experiments.registry import pattern

RULES = ROOT / "workflow" / "rules"
PROBE = Path(__file__).with_name("_rule_constraints.py")
#: The rule files with wildcards of their own beside the registry's: the peers stage's settings
#: (default, tuned) and variants (its runs, and the check's reruns).
OWN_NAMES = ("peers.smk",)
#: (rule, wildcard) -> the registry's list of the names the wildcard stands for.
NAME_WILDCARDS = {
    ("parametric_fit_predict", "learner"): "PARAMETRIC_LEARNERS",
    ("scaling_cell", "learner"): "SCALING_LEARNERS",
    ("trees_run", "model"): "TREE_MODELS",
    ("foptimal_run", "model"): "FOPTIMAL_MODELS",
    ("theory_lp_solve", "surrogate"): "THEORY_SURROGATES",
    ("simulations_run", "data_model"): "SIM_DATA_MODELS",
    ("peers_run", "peer"): "PEER_SYSTEMS",
    ("peers_env", "peer"): "PEER_SYSTEMS",
}


# ---- the rule files as written


def _hand_written_constraints(text: str, where: str) -> list[str]:
    """Each wildcard constraint of ``text`` written as an alternation of names (``"BR|LFP|EFP"``)."""
    found = re.findall(r'^\s+(\w+)\s*=\s*r?"([\w-]+(?:\|[\w-]+)+)",?\s*$', text, flags=re.MULTILINE)
    return [f"{where}: {w}={c!r} lists names by hand; build it from the registry (common.smk)" for w, c in found]


def test_no_rule_file_lists_names_in_a_wildcard_constraint():
    found = [
        line
        for path in sorted(RULES.glob("*.smk"))
        if path.name not in OWN_NAMES
        for line in _hand_written_constraints(path.read_text(), path.name)
    ]
    assert found == []


def test_a_constraint_written_by_hand_is_found():
    old = 'wildcard_constraints:\n    learner="BR|LFP|EFP",\n    chunk=r"\\d+-\\d+",\n'
    assert _hand_written_constraints(old, "parametric.smk") == [
        "parametric.smk: learner='BR|LFP|EFP' lists names by hand; build it from the registry (common.smk)"
    ]
    assert _hand_written_constraints('    model=TREE_MODEL,\n    fit="[A-Za-z0-9_]+",\n', "x.smk") == []


def _includes(reg) -> list[str]:
    """The Snakefile includes common.smk first, every stage's rule file (and those built like one),
    then report.smk after every stage (it reads all their targets), and nothing else."""
    included = re.findall(r'^include: "workflow/rules/(\w+)\.smk"', (ROOT / "Snakefile").read_text(), re.MULTILINE)
    want = ["common", *reg.STAGES, *reg.SEPARATE_TARGETS, "report"]
    out = [f"Snakefile: no include of workflow/rules/{s}.smk" for s in want if s not in included]
    out += [f"Snakefile: includes workflow/rules/{s}.smk, no stage of the registry" for s in included if s not in want]
    if included[:1] != ["common"]:
        out.append(f"Snakefile: includes {included[:1]} first, not common.smk")
    if "report" in included:
        out += [
            f"Snakefile: includes {s}.smk after report.smk"
            for s in reg.STAGES
            if s in included[included.index("report") :]
        ]
    return out


def _stage_targets(reg) -> list[str]:
    """Each stage's rule file registers its targets, ``STAGE_TARGETS["<stage>"]``; no file registers
    a stage the registry lacks."""
    out = []
    for stage in reg.STAGES:
        path = RULES / f"{stage}.smk"
        if not path.is_file() or not re.search(rf'^STAGE_TARGETS\["{stage}"\] =', path.read_text(), re.MULTILINE):
            out.append(f'workflow/rules/{stage}.smk: no STAGE_TARGETS["{stage}"] of the stage')
    for path in sorted(RULES.glob("*.smk")):
        out += [
            f"{path.name}: STAGE_TARGETS[{s!r}], no stage of the registry"
            for s in re.findall(r'^STAGE_TARGETS\["([^"]+)"\] =', path.read_text(), re.MULTILINE)
            if s not in reg.STAGES
        ]
    return out


@pytest.mark.parametrize("check", [_includes, _stage_targets], ids=lambda c: c.__name__.strip("_"))
def test_the_workflow_has_the_stages_of_the_registry(check):
    assert check(registry) == []


@pytest.mark.parametrize("check", [_includes, _stage_targets], ids=lambda c: c.__name__.strip("_"))
def test_a_stage_added_to_the_registry_alone_is_found(check):
    fake = SimpleNamespace(STAGES=(*registry.STAGES, "FAKE"), SEPARATE_TARGETS=registry.SEPARATE_TARGETS)
    found = check(fake)
    assert len(found) == 1 and "FAKE" in found[0], found


# ---- the workflow as Snakemake builds it


def _constraints(tmp_path, *extra) -> dict:
    """rule -> wildcard -> constraint of the workflow on the smoke config (``extra``: NAME=EXTRA)."""
    args = [str(ROOT / "Snakefile"), str(tmp_path), str(ROOT / "config" / "smoke.yaml"), *extra]
    out = subprocess.run(
        [sys.executable, str(PROBE), *args], capture_output=True, text=True, timeout=300, env=snakemake_env()
    )
    assert out.returncode == 0, out.stderr[-3000:]
    line = [x for x in out.stdout.splitlines() if x.startswith("CONSTRAINTS ")][-1]
    return json.loads(line.removeprefix("CONSTRAINTS "))


@pytest.mark.e2e  # reads the workflow with the Snakemake engine
def test_each_name_wildcard_takes_exactly_the_names_of_the_registry(tmp_path):
    constraints = _constraints(tmp_path)
    named = {(r, w) for r, ws in constraints.items() for w in ws if w in {w for _, w in NAME_WILDCARDS}}
    assert sorted(named) == sorted(NAME_WILDCARDS)  # every rule with such a wildcard is listed here
    for (rule, wildcard), name in NAME_WILDCARDS.items():
        names, constraint = list(getattr(registry, name)), constraints[rule][wildcard]
        assert constraint == pattern(names), (rule, wildcard, name)
        assert [n for n in names if not re.fullmatch(constraint, n)] == []
        refused = ["FAKE", "", names[0] + names[-1], names[0] + "x", "x" + names[-1]]
        assert [n for n in refused if re.fullmatch(constraint, n)] == [], (rule, wildcard)


@pytest.mark.e2e  # reads the workflow with the Snakemake engine
def test_a_name_added_to_the_registry_is_one_the_rules_accept(tmp_path):
    """The constraints are built from the registry when the workflow is read: with FAKE in a list,
    its rules take FAKE, and differ from the registry as shipped (the check above would fail)."""
    extra = {name: "FAKE" for name in NAME_WILDCARDS.values()}
    constraints = _constraints(tmp_path, *(f"{n}={v}" for n, v in extra.items()))
    for (rule, wildcard), name in NAME_WILDCARDS.items():
        constraint = constraints[rule][wildcard]
        assert re.fullmatch(constraint, "FAKE"), (rule, wildcard)
        assert constraint != pattern(getattr(registry, name)), (rule, wildcard)
