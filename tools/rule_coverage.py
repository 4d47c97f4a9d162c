"""Which of the workflow's rules and scripts a set of Snakemake runs executed.

Usage::

    python -m pytest --basetemp=/tmp/pt            # the runs' folders stay under /tmp/pt
    python tools/rule_coverage.py /tmp/pt          # rules and scripts executed, and those never run

Reads every Snakemake log (``.snakemake/log/*.snakemake.log``) under the folders given, collects the
rules that ran a job there (``rule X:`` or ``localrule X:``), and compares them with the rules the
workflow defines (``rule X:`` / ``checkpoint X:`` in ``Snakefile`` and ``workflow/rules/*.smk``) and
the scripts those rules run (``script: "../scripts/..."``). Exits 1 when a rule or a script never ran.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULE = re.compile(r"^(?:rule|checkpoint) (\w+):", re.MULTILINE)
SCRIPT = re.compile(r"^\s+script:\s*\n\s+\"\.\./scripts/([\w.]+)\"", re.MULTILINE)
RAN = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):$", re.MULTILINE)


def workflow_rules(root: Path = ROOT) -> dict[str, str | None]:
    """{rule name: the script it runs, or None} for every rule of the workflow."""
    rules: dict[str, str | None] = {}
    for path in [root / "Snakefile", *sorted((root / "workflow" / "rules").glob("*.smk"))]:
        text = path.read_text()
        starts = [(m.start(), m.group(1)) for m in RULE.finditer(text)] + [(len(text), None)]
        for (start, name), (end, _) in zip(starts, starts[1:]):
            script = SCRIPT.search(text[start:end])
            rules[name] = script.group(1) if script else None
    return rules


def executed_rules(folders: list[Path]) -> set[str]:
    """The rules that ran at least one job in the Snakemake logs under ``folders``."""
    ran: set[str] = set()
    for folder in folders:
        for log in folder.rglob("*.snakemake.log"):
            ran |= set(RAN.findall(log.read_text(errors="replace")))
    return ran


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: rule_coverage.py FOLDER [FOLDER ...]", file=sys.stderr)
        return 2
    folders = [Path(a) for a in argv]
    for folder in folders:
        if not folder.is_dir():
            print(f"rule_coverage.py: {folder}: not a folder", file=sys.stderr)
            return 2
    rules = workflow_rules()
    ran = executed_rules(folders) & set(rules)
    scripts = {s for s in rules.values() if s}
    ran_scripts = {rules[r] for r in ran if rules[r]}
    print(f"rules:   {len(ran)} of {len(rules)} ran")
    print(f"scripts: {len(ran_scripts)} of {len(scripts)} ran")
    for name in sorted(set(rules) - ran):
        print(f"  never ran: rule {name}" + (f" (script {rules[name]})" if rules[name] else ""))
    return 0 if ran == set(rules) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
