"""Which rules run on the cluster and what they ask for: a check of the localrules convention.

Light rules (tables, figures, report, target rules) belong in ``localrules:`` so that they run
on the submitting host; heavy ones declare ``threads`` and ``resources:`` (docs/ARCHITECTURE.md).
This prints, for every rule of the workflow, whether a Slurm run submits it and what it
declares, straight from Snakemake's parsed workflow (no cluster, no job is run)::

    PYTHONPATH=src FMEASURE_DATA_MIRROR=... python tests/slurm/audit_rules.py [configfile ...]
"""

import sys
from pathlib import Path

from snakemake.api import SnakemakeApi
from snakemake.settings.enums import Quietness
from snakemake.settings.types import (
    ConfigSettings,
    OutputSettings,
    ResourceSettings,
    StorageSettings,
)


def audit(snakefile: Path, configfiles: list[Path]) -> list[tuple[str, bool, dict]]:
    """[(rule name, submitted to Slurm?, {declared resource: raw value incl. threads})]."""
    with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
        wf = api.workflow(
            resource_settings=ResourceSettings(),
            config_settings=ConfigSettings(configfiles=configfiles),
            storage_settings=StorageSettings(),
            snakefile=snakefile,
            workdir=Path.cwd(),
        )
        w = wf._workflow  # the parsed workflow; Snakemake has no public accessor for it
        rows = []
        for rule in sorted(w.rules, key=lambda r: r.name):
            remote = not (rule.name in w._localrules or rule.norun)
            declared = {
                ("threads" if k == "_cores" else k): getattr(v, "raw", v)
                for k, v in rule.resources.items()
                if k not in ("_nodes", "tmpdir")
            }
            rows.append((rule.name, remote, declared))
        return rows


if __name__ == "__main__":
    for name, remote, declared in audit(Path("Snakefile"), [Path(p) for p in sys.argv[1:]]):
        print(f"{'slurm' if remote else 'local'}  {name:30s} {declared}")
