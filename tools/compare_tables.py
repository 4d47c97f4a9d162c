"""Compare every results/tables/*.csv of two runs, leaving out run-dependent timing columns.

    python tools/compare_tables.py RUN_A RUN_B

RUN_A and RUN_B are working directories of two runs (each holds results/tables/). Prints one line
per table (identical, differs, or present in one run only) and exits 1 if any table differs. A
column counts as timing when its name contains "time" or "second" or ends in "_s"
(:func:`fmeasure.tables.untimed`). Columns that
were renamed between releases (``RENAMED``) are compared under their current names.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from fmeasure.tables import untimed

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


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python tools/compare_tables.py RUN_A RUN_B")
    sys.exit(1 if compare(Path(sys.argv[1]), Path(sys.argv[2])) else 0)
