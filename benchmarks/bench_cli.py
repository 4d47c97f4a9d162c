"""Benchmark of ``fmeasure predict`` on a Mediamill-sized CSV of probabilities (12,914 x 101).

Run from the repository root:

    PYTHONPATH=src python benchmarks/bench_cli.py            # 12,914 x 101
    PYTHONPATH=src python benchmarks/bench_cli.py --quick    # 2,000 x 101

Writes a CSV of marginals (a header, one row per instance; label cardinality about 4.4 as in
Mediamill's test split) to a temporary folder, then times

* ``python -m fmeasure predict --marginals P.csv -o H.csv`` as a subprocess: the whole command,
  interpreter start-up and imports included (CPU of the child from ``resource.getrusage``, and
  wall time);
* in this process, ``pandas.read_csv`` + ``fmeasure.inference.fm`` + ``DataFrame.to_csv``: the
  library call with no command-line machinery (so the difference is the command's overhead);
* in this process, a plain per-row loop: the ``csv`` module, ``fm`` on one row at a time, one
  written line per row (timed on the first rows and extrapolated per row).

Every side writes the same predictions (checked). Ratios use CPU time; BLAS is limited to one
thread everywhere.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from fmeasure.inference import fm


def make_csv(path: Path, n: int, m: int, card: float, seed: int = 0):
    """Marginals with a long tail (most labels near 0, a few likely ones), mean row sum ~ card."""
    rng = np.random.default_rng(seed)
    p = rng.beta(0.25, 0.25 * (m / card - 1), size=(n, m))
    pd.DataFrame(p, columns=[f"label{j}" for j in range(m)]).to_csv(path, index=False, float_format="%.6g")
    return p


def time_subprocess(args, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(args, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"fmeasure predict failed ({r.returncode}): {r.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def in_process(src: Path, dst: Path):
    df = pd.read_csv(src)
    h, v = fm(df.to_numpy(np.float64))
    out = pd.DataFrame(h, columns=df.columns)
    out["expected_f"] = v
    out.to_csv(dst, index=False, float_format="%.12g", lineterminator="\n")


def per_row_loop(src: Path, dst: Path, rows: int):
    """The plain reference: read, predict and write one row at a time."""
    with open(src, newline="") as f, open(dst, "w", newline="") as g:
        reader = csv.reader(f)
        header = next(reader)
        g.write(",".join(header) + ",expected_f\n")
        for i, row in enumerate(reader):
            if i == rows:
                break
            h, v = fm(np.array([float(x) for x in row]))
            g.write(",".join(str(int(x)) for x in h) + f",{v:.12g}\n")
    return rows


def timed(fn, *a):
    c0, t0 = time.process_time(), time.perf_counter()
    res = fn(*a)
    return time.process_time() - c0, time.perf_counter() - t0, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2,000 rows instead of 12,914")
    ap.add_argument("--loop-rows", type=int, default=2000, help="rows timed for the per-row loop")
    args = ap.parse_args()
    n, m = (2000 if args.quick else 12914), 101
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    src_dir = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src_dir + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as d, threadpool_limits(1):
        d = Path(d)
        make_csv(d / "P.csv", n, m, card=4.4)
        size_mb = (d / "P.csv").stat().st_size / 2**20
        cmd = [sys.executable, "-m", "fmeasure", "predict", "--marginals", str(d / "P.csv"), "-o", str(d / "H.csv")]
        cli_cpu, cli_wall = time_subprocess(cmd, env)
        start_cpu, start_wall = time_subprocess([sys.executable, "-m", "fmeasure", "--help"], env)
        lib_cpu, lib_wall, _ = timed(in_process, d / "P.csv", d / "H_lib.csv")
        rows = min(n, args.loop_rows)
        loop_cpu, loop_wall, _ = timed(per_row_loop, d / "P.csv", d / "H_loop.csv", rows)
        loop_cpu, loop_wall = loop_cpu * n / rows, loop_wall * n / rows

        cli_out = pd.read_csv(d / "H.csv")
        lib_out = pd.read_csv(d / "H_lib.csv")
        loop_out = pd.read_csv(d / "H_loop.csv")
        labels = list(cli_out.columns[:-1])
        assert cli_out[labels].equals(lib_out[labels]), "CLI and library predictions differ"
        assert cli_out[labels].iloc[:rows].equals(loop_out[labels]), "CLI and per-row predictions differ"
        np.testing.assert_allclose(cli_out["expected_f"], lib_out["expected_f"], atol=1e-12)
        mean_size = cli_out[labels].to_numpy().sum(axis=1).mean()

    print(
        f"fmeasure predict --marginals on a {n:,} x {m} CSV ({size_mb:.1f} MB), mean predicted set size {mean_size:.2f}"
    )
    for name, c, w in [
        ("command (subprocess, start-up included)", cli_cpu, cli_wall),
        ("start-up alone (fmeasure --help)", start_cpu, start_wall),
        ("pandas read + fm + write, in-process", lib_cpu, lib_wall),
        (f"per-row loop (extrapolated from {rows:,} rows)", loop_cpu, loop_wall),
    ]:
        print(f"  {name:<48} {c:7.2f} s CPU {w:7.2f} s wall")
    print(
        f"fmeasure predict {n}x{m} CSV: {cli_cpu:.2f} s CPU ({cli_wall:.2f} s wall); "
        f"per-row loop / command = {loop_cpu / cli_cpu:.1f}x; command / in-process library = {cli_cpu / lib_cpu:.2f}x (CPU)"
    )


if __name__ == "__main__":
    main()
