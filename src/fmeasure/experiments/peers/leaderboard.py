"""The peers leaderboard: a small committed snapshot of a complete run, and the page made from it.

    python -m fmeasure.experiments.peers.leaderboard snapshot [--results results] [--out docs/leaderboard]
    python -m fmeasure.experiments.peers.leaderboard page [--snapshot docs/leaderboard] [--page docs/peers_leaderboard.md]
    python -m fmeasure.experiments.peers.leaderboard compare [--results results] [--snapshot docs/leaderboard]

``snapshot`` turns a complete run's tables (``results/tables/peers*.csv``, the run records, the
environments' records, the critical-difference diagram) into ``docs/leaderboard/``: ``peers.csv``
(each row's F, the difference to the reference and the verdicts, to the printed digit),
``ranks.csv`` (both rankings), ``peers_cd.png`` and ``provenance.json`` (the commit, the protocol's
hash and the declared reference, the datasets and seeds, the package versions of every
environment, the machine, the run's wall seconds with a job running and its CPU seconds). It refuses a run whose records were made
under another protocol than the configuration's (:func:`fmeasure.experiments.peers.check_protocol`),
or one with a dataset missing. ``page`` writes ``docs/peers_leaderboard.md`` from the snapshot (and
says so when there is none yet); ``compare`` says where a new run's F differs from the snapshot's
at the printed digit (nothing, on the same protocol: every seed is fixed).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from fmeasure.experiments.peers.systems import title

__all__ = ["DIGITS", "snapshot", "page", "write_page", "compare", "main"]

#: Decimals of F (and of its differences and SEs) in the snapshot and on the page: the printed digit.
DIGITS = 2
#: The snapshot's files.
FILES = ("peers.csv", "ranks.csv", "provenance.json", "peers_cd.png")
SNAPSHOT_COLUMNS = [
    "dataset",
    "method",
    "kind",
    "family",
    "setting",
    "reference",
    "status",
    "n_seeds",
    "f",
    "f_sd",
    "diff_to_reference",
    "diff_se",
    "p_holm",
    "vs_reference",
    "p_ni_holm",
    "noninferior",
    "cpu_s",
]
RANK_SNAPSHOT = [
    "ranking",
    "method",
    "kind",
    "reference",
    "mean_rank",
    "rank_diff",
    "p_holm",
    "vs_reference",
    "n_timeouts",
    "n_datasets",
    "n_systems",
    "friedman_chi2",
    "friedman_p",
    "iman_davenport_f",
    "iman_davenport_p",
    "cd",
]


def _git(root, *args) -> str:
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def _machine() -> dict:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu or platform.processor(),
        "cores": os.cpu_count(),
    }


def _versions(
    names=(
        "fmeasure",
        "numpy",
        "scipy",
        "scikit-learn",
        "pandas",
        "statsmodels",
        "scikit-posthocs",
        "scikit-multilearn-ng",
        "snakemake",
    ),
) -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for n in names:
        try:
            out[n] = version(n)
        except PackageNotFoundError:
            out[n] = ""
    return out


def _busy_seconds(records) -> float | None:
    """Seconds during which at least one of the records' jobs ran: the union of their
    [started, finished] intervals, so that a run stopped and resumed later is not charged the pause.

    >>> _busy_seconds([{"started": 0, "finished": 10}, {"started": 5, "finished": 12}, {"started": 100, "finished": 103}])
    15.0
    """
    spans = sorted((float(r["started"]), float(r["finished"])) for r in records if "started" in r and "finished" in r)
    if not spans:
        return None
    total, (a, b) = 0.0, spans[0]
    for s, e in spans[1:]:
        if s > b:
            total, a, b = total + (b - a), s, e
        else:
            b = max(b, e)
    return round(total + (b - a), 0)


def snapshot(results, out, *, config: dict, root=".") -> dict:
    """Write the snapshot of the complete run in ``results`` (a results folder) to ``out``; returns
    its provenance. ``config`` is the run's configuration (its ``peers`` and ``report`` blocks)."""
    from fmeasure.experiments.peers.protocol import protocol_hash, protocol_spec
    from fmeasure.experiments.peers.stats import check_protocol

    results, out, root = Path(results), Path(out), Path(root)
    pc = config["peers"]
    proto = protocol_hash(protocol_spec(pc, root=root))
    table = pd.read_csv(results / "tables" / "peers.csv")
    ranks = pd.read_csv(results / "tables" / "peers_ranks.csv")
    records = [json.loads(p.read_text()) for p in sorted((results / "peers").glob("*/*_seed*.json"))]
    records = [r for r in records if r.get("dataset") in set(table.dataset)]
    check_protocol(records, protocol=proto, reference=pc["reference"])
    missing = [d for d in pc["datasets"] if d not in set(table.dataset)]
    if missing:
        raise ValueError(f"the run is not complete: no rows for {', '.join(missing)} of peers.datasets")
    out.mkdir(parents=True, exist_ok=True)
    t = table[SNAPSHOT_COLUMNS].copy()
    for c in ("f", "f_sd", "diff_to_reference", "diff_se"):
        t[c] = t[c].round(DIGITS)
    for c in ("p_holm", "p_ni_holm"):
        t[c] = t[c].round(4)
    t["cpu_s"] = t.cpu_s.round(0)
    t.to_csv(out / "peers.csv", index=False)
    r = ranks[RANK_SNAPSHOT].copy()
    for c in ("mean_rank", "rank_diff", "friedman_chi2", "iman_davenport_f", "cd"):
        r[c] = r[c].round(DIGITS)
    for c in ("p_holm", "friedman_p", "iman_davenport_p"):
        r[c] = r[c].round(4)
    r.to_csv(out / "ranks.csv", index=False)
    cd = results / "figures" / "peers_cd.png"
    if cd.is_file():
        shutil.copyfile(cd, out / "peers_cd.png")
    envs = {}
    for p in sorted((results / "peers" / "env").glob("*.json")):
        e = json.loads(p.read_text())
        envs[p.stem] = {"status": e.get("status"), "python": e.get("python", ""), "packages": e.get("packages", [])}
    commit = _git(root, "rev-parse", "HEAD")
    prov = {
        "commit": commit,
        "dirty": bool(_git(root, "status", "--porcelain", "--untracked-files=no")),
        "protocol": proto,
        "reference": pc["reference"],
        "margin": pc["margin"],
        "z": config["report"]["z"],
        "datasets": list(pc["datasets"]),
        "seeds": [int(s) for s in pc["seeds"]],
        "budget": dict(pc["budget"]),
        "large": dict(pc["large"]),
        "runs": len(records),
        "timeouts": int(sum(r.get("status") == "timeout" for r in records)),
        "cpu_s": round(float(np.nansum([r.get("cpu_s", np.nan) for r in records])), 0),
        "wall_s": _busy_seconds(records),
        "packages": {"project": _versions(), **envs},
        "machine": _machine(),
    }
    (out / "provenance.json").write_text(json.dumps(prov, indent=1, sort_keys=True) + "\n")
    return prov


def _p(v) -> str:
    """A p-value as the page prints it: four decimals, "< 0.0001" below, "—" when there is none.

    >>> [_p(0.21414), _p(0.0), _p(float("nan"))]
    ['0.2141', '< 0.0001', '—']
    """
    if not np.isfinite(v):
        return "—"
    return "< 0.0001" if v < 0.00005 else f"{v:.4f}"


def _seeds_line(prov: dict, t: pd.DataFrame) -> str:
    """The seeds, and the large datasets' fewer seeds and folds (``peers.large``), from the snapshot."""
    seeds = ", ".join(map(str, prov["seeds"]))
    large = prov.get("large") or {}
    ref = t[t.method == prov["reference"]]
    fewer = [d for d, n in zip(ref.dataset, ref.n_seeds) if int(n) < len(prov["seeds"])]
    if not fewer or not large:
        return seeds
    return (
        f"{seeds}; on the datasets of at least {int(large['cells']):,} training cells (n x m), the first "
        f"{int(large['seeds'])} with {int(large['cv'])}-fold tuning, for every system: {', '.join(fewer)}"
    )


def _p_eq(v) -> str:
    """ "= 0.0123" or "< 0.0001" (after "p" in a sentence)."""
    text = _p(v)
    return text if text.startswith("<") else f"= {text}"


def _cell(r) -> str:
    if r.status == "timeout":
        return "timeout"
    if str(r.status).startswith("not run"):
        return "not run"
    sd = f" ± {r.f_sd:.{DIGITS}f}" if np.isfinite(r.f_sd) else ""
    mark = {"better": " +", "worse": " −"}.get(r.vs_reference, "")
    ni = " ≤" if str(r.noninferior) == "True" else ""
    return f"{r.f:.{DIGITS}f}{sd}{mark}{ni}"


def _md(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def _hours(s) -> str:
    return f"{s / 3600:.1f} h" if s else "unknown"


def page(snapshot_dir) -> str:
    """The leaderboard page (Markdown) from the snapshot in ``snapshot_dir``."""
    snap = Path(snapshot_dir)
    head = "# Peers leaderboard\n\n"
    how = (
        "A snapshot of a complete run of the peers stage ([docs/peers.md](peers.md)): `snakemake --cores 2 peers_all`, "
        "then `python -m fmeasure.experiments.peers.leaderboard snapshot` writes `docs/leaderboard/` and `... page` "
        "this page. Every number below is the snapshot's.\n"
    )
    if not (snap / "peers.csv").is_file():
        return head + how + "\nNo snapshot yet: none has been taken from a complete run.\n"
    t = pd.read_csv(snap / "peers.csv")
    r = pd.read_csv(snap / "ranks.csv")
    prov = json.loads((snap / "provenance.json").read_text())
    ref = prov["reference"]
    facts = pd.DataFrame(
        [
            ("commit", f"`{prov['commit'][:12]}`" + (" (with changes not committed)" if prov["dirty"] else "")),
            ("protocol hash", f"`{prov['protocol']}`"),
            ("reference (declared before the run)", f"{title(ref)} (`{ref}`)"),
            ("datasets", f"{len(prov['datasets'])}: {', '.join(prov['datasets'])}"),
            ("seeds", _seeds_line(prov, t)),
            ("budget per run", f"{prov['budget']['cpu_s']} CPU s"),
            ("runs (timeouts)", f"{prov['runs']} ({prov['timeouts']})"),
            ("wall time with a job running, CPU time", f"{_hours(prov['wall_s'])}, {_hours(prov['cpu_s'])}"),
            (
                "machine",
                f"{prov['machine']['cpu']}, {prov['machine']['cores']} cores, Python {prov['machine']['python']}",
            ),
        ],
        columns=["", "this run"],
    )
    tuned = t[(t.setting == "tuned") | (t.family == "reference")]
    methods = [ref] + [m for m in dict.fromkeys(tuned.method) if m != ref]
    wide = []
    for d in dict.fromkeys(tuned.dataset):
        sub = tuned[tuned.dataset == d].set_index("method")
        wide.append({"dataset": d, **{m: _cell(sub.loc[m]) if m in sub.index else "" for m in methods}})
    by_dataset = pd.DataFrame(wide).rename(columns={ref: f"{ref} (reference)"})
    head_rows = t[t.family == "peers: F-maximizers"]
    ni = pd.DataFrame(
        {
            "dataset": head_rows.dataset,
            "peer": head_rows.method,
            "peer minus reference": [
                f"{d:+.{DIGITS}f} ± {s:.{DIGITS}f}" if st == "ran" else st
                for d, s, st in zip(head_rows.diff_to_reference, head_rows.diff_se, head_rows.status)
            ],
            "p (non-inferiority, Holm)": [_p(v) for v in head_rows.p_ni_holm],
            "reference at least as good": [
                "yes" if str(v) == "True" else ("peer over the budget" if st == "timeout" else "not shown")
                for v, st in zip(head_rows.noninferior, head_rows.status)
            ],
        }
    )
    parts = [head, how, "\n", _md(facts), "\n\n## Test F by dataset\n\n"]
    parts.append(
        f"Test instance-wise F (%) over the seeds (mean ± SD of the seeds' F), each system tuned on the training set; "
        f"+ (−): above (below) the reference after Holm's correction within its family; ≤: the reference shown at "
        f"least as good within {prov['margin']} points of F; timeout: over the budget.\n\n"
    )
    parts += [_md(by_dataset), "\n\n## The reference against the public F-maximizers\n\n"]
    parts.append(
        f"The headline: on each dataset, the reference against each public F-maximizer (peer minus reference ± its "
        f"standard error over test instances and seeds; the one-sided non-inferiority test with a margin of "
        f"{prov['margin']} points, Holm over the F-maximizers of the dataset).\n\n"
    )
    parts += [_md(ni), "\n\n## Ranks across datasets\n\n"]
    for ranking, who in (
        ("peers", "the reference and the public systems"),
        ("ours", "the reference and our other routes"),
    ):
        rk = r[(r.ranking == ranking) & r.mean_rank.notna()].sort_values("mean_rank")
        if rk.empty:
            continue
        r0 = rk.iloc[0]
        parts.append(
            f"{who.capitalize()}: Friedman chi2 = {r0.friedman_chi2:.{DIGITS}f} (p {_p_eq(r0.friedman_p)}), "
            f"Iman-Davenport F = {r0.iman_davenport_f:.{DIGITS}f} (p {_p_eq(r0.iman_davenport_p)}), "
            f"{int(r0.n_systems)} systems on {int(r0.n_datasets)} datasets, critical difference {r0.cd:.{DIGITS}f}.\n\n"
        )
        shown = pd.DataFrame(
            {
                "system": [f"{m} (reference)" if m == ref else m for m in rk.method],
                "kind": rk.kind,
                "mean rank": rk.mean_rank.map(lambda v: f"{v:.{DIGITS}f}"),
                "against the reference (Holm)": rk.vs_reference,
                "timeouts": rk.n_timeouts,
            }
        )
        parts += [_md(shown), "\n\n"]
        if ranking == "peers" and (snap / "peers_cd.png").is_file():
            parts.append("![Critical-difference diagram](leaderboard/peers_cd.png)\n\n")
    envs = {k: v for k, v in prov["packages"].items() if k != "project"}
    parts.append("## Versions\n\n")
    parts.append(_md(pd.DataFrame(sorted(prov["packages"]["project"].items()), columns=["package", "version"])))
    for name, e in envs.items():
        pins = ", ".join(p for p in e.get("packages", []) if not p.startswith(("pip=", "setuptools=")))
        parts.append(f"\n\n`{name}`'s environment (Python {e.get('python', '')}, {e.get('status')}): {pins}")
    return "".join(parts).rstrip() + "\n"


def write_page(snapshot_dir, page_path) -> str:
    text = page(snapshot_dir)
    Path(page_path).write_text(text)
    return text


def compare(results, snapshot_dir) -> list[str]:
    """Where a run's F (rounded to the printed digit) differs from the snapshot's: one line each."""
    new = pd.read_csv(Path(results) / "tables" / "peers.csv")
    old = pd.read_csv(Path(snapshot_dir) / "peers.csv")
    keys = ["dataset", "method", "setting"]
    both = old.merge(new[[*keys, "f", "status"]], on=keys, how="outer", suffixes=("_snapshot", "_run"))
    out = []
    for row in both.itertuples(index=False):
        a, b = row.f_snapshot, row.f_run
        same = (pd.isna(a) and pd.isna(b)) or (pd.notna(a) and pd.notna(b) and f"{a:.{DIGITS}f}" == f"{b:.{DIGITS}f}")
        if not same:
            out.append(f"{row.dataset} {row.method} {row.setting}: snapshot {a}, this run {b}")
    return out


def _config(paths) -> dict:
    import yaml

    from fmeasure.experiments.config import check_config

    merged = {}
    for p in paths:
        _merge(merged, yaml.safe_load(Path(p).read_text()) or {})
    return check_config(merged, Path(__file__).resolve().parents[4] / "config" / "schema.yaml")


def _merge(base: dict, over: dict) -> None:
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = v


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fmeasure.experiments.peers.leaderboard", description=__doc__.split("\n")[0]
    )
    parser.add_argument("command", choices=["snapshot", "page", "compare"])
    parser.add_argument("--results", default="results")
    parser.add_argument("--snapshot", "--out", dest="snapshot", default="docs/leaderboard")
    parser.add_argument("--page", default="docs/peers_leaderboard.md")
    parser.add_argument(
        "--configfile", nargs="+", default=["config/config.yaml"], help="the run's config files, in order"
    )
    args = parser.parse_args(argv)
    if args.command == "snapshot":
        prov = snapshot(args.results, args.snapshot, config=_config(args.configfile), root=Path.cwd())
        write_page(args.snapshot, args.page)
        print(f"snapshot of protocol {prov['protocol']} ({prov['runs']} runs) in {args.snapshot}; page {args.page}")
    elif args.command == "page":
        write_page(args.snapshot, args.page)
        print(f"{args.page} written from {args.snapshot}")
    else:
        diffs = compare(args.results, args.snapshot)
        print("\n".join(diffs) if diffs else f"every F of {args.results} equals the snapshot's to {DIGITS} decimals")
        return 1 if diffs else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
