"""Seed spread of the voting ensemble: its test F over several values of ``voting.seed``.

``voting.seed`` draws the validation split of the training set and the CV folds of every fit, so
the threshold and the members change with it. For each dataset this runs the whole voting stage
(every fit, then the vote) once per seed, with the config's ``voting`` block otherwise unchanged,
and prints the test F of the vote per seed, the standard deviation over the seeds, and the
bootstrap standard error of the vote's test F for one seed (over the test instances), so the two
can be compared.

    PYTHONPATH=src python benchmarks/voting_seeds.py --datasets scene yeast enron --seeds 1 2 3 4 5 \\
        --data-dir data/parsed
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import yaml

from fmeasure import datasets
from fmeasure.experiments.config import used_fits
from fmeasure.experiments.findings import paired_bootstrap
from fmeasure.experiments.voting import run_fit, run_vote


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", default=["scene", "yeast", "enron"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3, 4, 5])
    ap.add_argument("--data-dir", default="data/parsed", help="folder of the parsed caches <name>.npz")
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--n-jobs", type=int, default=2)
    args = ap.parse_args()
    cfg0 = yaml.safe_load(Path(args.config).read_text())["voting"]
    print(f"{'dataset':10s} {'seed':>5s} {'t':>3s} {'Voting F':>9s} {'boot SE':>8s} {'wall s':>7s}")
    for name in args.datasets:
        ds = datasets.load(Path(args.data_dir) / f"{name}.npz")
        fs, ses = [], []
        for seed in args.seeds:
            cfg = dict(cfg0, seed=int(seed))
            t0 = time.perf_counter()
            fits = [run_fit(ds, f, cfg, n_jobs=args.n_jobs) for f in used_fits(cfg)]
            scores, _, inst = run_vote(fits, cfg, return_instances=True)
            v = inst[inst.method == "Voting"].sort_values("instance").f.to_numpy()
            _, se = paired_bootstrap({"Voting": v}, lambda m: m["Voting"])
            row = scores.set_index("method").loc["Voting"]
            fs.append(float(row.f))
            ses.append(se)
            print(
                f"{name:10s} {seed:5d} {int(row.threshold):3d} {row.f:9.2f} {se:8.2f} {time.perf_counter() - t0:7.0f}"
            )
        sd = float(np.std(fs, ddof=1)) if len(fs) > 1 else float("nan")
        verdict = "larger" if sd > np.mean(ses) else "smaller"
        print(
            f"{name:10s} spread over {len(fs)} seeds: sd {sd:.2f}, range {min(fs):.2f} .. {max(fs):.2f} points; "
            f"bootstrap SE of one seed's F {np.mean(ses):.2f}: the seed spread is {verdict}"
        )


if __name__ == "__main__":
    main()
