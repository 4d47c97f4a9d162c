"""Benchmark: what each Snakemake job pays before its work, per rule and summed over a run's jobs.

Every job of a `script:` rule is a new Python process: the interpreter, Snakemake's preamble (it
unpickles the job's `snakemake` object, which imports part of Snakemake), then every module the
script and the functions it calls import (fmeasure, numpy, pandas, scipy, scikit-learn, numba and
numba's first use, matplotlib...).

1. ``profile``: run the workflow on one core with ``PYTHONPROFILEIMPORTTIME=1`` (each job's imports
   are then printed right after its header): the smoke config by default, which runs every rule of
   the default run on small slices in tests/data.

       python benchmarks/bench_startup.py profile /tmp/startup-run

2. ``cost``: replay in a new interpreter, for each rule, the imports of its first job in that log
   (after Snakemake's preamble), best wall and CPU time of ``--repeats``; count each rule's jobs in a
   dry run of the default config (its datasets from ``$FMEASURE_DATA_MIRROR``); print each rule's
   start-up, the sum over the run's jobs, and Snakemake's own time between jobs in the profiled run.

       FMEASURE_DATA_MIRROR=<mirror> python benchmarks/bench_startup.py cost /tmp/startup-run

CPU times are what to compare on a shared machine (wall times grow with the other load).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOG = "importtime.log"
#: What Snakemake's script preamble runs before the script (snakemake.script.PythonScript).
PREAMBLE = "import sys, pickle\nfrom snakemake.logging import logger\nfrom snakemake.iocontainers import Snakemake\n"
_HEADER = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):$")
_IMPORT = re.compile(r"^import time:\s+\d+ \|\s+\d+ \| (\S+)$")  # a top-level import (no indent)
_PROCESS = "import time: self [us] | cumulative | imported package"  # a new process's first line


def profile(run_dir: Path, configfiles) -> int:
    run_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1")
    env.setdefault("FMEASURE_DATA_MIRROR", str(ROOT / "tests" / "data"))
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(run_dir)]
    cmd += ["--configfile", *map(str, configfiles), "--cores", "1", "--nocolor"]
    cmd += ["--workflow-profile", str(ROOT / "workflow" / "profiles" / "default")]
    with open(run_dir / LOG, "w") as err:
        return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env).returncode


def job_imports(log_path: Path) -> dict[str, list[str]]:
    """Rule -> the top-level modules its first job imported, in order (from a one-core run's log)."""
    imports: dict[str, list[str]] = {}
    rule = None
    child = False
    for line in log_path.read_text().splitlines():
        if m := _HEADER.match(line):
            rule = m.group(1) if m.group(1) not in imports else None
            child = False
            if rule:
                imports[rule] = []
        elif line.startswith(_PROCESS):
            child = True  # what the Snakemake process imports lazily between jobs comes before
        elif rule and child and (m := _IMPORT.match(line)):
            if m.group(1) not in imports[rule]:
                imports[rule].append(m.group(1))
    return imports


def replay(modules, repeats: int) -> tuple[float, float]:
    """Best wall and CPU seconds of a new interpreter that runs the preamble and imports ``modules``
    (None: an empty interpreter, without the preamble)."""
    if modules is None:
        code = "pass"
    else:
        code = PREAMBLE + "".join(f"try:\n    import {m}\nexcept Exception:\n    pass\n" for m in modules)
    best_wall = best_cpu = float("inf")
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    return best_wall, best_cpu


def job_counts(configfiles=(), extra=()) -> dict[str, int]:
    """Jobs per rule in a dry run of the workflow (default config) in an empty directory."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--directory", tmp]
        cmd += ["-n", "--quiet", "rules", *(["--configfile", *map(str, configfiles)] if configfiles else []), *extra]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    counts, inside = {}, False
    for line in (out.stdout + out.stderr).splitlines():
        if line.startswith("Job stats"):
            if counts:
                break
            inside = True
        elif inside and (m := re.match(r"^(\w+)\s+(\d+)$", line)):
            if m.group(1) == "total":
                break
            counts[m.group(1)] = int(m.group(2))
    return counts


def between_jobs(run_dir: Path) -> tuple[int, float]:
    """Jobs of the profiled (one-core) run and Snakemake's seconds per job outside them: the span
    from the first job's start to the last one's end minus the jobs' durations."""
    sys.path.insert(0, str(ROOT / "src"))
    from fmeasure.experiments.costs import run_timeline

    table, _ = run_timeline(run_dir)
    done = table.dropna(subset=["end_s"])
    span = float(done["end_s"].max() - done["start_s"].min())
    return len(done), (span - float(done["dur_s"].sum())) / max(len(done), 1)


def cost(run_dir: Path, repeats: int, configfiles, extra) -> None:
    imports = job_imports(run_dir / LOG)
    counts = job_counts(configfiles, extra)
    missing = sorted(r for r in counts if r not in imports)
    bare, pre = replay(None, repeats), replay([], repeats)
    print(
        f"a new interpreter: {bare[0]:.3f} s wall, {bare[1]:.3f} s CPU; with Snakemake's preamble: {pre[0]:.3f}, {pre[1]:.3f}"
    )
    rows = []
    for rule, n in counts.items():
        if imports.get(rule):  # a job that runs no script (the target rule) starts no process
            wall, cpu = replay(imports[rule], repeats)
            rows.append((rule, n, len(imports[rule]), wall, cpu))
    rows.sort(key=lambda r: -r[1] * r[4])
    print(f"{'rule':28s} {'jobs':>4} {'mods':>4} {'wall s':>7} {'CPU s':>6} {'jobs x CPU':>10}")
    for rule, n, mods, wall, cpu in rows:
        print(f"{rule:28s} {n:4d} {mods:4d} {wall:7.3f} {cpu:6.3f} {n * cpu:10.1f}")
    jobs = sum(r[1] for r in rows)
    wall = sum(r[1] * r[3] for r in rows)
    cpu = sum(r[1] * r[4] for r in rows)
    print(f"{jobs} jobs: start-up {wall:.0f} s wall, {cpu:.0f} s CPU ({cpu / max(jobs, 1):.2f} s CPU per job)")
    if missing:
        print("rules without a job in the profiled run (not counted):", ", ".join(missing))
    n, gap = between_jobs(run_dir)
    print(f"the profiled run: {n} jobs, Snakemake's time between jobs {gap:.2f} s per job")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("profile", help="run the workflow on one core, printing each job's imports")
    p.add_argument("run_dir", type=Path)
    p.add_argument("--configfile", nargs="+", type=Path, default=[ROOT / "config" / "smoke.yaml"])
    c = sub.add_parser("cost", help="each rule's start-up, summed over the jobs of a run")
    c.add_argument("run_dir", type=Path)
    c.add_argument("--repeats", type=int, default=5)
    c.add_argument(
        "--configfile", nargs="+", type=Path, default=(), help="config of the counted run (default: config.yaml)"
    )
    c.add_argument("--config", nargs="+", default=(), help="--config of the counted run")
    args = ap.parse_args(argv)
    if args.command == "profile":
        return profile(args.run_dir, args.configfile)
    cost(args.run_dir, args.repeats, args.configfile, ["--config", *args.config] if args.config else [])
    return 0


if __name__ == "__main__":
    sys.exit(main())
