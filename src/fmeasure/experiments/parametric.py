"""The parametric experiment of Section 7.2 (Table 5): BR, LFP and EFP on the benchmark datasets.

:func:`run_learner` fits one learner on a dataset's training part and scores it on the test part,
timing training (tuning included, as in the paper) and inference (all models applied to the
test set plus the F-maximisation) in-process, and can keep the fitted model. Each learner is one
job, so :func:`time_inference` times the inference of all of a dataset's fitted learners again in
one process, in rounds, so that the times compared share the machine's load. :func:`write_table5`
gathers the records and those times into Table 5, ours beside the paper's numbers, best Hamming
loss and F-measure per dataset in bold.

Example
-------
>>> import numpy as np
>>> from fmeasure.datasets import Dataset
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(80, 3)); Y = (X[:, :2] > 0).astype(np.int8)
>>> ds = Dataset("toy", X[:60], Y[:60], X[60:], Y[60:])
>>> rec = run_learner(ds, "EFP", {"Cs": [1.0], "cv": 3, "seed": 0})
>>> sorted(rec)[:3]
['C_median', 'dataset', 'f']
"""

from __future__ import annotations

import json
import logging
import pickle
import time
from pathlib import Path

import numpy as np
import pandas as pd

from fmeasure.experiments.findings import DEVIATION_POINTS, deviation_sentences, instance_scores
from fmeasure.experiments.registry import PARAMETRIC_LEARNERS
from fmeasure.metrics import f_measure, hamming_loss
from fmeasure.tables import beside_paper, best_mask, paper_numbers, write_table
from fmeasure.timing import format_repeats, spread

__all__ = ["LEARNER_NAMES", "make_learner", "run_learner", "load_model", "time_inference", "write_table5"]

log = logging.getLogger(__name__)

#: Learner names used in config and tables, in the tables' order.
LEARNER_NAMES = PARAMETRIC_LEARNERS


def _learner_classes() -> dict:
    # the learners are imported where a learner is made: the table and findings jobs stay light
    from fmeasure.learners.parametric import EFP, LFP, BinaryRelevance

    return {"BR": BinaryRelevance, "LFP": LFP, "EFP": EFP}


_VALUES = ["hamming", "f", "train_time_s", "inference_time_s"]


def make_learner(name: str, cfg: dict, n_jobs: int | None = None):
    """An unfitted learner ``name`` ("BR", "LFP" or "EFP") configured from the ``parametric`` config block.

    Keys used: ``Cs``, ``cv``, ``seed``, ``patience``, ``standardize``, ``scoring`` (optional),
    for EFP ``efp_train_on`` and for LFP ``lfp_allow_empty`` (optional).
    """
    if name not in LEARNER_NAMES:
        raise ValueError(f"learner: unknown name {name!r}, expected one of {sorted(LEARNER_NAMES)}")
    kw = dict(
        Cs=tuple(cfg["Cs"]),
        cv=int(cfg["cv"]),
        random_state=int(cfg["seed"]),
        n_jobs=n_jobs,
        patience=cfg.get("patience"),
        standardize=bool(cfg.get("standardize", True)),
        scoring=cfg.get("scoring", "log_loss"),
    )
    if name == "EFP":
        kw["train_on"] = cfg.get("efp_train_on", "nonempty")
    if name == "LFP":
        kw["allow_empty"] = bool(cfg.get("lfp_allow_empty", True))
    return _learner_classes()[name](**kw)


def _chosen_cs(model) -> list[float]:
    models = list(model.estimators_)
    if hasattr(model, "zero_model_"):
        models.append(model.zero_model_)
    return [float(m.C_) for m in models if m is not None and np.isfinite(getattr(m, "C_", np.nan))]


def _shared_br(name: str, cfg: dict, n_jobs, br_fit):
    """LFP built on BR's fitted label models, with BR's fitting times, when ``br_fit`` (the paths
    of BR's pickled model and record) holds a BR fitted with this config's settings; else None."""
    if name != "LFP" or br_fit is None:
        return None
    model_path, record_path = br_fit
    br = load_model(model_path)
    with open(record_path) as fh:
        br_rec = json.load(fh)
    ignore = ("n_jobs", "verbose")
    want = {k: v for k, v in make_learner("BR", cfg, n_jobs=n_jobs).get_params().items() if k not in ignore}
    have = {k: v for k, v in br.get_params().items() if k not in ignore}
    if type(br).__name__ != "BinaryRelevance" or have != want:
        log.info(
            "LFP on %s: %s was fitted with other settings; fitting LFP's own models", br_rec["dataset"], model_path
        )
        return None
    lfp = make_learner("LFP", cfg, n_jobs=n_jobs)
    model = type(lfp).from_binary_relevance(br, allow_empty=lfp.allow_empty)
    log.info("LFP on %s: predicting from BR's label models (%s), no second fit", br_rec["dataset"], model_path)
    return model, float(br_rec["train_time_s"])


def run_learner(
    ds,
    name: str,
    cfg: dict,
    n_jobs: int | None = None,
    return_instances: bool = False,
    model_path=None,
    br_fit=None,
):
    """Fit learner ``name`` on ``ds``'s training part, predict its test part, and score.

    With ``return_instances=True`` returns ``(record, instances)``, ``instances`` the per-instance
    Hamming loss and F-measure (in %) on the test set, for the bootstrap of the findings. With
    ``model_path`` the fitted model is pickled there (for :func:`time_inference`).

    LFP fits the same label models as BR (same settings, same seeds); only its inference differs.
    ``br_fit``, the paths ``(model, record)`` of BR's job on the same dataset, lets LFP predict from
    BR's fitted models instead of fitting them again: its predictions are those of its own fit, its
    training times are BR's (``fit_shared_with`` says so). A BR fitted with other settings is not
    used.

    Returns
    -------
    dict
        ``dataset``, ``method``, ``hamming`` and ``f`` (in %, averaged over test instances),
        ``train_time_s`` and ``inference_time_s`` (seconds, wall clock), ``n_train``, ``n_test``,
        ``m``, ``n_jobs``, ``C_median`` (median chosen C over the models), and ``train_cpu_time_s``
        (CPU seconds of the model fits, summed over workers: comparable across machines and loads,
        unlike wall clock) and ``inference_cpu_time_s``; ``hamming_se`` and ``f_se``: standard
        errors of the two means over the test instances.
    """
    shared = _shared_br(name, cfg, n_jobs, br_fit)
    if shared is None:
        model = make_learner(name, cfg, n_jobs=n_jobs)
        t0 = time.perf_counter()
        model.fit(ds.X_train, ds.Y_train)
        t1 = time.perf_counter()
        train_s = t1 - t0
    else:
        model, train_s = shared
        t1 = time.perf_counter()
    c1 = time.process_time()
    H = model.predict(ds.X_test)
    t2 = time.perf_counter()
    c2 = time.process_time()
    if model_path is not None:
        from fmeasure.io import atomic_output

        with atomic_output(model_path) as tmp:
            with open(tmp, "wb") as fh:
                pickle.dump(model, fh, protocol=pickle.HIGHEST_PROTOCOL)
    Cs = _chosen_cs(model)
    hl, f = hamming_loss(ds.Y_test, H), f_measure(ds.Y_test, H)
    rec = {
        "dataset": ds.name,
        "method": name,
        "hamming": 100.0 * float(np.mean(hl)),
        "f": 100.0 * float(np.mean(f)),
        "train_time_s": train_s,
        "inference_time_s": t2 - t1,
        "train_cpu_time_s": float(model.fit_cpu_time_),
        "inference_cpu_time_s": c2 - c1,
        "n_train": int(ds.Y_train.shape[0]),
        "n_test": int(ds.Y_test.shape[0]),
        "m": int(ds.Y_train.shape[1]),
        "n_jobs": 1 if n_jobs is None else int(n_jobs),
        "C_median": float(np.median(Cs)) if Cs else float("nan"),
        "hamming_se": 100.0 * _se(hl),
        "f_se": 100.0 * _se(f),
        "fit_shared_with": None if shared is None else "BR",
    }
    log.info(
        "%s on %s: HL %.2f%%, F %.2f%%, train %.1f s, inference %.3f s",
        name,
        ds.name,
        rec["hamming"],
        rec["f"],
        rec["train_time_s"],
        rec["inference_time_s"],
    )
    if return_instances:
        inst = instance_scores(ds.Y_test, H, ("hamming", "f")).assign(dataset=ds.name, method=name)
        return rec, inst[["dataset", "method", "instance", "hamming", "f"]]
    return rec


def load_model(path):
    """A learner pickled by :func:`run_learner` (``model_path``)."""
    with open(path, "rb") as fh:
        model = pickle.load(fh)
    if not isinstance(model, tuple(_learner_classes().values())):
        raise ValueError(f"{path}: not a pickled BR, LFP or EFP learner")
    return model


#: Columns of :func:`time_inference`'s frame.
TIMES_COLUMNS = ["dataset", "method", "repeat", "inference_time_s", "inference_cpu_time_s"]


def time_inference(ds, models: dict, repeats: int, repeat_below_s: float = np.inf) -> pd.DataFrame:
    """Inference times of fitted learners on ``ds``'s test part, measured together in rounds.

    ``models`` maps a learner name to its fitted model. After one untimed round (the first call
    of a process pays for imports and caches: on scene it took 5-10 times the later ones), each
    of ``repeats`` rounds times every learner's ``predict`` once, in the order of ``models``, so
    that the learners compared share the machine's load. A learner whose best time is already
    ``repeat_below_s`` seconds or more is not repeated (a timing that long is stable by itself).

    Returns
    -------
    DataFrame with :data:`TIMES_COLUMNS`: one row per (learner, round), wall clock and CPU
    seconds of this process.
    """
    repeats = int(repeats)
    if repeats < 1:
        raise ValueError(f"parametric.timing_best_of: must be >= 1, got {repeats}")
    for model in models.values():
        model.predict(ds.X_test)
    rows = []
    best = dict.fromkeys(models, np.inf)
    for r in range(repeats):
        for name, model in models.items():
            if r and best[name] >= repeat_below_s:
                continue
            t0, c0 = time.perf_counter(), time.process_time()
            model.predict(ds.X_test)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            best[name] = min(best[name], wall)
            rows.append(
                {
                    "dataset": ds.name,
                    "method": name,
                    "repeat": r,
                    "inference_time_s": wall,
                    "inference_cpu_time_s": cpu,
                }
            )
    log.info("%s: inference %s", ds.name, ", ".join(f"{k} {v:.4g} s" for k, v in best.items()))
    return pd.DataFrame(rows, columns=TIMES_COLUMNS)


def _inference_times(times: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, method): best wall time, its repeats and spread, best CPU time."""
    rows = []
    for (d, m), g in times.groupby(["dataset", "method"], sort=False):
        t = g.sort_values("repeat")["inference_time_s"].to_numpy(float)
        rows.append(
            {
                "dataset": d,
                "method": m,
                "inference_time_s": float(t.min()),
                "inference_time_s_repeats": format_repeats(t),
                "inference_time_s_spread": spread(t),
                "inference_cpu_time_s": float(g["inference_cpu_time_s"].min()),
            }
        )
    return pd.DataFrame(rows)


def _se(values) -> float:
    """Standard error of the mean of per-instance values (0 for a single instance)."""
    v = np.asarray(values, dtype=float)
    return float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0


CAPTION = (
    "Table 5. Parametric models BR, LFP and EFP: Hamming loss and instance-wise F-measure (in %, "
    "test set), training time (C tuned per model by {cv}-fold CV on log loss over {n_cs} values, "
    "then refitted) and inference time (models applied to the test set + inference) in seconds, "
    "wall clock on this machine (the paper: 8 cores); training CPU: CPU seconds of all "
    "model fits summed over workers, the measure that other work on the machine does not inflate. Ours beside the paper's numbers; "
    "our best Hamming loss and F-measure per dataset in bold, and in the paper's columns the cells the paper prints in bold."
)


def paper_bold_mask(shown: pd.DataFrame) -> pd.DataFrame:
    """Bold exactly the paper's cells that the paper prints in bold (``paper_numbers/table5_bold.csv``)."""
    from importlib import resources

    with resources.files("fmeasure.paper_numbers").joinpath("table5_bold.csv").open() as fh:
        marked = pd.read_csv(fh, comment="#")
    col = {"hamming": "(paper)", "f": "(paper) "}
    mask = pd.DataFrame(False, index=shown.index, columns=shown.columns)
    keys = set(zip(marked.dataset, marked.method, marked.column))
    for i, (d, m) in enumerate(zip(shown["Dataset"], shown["Learner"])):
        for c, name in col.items():
            if (str(d), str(m), c) in keys:
                mask.iloc[i, shown.columns.get_loc(name)] = True
    return mask


def write_table5(records, csv_path, md_path, *, cv: int = 5, n_cs: int = 8, times=None) -> pd.DataFrame:
    """Write Table 5 from :func:`run_learner` records (CSV tidy, Markdown paper-like); returns the CSV frame.

    ``times``: :func:`time_inference` frames (one per dataset, or one concatenated); where given,
    a learner's ``inference_time_s`` and ``inference_cpu_time_s`` are its best round there, with
    ``inference_time_s_repeats`` (every round) and ``inference_time_s_spread``
    (:mod:`fmeasure.timing`); else the record's single timing.
    """
    ours = pd.DataFrame(list(records))
    if ours.empty:
        raise ValueError("table5: no records")
    ours["inference_time_s_repeats"] = [format_repeats([t]) for t in ours["inference_time_s"]]
    ours["inference_time_s_spread"] = np.nan
    if times is not None:
        frames = [times] if isinstance(times, pd.DataFrame) else list(times)
        if frames:
            best = _inference_times(pd.concat(frames, ignore_index=True)).set_index(["dataset", "method"])
            rows = best.reindex(pd.MultiIndex.from_frame(ours[["dataset", "method"]]))
            timed = rows["inference_time_s"].notna().to_numpy()
            for c in best.columns:
                ours.loc[timed, c] = rows[c].to_numpy()[timed]
    rounds = sorted({len(str(c).split(";")) for c in ours["inference_time_s_repeats"]})
    order = {n: i for i, n in enumerate(LEARNER_NAMES)}
    datasets = list(dict.fromkeys(ours["dataset"]))  # the order of the records (the config's)
    rank = {d: i for i, d in enumerate(datasets)}
    ours = ours.assign(_d=ours["dataset"].map(rank), _o=ours["method"].map(order))
    ours = ours.sort_values(["_d", "_o"], kind="stable").drop(columns=["_d", "_o"]).reset_index(drop=True)
    table = beside_paper(ours[["dataset", "method", *_VALUES]], paper_numbers("table5"), ["dataset", "method"], _VALUES)
    table["train_cpu_time_s"] = ours["train_cpu_time_s"].to_numpy()
    table["inference_cpu_time_s"] = ours.get("inference_cpu_time_s", pd.Series(np.nan, index=ours.index)).to_numpy()
    table["inference_time_s_repeats"] = ours["inference_time_s_repeats"].to_numpy()
    table["inference_time_s_spread"] = ours["inference_time_s_spread"].to_numpy()
    table = table.set_index("dataset").loc[datasets].reset_index()
    shown = pd.DataFrame(
        {
            "Dataset": table["dataset"],
            "Learner": table["method"],
            "Hamming loss [%]": table["hamming"],
            "(paper)": table["hamming_paper"],
            "F-measure [%]": table["f"],
            "(paper) ": table["f_paper"],
            "Training [s]": table["train_time_s"],
            "(paper)  ": table["train_time_s_paper"],
            "Training CPU [s]": table["train_cpu_time_s"],
            "Inference [s]": table["inference_time_s"],
            "(paper)   ": table["inference_time_s_paper"],
        }
    )
    bold = best_mask(shown, {"Hamming loss [%]": "min", "F-measure [%]": "max"}, by="Dataset", atol=5e-3)
    bold = bold | paper_bold_mask(shown)
    formats = ["{:.2f}"] * 4 + ["{:.1f}", "{:.0f}", "{:.1f}", "{:.3f}", "{:.3f}"]
    for col, fmt in zip(shown.columns[2:], formats):
        shown[col] = [("" if pd.isna(v) else fmt.format(v)) for v in shown[col]]
    k = f"{rounds[0]}" if len(rounds) == 1 else f"{rounds[0]} to {rounds[-1]}"
    caption = CAPTION.format(cv=cv, n_cs=n_cs) + (
        f" Inference: the best of {k} rounds in which a dataset's learners run one after the other in one "
        "process (every round's time and their spread in the CSV)."
        if rounds[-1] > 1
        else " Inference: one timing each."
    )
    write_table(table, csv_path, md_path, caption=caption, bold=bold, md_df=shown)
    return table


def write_findings(
    instance_paths, table5_csv, out_csv, *, z=2.0, n_boot=1000, seed=0, deviation_points=DEVIATION_POINTS
):
    """``results/findings/parametric.csv``: the claims of Section 7.2.3 by paired bootstrap over
    test instances (one cell per dataset), Table 5 against the paper."""
    from fmeasure.experiments import findings as F

    inst = pd.concat([pd.read_csv(p) for p in instance_paths], ignore_index=True)
    link = "#sec-parametric"
    cat = F.paper_claims().set_index("claim_id")
    kw = dict(n_boot=n_boot, seed=seed)
    t5 = pd.read_csv(table5_csv)
    rows = [F.deviation_finding("table5", t5, ["hamming", "f"], link=link, threshold=deviation_points)]
    cells = F.bootstrap_cells(inst, "dataset", "hamming", ["BR"], ["LFP", "EFP"], **kw)
    rows.append(F.cells_finding("par.br_hamming", cells, z=z, link=link, what="BR vs best of LFP/EFP, hamming"))
    cells = pd.concat(
        [
            F.bootstrap_cells(inst, "dataset", "f", [o], ["BR"], **kw).assign(
                label=lambda d, o=o: d.label + f" {o} vs BR"
            )
            for o in ("LFP", "EFP")
        ],
        ignore_index=True,
    )
    rows.append(F.cells_finding("par.br_f", cells, z=z, link=link, what="each of LFP, EFP vs BR, f"))
    cells = F.bootstrap_cells(inst, "dataset", "f", ["EFP"], ["BR", "LFP"], **kw)
    rows.append(F.cells_finding("par.efp_f", cells, z=z, link=link, what="EFP vs best of BR/LFP, f"))
    row = F.fastest_inference_finding(
        t5, "BR", "par.br_inference", cat, others="fastest other learner's", link=link, z=z
    )
    if row is not None:
        rows.append(row)
    return F.write_findings(rows, out_csv)


def analysis(tables, points: float) -> tuple[list[str], list[pd.DataFrame]]:
    """The report's sentence on Table 5's cells more than ``points`` from the paper (folder
    ``tables``), and those cells."""
    return deviation_sentences(Path(tables) / "table5.csv", ["hamming", "f"], ["dataset", "method"], "Table 5", points)
