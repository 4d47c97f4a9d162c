"""What ran when on the cores in a Snakemake run, which job ended last and why, and the idle cores.

    python tools/critical_path.py [RUN_DIR] [--log LOG] [--cores N] [--top 10] [--bucket 60]
                                  [--lanes] [--scale RULE=FACTOR ...] [--first RULE ...]

RUN_DIR (default: the current directory) is the run's working directory: its Snakemake log
(.snakemake/log/, the newest unless --log), its metadata (.snakemake/metadata/: each job's start
and end to the microsecond) and its benchmark files (results/benchmarks/: CPU time, memory).
Prints the run's wall time and the cores' busy and idle time; the job that ended last with its
chain of dependencies (for each link, when it was ready and how long it then waited for a core);
the lower bounds on the run's length (the work over the cores; the longest chain of dependent
jobs); the biggest jobs; the cores' use over time (--lanes: every job on its core). --scale
replays the run with some rules' jobs shorter or longer (e.g. structured_rml=0.33), --first with
some rules' jobs started before the others when ready (as a higher `priority:`), and prints the
length it would have had (the same replay at the recorded durations is printed beside it, as the
replay's own error).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from fmeasure.experiments.costs import core_usage, critical_chain, longest_path, run_timeline, simulate


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60:d}:{seconds % 60:02d}"


def _scales(items) -> dict:
    out = {}
    for item in items or []:
        rule, sep, factor = item.partition("=")
        if not sep:
            raise ValueError(f"--scale {item!r}: RULE=FACTOR expected")
        out[rule] = float(factor)
    return out


def lanes(table, cores: int) -> list[list[tuple]]:
    """Each job put on ``min(threads, cores)`` cores that are free at its start (the earliest freed
    when none is: the recorded times have a resolution of about a second)."""
    free_at = [-np.inf] * cores
    out = [[] for _ in range(cores)]
    for row in table.dropna(subset=["end_s"]).itertuples():
        need = min(int(row.threads), cores)
        chosen = sorted(range(cores), key=lambda c: (free_at[c] > row.start_s + 0.5, free_at[c]))[:need]
        for c in chosen:
            free_at[c] = row.end_s
            out[c].append((row.start_s, row.end_s, row.job))
    return out


def report(
    run_dir: Path, log=None, cores=None, top=10, bucket=60.0, show_lanes=False, scale=None, first_rules=()
) -> str:
    table, run = run_timeline(run_dir, log)
    cores = cores or run["cores"] or 1
    done = table.dropna(subset=["end_s"])
    if done.empty:
        return f"{run['log']}: no finished job"
    first, last = float(done["start_s"].min()), float(done["end_s"].max())
    use = core_usage(table, cores, start=first, end=last)
    work = float((np.minimum(done["threads"], cores) * done["dur_s"]).sum())
    out = [
        f"run: {run['log']}",
        f"jobs: {len(done)} finished"
        + (f", {int(table['failed'].sum())} failed" if table["failed"].any() else "")
        + f", on {cores} cores",
        f"wall: {_clock(last)} from Snakemake's start to the last job's end ({last:.0f} s); "
        f"{first:.0f} s before the first job (DAG, onstart), {last - first:.0f} s of jobs",
        f"cores: busy {use['busy_core_s']:.0f} core-s of {cores} x {use['span_s']:.0f} s "
        f"({100 * use['busy_fraction']:.0f}%), idle {use['idle_core_s']:.0f} core-s "
        f"(+ {cores * first:.0f} core-s before the first job)",
    ]
    length, path = longest_path(table)
    out += [
        f"lower bounds on the jobs' span: their work over the cores {work / cores:.0f} s; "
        f"the longest chain of dependent jobs {length:.0f} s:",
        "    " + " -> ".join(path),
        "",
    ]
    chain = critical_chain(table)
    end_job = chain.iloc[-1]
    out.append(f"ended last: {end_job['job']} at {_clock(end_job['end_s'])}; its chain of dependencies:")
    out.append(f"  {'start':>6} {'end':>6} {'dur s':>7} {'ready':>6} {'waited s':>8}  job")
    for r in chain.itertuples():
        out.append(
            f"  {_clock(r.start_s):>6} {_clock(r.end_s):>6} {r.dur_s:7.1f} {_clock(r.ready_s):>6} {r.waited_s:8.1f}  {r.job}"
        )
    out.append(
        f"  the chain: {first:.0f} s before the run's first job, {chain['dur_s'].sum():.0f} s running, "
        f"{chain['waited_s'].sum():.0f} s ready but waiting (for free cores or the scheduler)"
    )
    out.append("")
    big = done.assign(core_s=np.minimum(done["threads"], cores) * done["dur_s"]).nlargest(top, "core_s")
    out.append("biggest jobs (core-seconds = duration x cores held; CPU from the benchmark file):")
    out.append(f"  {'start':>6} {'dur s':>7} {'thr':>3} {'core-s':>7} {'CPU s':>7} {'RSS MB':>7}  job")
    for r in big.itertuples():
        out.append(
            f"  {_clock(r.start_s):>6} {r.dur_s:7.1f} {r.threads:3d} {r.core_s:7.1f} {r.cpu_s:7.1f} {r.max_rss_mb:7.0f}  {r.job}"
        )
    out.append(f"  all {len(done)} jobs: {work:.0f} core-s; the {top} biggest: {big['core_s'].sum():.0f}")
    out.append("")
    out.append(f"cores busy per {bucket:.0f} s (# busy, . idle; the jobs that ran longest in it):")
    t = 0.0
    while t < last:
        u = core_usage(table, cores, start=t, end=min(t + bucket, last))
        width = 20
        bar = "#" * int(round(width * u["busy_fraction"])) if u["span_s"] > 0 else ""
        lo, hi = done["start_s"].clip(lower=t, upper=t + bucket), done["end_s"].clip(lower=t, upper=t + bucket)
        inside = done.assign(overlap=hi - lo)
        names = inside[inside["overlap"] > 0].nlargest(3, "overlap")["job"].tolist()
        out.append(f"  {_clock(t):>6} {bar:.<{width}} {u['busy_fraction'] * cores:4.1f}  {', '.join(names)}")
        t += bucket
    if show_lanes:
        out.append("")
        for c, jobs in enumerate(lanes(done, cores)):
            out.append(f"core {c}:")
            out += [f"  {_clock(s):>6} {_clock(e):>6} {e - s:7.1f}  {job}" for s, e, job in jobs]
    if scale or first_rules:
        same = simulate(table, cores)
        scaled = simulate(table, cores, scale=scale, first=first_rules)
        held = np.minimum(done["threads"], cores) * done["dur_s"]
        s_work = float((held * done["rule"].map(lambda r: scale.get(r, 1.0))).sum())
        s_len, s_path = longest_path(table, scale)
        error = last - float(same["end_s"].max())
        out += [
            "",
            "replay with "
            + ", ".join([*(f"{k} x {v:g}" for k, v in scale.items()), *(f"{k} first" for k in first_rules)])
            + ":",
            f"  wall {_clock(float(scaled['end_s'].max()) + error)}: jobs' span {scaled['end_s'].max() - first:.0f} s, "
            f"plus {error:.0f} s by which the same replay at the recorded durations ({same['end_s'].max() - first:.0f} s) "
            f"falls short of the run ({last - first:.0f} s)",
            f"  lower bounds: work over the cores {s_work / cores:.0f} s; longest chain {s_len:.0f} s: "
            + " -> ".join(s_path),
        ]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", nargs="?", default=".", type=Path)
    ap.add_argument("--log", type=Path, help="the run's Snakemake log (default: the newest of RUN_DIR)")
    ap.add_argument("--cores", type=int, help="cores of the run (default: Snakemake's 'Provided cores')")
    ap.add_argument("--top", type=int, default=10, help="biggest jobs listed (default: 10)")
    ap.add_argument("--bucket", type=float, default=60.0, help="seconds per line of the cores' use (default: 60)")
    ap.add_argument("--lanes", action="store_true", help="also list every job on the core it ran on")
    ap.add_argument(
        "--scale", action="append", metavar="RULE=FACTOR", help="replay with the rule's jobs this much longer"
    )
    ap.add_argument(
        "--first", nargs="+", default=(), metavar="RULE", help="replay with these rules' jobs started first"
    )
    args = ap.parse_args(argv)
    try:
        scale = _scales(args.scale)
        print(report(args.run_dir, args.log, args.cores, args.top, args.bucket, args.lanes, scale, tuple(args.first)))
    except (OSError, ValueError) as exc:
        print(f"critical_path: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
