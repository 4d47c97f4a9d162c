"""Write the cost of a run, per dataset and stage, from its Snakemake benchmark files.

    python tools/cost_table.py [RUN_DIR] [--readme README.md [--block NAME]] [--datasets scene,yeast,enron]

RUN_DIR (default: the current directory) holds results/benchmarks/. Prints the table and writes
results/tables/costs.csv; with --readme, also puts the table between the cost markers of that file.
The datasets default to the run's config (config/config.yaml's `datasets`). --block NAME fills the
block between `<!-- NAME:start ... -->` and `<!-- NAME:end -->` instead of the default cost block
(the README keeps a second block, `costs-mediamill-shape`, from a run of that synthetic dataset).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from fmeasure.experiments.costs import render_costs, run_costs, write_readme_costs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", nargs="?", default=".", type=Path)
    ap.add_argument("--readme", type=Path, help="Markdown file whose cost markers receive the table")
    ap.add_argument("--block", default="costs", help="name of the marked block of --readme to fill (default: costs)")
    ap.add_argument("--datasets", help="comma-separated dataset names (default: config/config.yaml)")
    args = ap.parse_args(argv)
    if args.datasets:
        datasets = args.datasets.split(",")
    else:
        datasets = yaml.safe_load((args.run_dir / "config" / "config.yaml").read_text())["datasets"]
    try:
        costs = run_costs(args.run_dir / "results" / "benchmarks", datasets)
        table = render_costs(costs)
        out = args.run_dir / "results" / "tables" / "costs.csv"
        out.parent.mkdir(parents=True, exist_ok=True)
        costs.to_csv(out, index=False)
        if args.readme:
            write_readme_costs(args.readme, table, block=args.block)
    except (OSError, ValueError) as exc:
        print(f"cost_table: {exc}", file=sys.stderr)
        return 1
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
