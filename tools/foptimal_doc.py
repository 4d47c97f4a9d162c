"""Write the foptimal stage's table and run time into docs/foptimal.md (between its markers).

    python tools/foptimal_doc.py [RUN_DIR]

RUN_DIR is the working directory of a run that built the stage (default: the current one); the
table is read from RUN_DIR/results/tables/foptimal.md, the CPU time and memory of its jobs from the
Snakemake benchmark files RUN_DIR/results/benchmarks/foptimal/. Everything between the lines
``<!-- foptimal-table:start -->`` and ``<!-- foptimal-table:end -->`` of docs/foptimal.md is
replaced; nothing else changes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- foptimal-table:start -->", "<!-- foptimal-table:end -->"


def stage_times(bench_dir: Path) -> str:
    """One sentence: the jobs' summed CPU seconds and largest memory (Snakemake benchmark files)."""
    files = sorted(bench_dir.glob("run_*/*.tsv"))
    if not files:
        return ""
    b = pd.concat([pd.read_csv(f, sep="\t") for f in files], ignore_index=True)
    slowest = files[int(b["cpu_time"].to_numpy().argmax())]
    return (
        f"The stage's {len(files)} fit-and-predict jobs of this run took {b['cpu_time'].sum():.0f} s of CPU "
        f"in total (the longest: `{slowest.parent.name.removeprefix('run_')}/{slowest.stem}`, "
        f"{b['cpu_time'].max():.0f} s), at most {b['max_rss'].max():.0f} MB of memory each, from "
        "`results/benchmarks/foptimal/`; the table, figure and findings rules take seconds."
    )


def render(run_dir: Path) -> str:
    table = (run_dir / "results" / "tables" / "foptimal.md").read_text().strip()
    times = stage_times(run_dir / "results" / "benchmarks" / "foptimal")
    return "\n".join([START, "", table, "", times, "", END]) if times else "\n".join([START, "", table, "", END])


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    run_dir = Path(argv[0]) if argv else Path.cwd()
    doc = ROOT / "docs" / "foptimal.md"
    text = doc.read_text()
    if START not in text or END not in text:
        print(f"{doc}: markers {START} / {END} not found", file=sys.stderr)
        return 1
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    doc.write_text(head + render(run_dir) + tail)
    print(f"wrote the table of {run_dir / 'results/tables/foptimal.md'} into {doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
