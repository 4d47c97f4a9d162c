"""Job resources (memory, run time, threads) sized from a dataset's counts: every formula here.

A per-dataset job asks for

    mem_mb  = (base_mb  + sum_t mb[t]  * size_t) * growth ** (attempt - 1)
    runtime = (base_min + sum_t min[t] * size_t) * growth ** (attempt - 1)     (minutes)

where the sizes ``size_t`` come from the dataset's counts (n_train, n_test, d features, m labels):

* ``cells``: (n_train + n_test) * (d + m) / 1e6, the data held in memory (millions of numbers);
* ``fit``: n_train * d * m / 1e9, the work of fitting one linear model per label (billions);
* ``pairs``: n_train * n_test / 1e9, the train-test distances of a neighbour search (billions);
* ``labels``: n_test * m / 1e6, per-instance label arrays of the test set (millions);
* ``train_labels``: n_train * m / 1e6, per-example label arrays of the training set, as a forest
  keeps them in its leaves (millions);
* ``weights``: (d + 1) * m / 1e6, the weights of one linear model over all labels, bias included,
  as each cutting plane of RML holds them (millions).

:data:`STAGES` holds one row of coefficients per rule. A failed job is retried (``retries`` in the
workflow profiles) with ``growth`` times more of both. A rule's threads are its stage's configured
threads (``<block>.threads``), one for a dataset smaller than ``small_fit`` (the fitting work above),
and, on one machine, at most half its cores (:func:`job_resources`' ``cores``): the paper's run has
many independent jobs, and two jobs of one thread keep two cores busier than one job of two threads
(its folds and labels do not split evenly, and its worker processes cost time to start).

The counts are read from the sidecar ``data/parsed/<dataset>.json`` that the data stage writes beside
the parsed cache, or, before it exists, from the catalog entry (``expected``, or a synthetic entry's
own counts). The coefficients are upper envelopes of measured peaks (``tests/data/resource_peaks.csv``
lists them with the command that measured each; ``tests/workflow/test_resources.py`` checks that no formula
falls below a measured peak).
"""

from __future__ import annotations

import math
from pathlib import Path

from fmeasure.datasets import counts_path, read_counts

__all__ = ["STAGES", "SIZE_TERMS", "dataset_counts", "sizes", "job_resources"]

#: Size terms of the formulas, from counts (n_train, n_test, d, m).
SIZE_TERMS = {
    "cells": lambda c: (c["n_train"] + c["n_test"]) * (c["d"] + c["m"]) / 1e6,
    "fit": lambda c: c["n_train"] * c["d"] * c["m"] / 1e9,
    "pairs": lambda c: c["n_train"] * c["n_test"] / 1e9,
    "labels": lambda c: c["n_test"] * c["m"] / 1e6,
    "train_labels": lambda c: c["n_train"] * c["m"] / 1e6,
    "weights": lambda c: (c["d"] + 1) * c["m"] / 1e6,
}

#: Per rule: config block (whose ``threads``/``mem_mb``/``runtime_min`` override), the threads key,
#: memory (base MB, MB per unit of each size term) and run time (base minutes, minutes per unit).
#: ``mem_caps``: a memory term that the job itself holds below a key of its block (MB), when set.
#: ``mem_when``: a memory term counted only when a key of the block has the given value (RML's
#: planes, when its solver is the cutting-plane method; a block without the key: the estimator's
#: default solver, ``bcfw``).
#: Mediamill's shape has cells 9.7, fit 0.38, pairs 0.40, labels 1.3, train_labels 3.1, weights 0.012.
STAGES = {
    "parse_dataset": {"block": "data", "threads": None, "mem": (500, {"cells": 60}), "runtime": (10, {"cells": 3})},
    "knn_run": {
        "block": "knn",
        "threads": "threads",
        "mem": (800, {"cells": 80, "labels": 400}),
        "runtime": (15, {"pairs": 60, "labels": 10}),
    },
    "pcc_fit": {
        "block": "pcc",
        "threads": "threads",
        "mem": (1000, {"cells": 100}),
        "runtime": (30, {"fit": 600}),
    },
    "pcc_table4_rows": {
        "block": "pcc",
        "threads": None,
        "mem": (1000, {"cells": 100, "labels": 300}),
        "runtime": (15, {"labels": 60}),
    },
    "pcc_curve": {
        "block": "pcc",
        "threads": None,
        "mem": (1000, {"cells": 100, "labels": 300}),
        "runtime": (15, {"labels": 60}),
    },
    "pcc_exact": {
        "block": "pcc",
        "threads": None,
        "mem": (1000, {"cells": 100, "labels": 300}),
        "runtime": (15, {"labels": 30}),
    },
    "parametric_fit_predict": {
        "block": "parametric",
        "threads": "threads",
        "mem": (1000, {"cells": 100, "labels": 300}),
        "runtime": (30, {"fit": 600}),
    },
    "parametric_inference_times": {  # every learner's model and predictions of the test set
        "block": "parametric",
        "threads": "threads",
        "mem": (1000, {"cells": 100, "labels": 300}),
        "runtime": (10, {"labels": 20}),
    },
    "structured_rml": {  # weights: the cutting planes, (cv + 2 threads) working sets of ~400 planes
        "block": "structured",
        "threads": "threads",
        "mem": (800, {"cells": 120, "labels": 200, "weights": 24000}),
        "mem_when": {"weights": ("solver", "cutting_plane")},
        "runtime": (30, {"fit": 300}),
    },
    "voting_fit": {
        "block": "voting",
        "threads": "threads",
        "mem": (1000, {"cells": 150, "labels": 300}),
        "runtime": (30, {"fit": 600}),
    },
    "trees_run": {
        "block": "trees",
        "threads": "threads",
        "mem": (1000, {"cells": 200, "labels": 300}),
        "runtime": (30, {"fit": 1200}),
    },
    "foptimal_run": {  # the random forest keeps every leaf's label distribution, up to forest_mem_mb
        "block": "foptimal",
        "threads": "threads",
        "mem": (1000, {"cells": 100, "train_labels": 2500}),
        "mem_caps": {"train_labels": "forest_mem_mb"},
        "runtime": (30, {"fit": 600}),
    },
    "ablations_run": {
        "block": "ablations",
        "threads": "threads",
        "mem": (1000, {"cells": 100, "labels": 300}),
        "runtime": (30, {"fit": 600}),
    },
}

#: Below this fitting work (n_train * d * m / 1e9) a job runs on one thread.
SMALL_FIT = 0.005
#: Factor by which memory and time grow with each retry of a failed job.
GROWTH = 1.5


def dataset_counts(config: dict, name: str) -> dict:
    """Counts of dataset ``name``: the sidecar beside its parsed cache, else its catalog entry."""
    sidecar = counts_path(Path(config.get("data", {}).get("dir", "data")) / "parsed" / f"{name}.npz")
    if sidecar.is_file():
        return read_counts(sidecar)
    entry = config["catalog"][name]
    source = entry if entry.get("format") == "synthetic" else entry["expected"]
    counts = {k: int(source[k]) for k in ("n_train", "n_test", "d", "m")}
    subset = entry.get("subset") or {}
    counts["n_train"] = min(counts["n_train"], subset.get("train") or counts["n_train"])
    counts["n_test"] = min(counts["n_test"], subset.get("test") or counts["n_test"])
    return counts


def sizes(counts: dict) -> dict:
    """The size terms of the formulas for ``counts``."""
    return {t: f(counts) for t, f in SIZE_TERMS.items()}


def job_resources(
    rule: str, counts: dict, attempt: int = 1, config: dict | None = None, cores: int | None = None
) -> dict:
    """``{"mem_mb", "runtime", "threads"}`` of a job of ``rule`` on a dataset of ``counts``.

    A number set in the stage's config block (``mem_mb``, ``runtime_min``) replaces the formula
    (it still grows with the attempt); the configured ``threads`` are the most a job gets, and
    when the run's ``cores`` on one machine are given, at most half of them (at least one).

    Examples
    --------
    >>> c = {"n_train": 30993, "n_test": 12914, "d": 120, "m": 101}
    >>> job_resources("knn_run", c)
    {'mem_mb': 2099, 'runtime': 53, 'threads': 1}
    >>> job_resources("knn_run", c, attempt=2)["mem_mb"]
    3148
    >>> [job_resources("pcc_fit", c, 1, {"pcc": {"threads": 2}}, cores=k)["threads"] for k in (None, 2, 3, 4, 8)]
    [2, 1, 1, 2, 2]
    """
    if rule not in STAGES:
        raise KeyError(f"no resource formula for rule {rule!r} (known: {sorted(STAGES)})")
    row = STAGES[rule]
    block = (config or {}).get(row["block"]) or {}
    s = sizes(counts)
    grow = GROWTH ** (max(int(attempt), 1) - 1)
    base, per = row["mem"]
    caps = {t: block.get(key) for t, key in row.get("mem_caps", {}).items()}
    per = {
        t: k
        for t, k in per.items()
        if t not in row.get("mem_when", {}) or block.get(row["mem_when"][t][0]) == row["mem_when"][t][1]
    }
    mem = block.get("mem_mb") or base + sum(min(k * s[t], caps.get(t) or math.inf) for t, k in per.items())
    base, per = row["runtime"]
    runtime = block.get("runtime_min") or base + sum(k * s[t] for t, k in per.items())
    threads = 1
    if row["threads"] and s["fit"] >= SMALL_FIT:
        threads = int(block.get(row["threads"]) or 1)
        if cores:
            threads = max(1, min(threads, int(cores) // 2))
    return {"mem_mb": int(math.ceil(mem * grow)), "runtime": int(math.ceil(runtime * grow)), "threads": threads}
