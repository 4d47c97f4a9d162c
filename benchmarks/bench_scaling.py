"""Benchmark: how each learner's fit and predict time and memory grow with n and with m.

Every (learner, n, m) cell runs in a fresh process (so its peak resident memory is its own) with
:func:`fmeasure.experiments.scaling.run_cell`: a synthetic dataset of that shape, fit, predict, under
a time limit (a cell over it is reported as a timeout). The grid and every setting come from the
config's ``scaling`` block; the options below narrow it. Prints one row per cell and each learner's
fitted exponents in n and m (slope of log time against log n, log m). Times are wall seconds, and
CPU seconds of the cell's process (``cpu_s``); the pipeline's ``snakemake --cores 2 scaling`` runs
the same cells as separate jobs and draws the figure.

Usage:
    PYTHONPATH=src python benchmarks/bench_scaling.py [--learners BR,kNN] [--n 1000,4000] [--m 6,14]
        [--timeout 600] [--config config/config.yaml]
"""

import argparse
import multiprocessing as mp

import pandas as pd
import yaml

from fmeasure.experiments.scaling import cells, exponents, run_cell


def _cell(args):
    return run_cell(*args)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--learners", help="comma-separated (default: the config's)")
    ap.add_argument("--n", help="training sizes at m = m_at_n, comma-separated")
    ap.add_argument("--m", help="label counts at n = n_at_m, comma-separated")
    ap.add_argument("--timeout", type=float, help="seconds per cell")
    a = ap.parse_args()
    cfg = yaml.safe_load(open(a.config))["scaling"]
    if a.learners:
        cfg["learners"] = a.learners.split(",")
    if a.n:
        cfg["n"] = [int(v) for v in a.n.split(",")]
    if a.m:
        cfg["m"] = [int(v) for v in a.m.split(",")]
    if a.timeout:
        cfg["timeout_s"] = a.timeout
    rows = []
    ctx = mp.get_context("spawn")
    for learner, n, m in cells(cfg):
        with ctx.Pool(1, maxtasksperchild=1) as pool:
            row = pool.apply(_cell, ((learner, n, m, cfg),))
        rows.append(row)
        print(
            f"{learner:8s} n={n:6d} m={m:4d}  fit {row['fit_s']:9.3f} s  predict {row['predict_s']:8.3f} s  "
            f"cpu {row['cpu_s']:9.3f} s  peak {row['peak_rss_mb']:7.1f} MB  {row['status']}",
            flush=True,
        )
    print(exponents(pd.DataFrame(rows), cfg["m_at_n"], cfg["n_at_m"]).to_string(index=False))


if __name__ == "__main__":
    main()
