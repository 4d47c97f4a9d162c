"""Stage ``peers``: today's public multi-label systems beside ours, under one protocol.

The systems are :data:`fmeasure.experiments.registry.PEER_SYSTEMS`, each a public package (a
*peer*) or a route of ours, each an F-maximizer or a baseline. One route of ours,
``peers.reference``, is declared in the config before any test score exists; every row is compared
with it, and it alone speaks for "ours" in the findings. No choice anywhere in the stage looks at
a test score.

The stage's parts, one module each:

- :mod:`~fmeasure.experiments.peers.systems`: the registry read with the config (titles, kinds,
  settings, seeds, the config's checks);
- :mod:`~fmeasure.experiments.peers.envs`: the peers' own virtual environments;
- :mod:`~fmeasure.experiments.peers.protocol`: what every system is given, the tuning, the budget,
  one run, and the protocol's hash;
- :mod:`~fmeasure.experiments.peers.stats`: the tests per dataset (difference and non-inferiority,
  with a standard error over instances and seeds) and the rankings across datasets;
- :mod:`~fmeasure.experiments.peers.tables`, :mod:`~fmeasure.experiments.peers.figures`,
  :mod:`~fmeasure.experiments.peers.findings`: what the stage writes and the report says;
- :mod:`~fmeasure.experiments.peers.leaderboard`: the committed snapshot of a complete run and
  its page;
- :mod:`~fmeasure.experiments.peers.exactness`: the capped GFM search of example-wise-f1-maximizer
  against the exact one.

The protocol, the statistics and the outputs are described in ``docs/peers.md``.
"""

from fmeasure.experiments.peers.envs import ENV_RECORD, EnvRefused, build_env, env_python, find_python, python_version
from fmeasure.experiments.peers.exactness import HAND_EXAMPLE, capped_gfm, capped_losses, run_exactness, write_exactness
from fmeasure.experiments.peers.figures import write_cd, write_figure
from fmeasure.experiments.peers.findings import analysis, run_findings, write_findings
from fmeasure.experiments.peers.protocol import (
    PROTOCOL_VERSION,
    Budget,
    BudgetExceeded,
    dataset_protocol,
    dataset_seeds,
    drop_constant,
    grid_points,
    logistic_max_iter,
    preprocess,
    protocol_hash,
    protocol_spec,
    run_adapter,
    run_peer,
    write_run,
)
from fmeasure.experiments.peers.stats import (
    FAMILIES,
    RANK_COLUMNS,
    RANKINGS,
    TABLE_COLUMNS,
    ProtocolMismatch,
    check_protocol,
    family_of,
    iman_davenport,
    noninferiority_pvalue,
    paired_difference,
    rank_matrix,
    ranked_rows,
    read_runs,
    run_ranks,
    run_table,
    search_cuts,
    seed_se,
)
from fmeasure.experiments.peers.systems import (
    UnknownSystem,
    check_config,
    is_f_maximizer,
    is_peer,
    kind,
    system,
    system_seeds,
    system_settings,
    system_spec,
    title,
)
from fmeasure.experiments.peers.tables import write_by_dataset, write_ranks, write_table

__all__ = [
    "ENV_RECORD",
    "EnvRefused",
    "build_env",
    "env_python",
    "find_python",
    "python_version",
    "HAND_EXAMPLE",
    "capped_gfm",
    "capped_losses",
    "run_exactness",
    "write_exactness",
    "write_cd",
    "write_figure",
    "analysis",
    "run_findings",
    "write_findings",
    "PROTOCOL_VERSION",
    "Budget",
    "BudgetExceeded",
    "dataset_protocol",
    "dataset_seeds",
    "drop_constant",
    "grid_points",
    "logistic_max_iter",
    "preprocess",
    "protocol_spec",
    "protocol_hash",
    "run_adapter",
    "run_peer",
    "write_run",
    "FAMILIES",
    "RANK_COLUMNS",
    "RANKINGS",
    "TABLE_COLUMNS",
    "ProtocolMismatch",
    "check_protocol",
    "family_of",
    "iman_davenport",
    "noninferiority_pvalue",
    "paired_difference",
    "rank_matrix",
    "ranked_rows",
    "read_runs",
    "run_ranks",
    "run_table",
    "search_cuts",
    "seed_se",
    "UnknownSystem",
    "check_config",
    "is_f_maximizer",
    "is_peer",
    "kind",
    "system",
    "system_seeds",
    "system_settings",
    "system_spec",
    "title",
    "write_by_dataset",
    "write_ranks",
    "write_table",
]
