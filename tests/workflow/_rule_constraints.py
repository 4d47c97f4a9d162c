r"""Print the wildcard constraints of every rule of a workflow as Snakemake builds it (one JSON line).

    python _rule_constraints.py SNAKEFILE WORKDIR CONFIGFILE [NAME=EXTRA ...]

Each ``NAME=EXTRA`` first adds the name EXTRA to the list NAME of fmeasure.experiments.registry, as
a registry holding it would, before the workflow is read. The constraints are those in the rules'
output patterns (``{learner,BR|LFP|EFP}``), global and rule-level ones alike; a wildcard without
one gets "" (a constraint holding braces, such as ``\d{2}``, would not be read: the workflow has
none). Only tests/workflow/test_registry_rules.py runs it, by path; its name (no ``test_`` prefix)
keeps it out of the suite's collection. It reads the workflow through Snakemake's API
(``WorkflowApi._workflow``, the object a dry run builds).
"""

import json
import re
import sys
from pathlib import Path

from snakemake.api import SnakemakeApi
from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

from fmeasure.experiments import registry

snakefile, workdir, configfile, *extra = sys.argv[1:]
for item in extra:
    name, value = item.split("=", 1)
    names = getattr(registry, name)
    setattr(registry, name, {**names, value: value} if isinstance(names, dict) else (*names, value))

with SnakemakeApi(OutputSettings()) as api:
    workflow = api.workflow(
        resource_settings=ResourceSettings(),
        config_settings=ConfigSettings(configfiles=[Path(configfile)]),
        snakefile=Path(snakefile),
        workdir=Path(workdir),
    )._workflow
    constraints = {
        rule.name: dict(re.findall(r"\{\s*(\w+)\s*(?:,([^{}]*))?\}", " ".join(map(str, rule.output))))
        for rule in workflow.rules
    }
print("CONSTRAINTS " + json.dumps(constraints))
