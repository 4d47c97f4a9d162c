"""Compare every results/tables/*.csv of two runs, leaving out run-dependent timing columns.

    python tools/compare_tables.py RUN_A RUN_B [--tol POINTS]
    python tools/compare_tables.py --reference tests/data/reference_tables.csv RUN
    python tools/compare_tables.py --write-reference tests/data/reference_tables.csv RUN

RUN_A and RUN_B are working directories of two runs (each holds results/tables/). Prints one line
per table (identical, differs, or present in one run only), then every cell of Tables 2, 4, 5 and
6 that moved by more than ``--tol`` points (default 0: any change), with both values, and exits 1
if any table differs. A column counts as timing when its name contains "time" or "second" or ends
in "_s" (:func:`fmeasure.tables.untimed`). Columns that were renamed between releases
(``RENAMED``) are compared under their current names.

``--reference FILE RUN`` holds RUN's Tables 2, 4, 5 and 6 against a reference file of verified
values (each cell with its tolerance) and prints every cell that moved beyond it, then every cell
that changed within it (a note); exit 1 if any moved. ``--write-reference FILE RUN`` writes RUN's
cells as that file, each with one test instance's worth of its dataset as tolerance
(:func:`fmeasure.tables.instance_tolerance`: 100 / n_test points, n_test read from RUN's
``data/parsed/<dataset>.json``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from fmeasure.tables import describe_moved, moved_cells, noted_cells, run_cells, untimed, with_instance_tolerance

#: Old column name -> current name (Table 6 now writes the paper's values as ``<column>_paper``,
#: like the other tables).
RENAMED = {"paper_setting": "setting_paper", "paper_f": "f_paper"}


def _untimed(df: pd.DataFrame) -> pd.DataFrame:
    return untimed(df.rename(columns=RENAMED))


def compare(a: Path, b: Path) -> int:
    """Print the comparison of two runs' tables; return the number of tables that differ."""
    ta, tb = a / "results" / "tables", b / "results" / "tables"
    names = sorted({p.name for p in ta.glob("*.csv")} | {p.name for p in tb.glob("*.csv")})
    differ = 0
    for name in names:
        pa, pb = ta / name, tb / name
        if not (pa.exists() and pb.exists()):
            differ += 1
            print(f"{name}: only in {a if pa.exists() else b}")
            continue
        da, db = _untimed(pd.read_csv(pa)), _untimed(pd.read_csv(pb))
        if da.equals(db):
            print(f"{name}: identical ({len(da)} rows)")
        else:
            differ += 1
            print(f"{name}: DIFFERS (shapes {da.shape} vs {db.shape})")
    print(f"{len(names)} tables, {differ} differ")
    return differ


def compare_cells(reference_cells: pd.DataFrame, run: Path, where: str) -> int:
    """Print the cells of Tables 2, 4, 5, 6 of ``run`` that moved beyond their tolerance, then those
    that changed within it; return the number that moved."""
    current = run_cells(run / "results" / "tables")
    moved = moved_cells(current, reference_cells)
    for line in describe_moved(moved):
        print(f"  {line}")
    print(f"cells of Tables 2, 4, 5, 6 against {where}: {len(moved)} moved beyond their tolerance")
    noted = noted_cells(current, reference_cells)
    for line in describe_moved(noted):
        print(f"  note: {line}")
    if len(noted):
        print(f"  ({len(noted)} changed within their tolerance)")
    return len(moved)


def test_sizes(run: Path) -> dict:
    """Dataset -> number of test instances, from the counts beside each parsed dataset of ``run``."""
    from fmeasure.datasets import read_counts

    return {p.stem: int(read_counts(p)["n_test"]) for p in sorted((run / "data" / "parsed").glob("*.json"))}


def _run_dir(path: str) -> Path:
    """A run's working directory; exit with one line when it holds no results/tables/ (a path to
    results/ itself, say), which would otherwise compare nothing and report no difference."""
    run = Path(path)
    if not any((run / "results" / "tables").glob("*.csv")):
        sys.exit(f"compare_tables: {run} has no results/tables/*.csv: give the run's working directory")
    return run


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] in ("--reference", "--write-reference"):
        ref_file, run = Path(argv[1]), _run_dir(argv[2])
        if argv[0] == "--write-reference":
            cells = with_instance_tolerance(run_cells(run / "results" / "tables"), test_sizes(run))
            cells.to_csv(ref_file, index=False)
            print(f"{ref_file}: {len(cells)} cells of {cells['table'].nunique()} tables")
            return 0
        return 1 if compare_cells(pd.read_csv(ref_file), run, str(ref_file)) else 0
    tol = 0.0
    if len(argv) == 4 and argv[2] == "--tol":
        tol = float(argv[3])
        argv = argv[:2]
    if len(argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    a, b = map(_run_dir, argv)
    differ = compare(a, b)
    reference = run_cells(a / "results" / "tables").assign(tol=tol)
    compare_cells(reference, b, str(a))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
