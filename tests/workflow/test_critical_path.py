"""The timeline of a run (tools/critical_path.py): hand-made log, metadata and benchmark files whose
critical path, idle cores and replays are worked out by hand."""

import base64
import importlib.util
import json
import time
from pathlib import Path

import pandas as pd
import pytest

from fmeasure.experiments.costs import core_usage, critical_chain, longest_path, run_timeline, simulate

ROOT = Path(__file__).resolve().parents[2]
BASE = time.mktime((2026, 1, 2, 3, 4, 5, 0, 0, -1))  # the run's start (local time), as in the log's name
LOG_NAME = "2026-01-02T030405.000000.snakemake.log"

# jobid: rule, wildcards, inputs, outputs, threads, logged start and end (s after BASE; the log has
# whole seconds), metadata start and end (the exact times) or None (no record of this run)
JOBS = {
    1: ("fetch", "", [], ["data/a.txt"], 1, (10, 12), (10.0, 12.0)),
    2: ("fit", "learner=big", ["data/a.txt"], ["r/b.txt"], 1, (12, 100), (12.25, 99.75)),
    3: ("fit", "learner=small", ["data/a.txt"], ["r/c.txt"], 1, (12, 20), (12.25, 20.0)),
    4: ("refine", "", ["r/c.txt"], ["r/d.txt"], 1, (20, 30), (20.0, 30.0)),
    # ready at 30 s, needs both cores: waits until the big fit ends at 99.75 s
    5: ("wide", "", ["r/d.txt"], ["r/e.txt"], 2, (100, 130), (99.75, 129.75)),
    6: ("table", "", ["r/b.txt", "r/e.txt"], ["r/f.txt"], 1, (130, 133), None),
    0: ("all", "", ["r/f.txt"], [], 1, (133, 133), None),
}


def _stamp(t):
    return f"[{time.asctime(time.localtime(BASE + t))}]"


def _write_run(root: Path):
    lines = ["Building DAG of jobs...", "Provided cores: 2", "Job stats:", ""]
    events = []
    for jobid, (rule, wildcards, inputs, outputs, threads, (start, end), _) in JOBS.items():
        block = [_stamp(start), f"localrule {rule}:"]
        block += [f"    input: {', '.join(inputs)}"] if inputs else []
        block += [f"    output: {', '.join(outputs)}"] if outputs else []
        block += [f"    jobid: {jobid}"]
        block += [f"    benchmark: results/benchmarks/{rule}_{jobid}.tsv"] if outputs else []
        block += [f"    wildcards: {wildcards}"] if wildcards else []
        block += [f"    threads: {threads}"] if threads > 1 else []
        block += ["    resources: tmpdir=/tmp", "Shell command: None"]
        events.append((start, 1, jobid, block))
        finished = [_stamp(end), f"Finished jobid: {jobid} (Rule: {rule})", "1 of 7 steps done"]
        events.append((end, 0 if end > start else 2, jobid, finished))  # another job's end, then starts
    for _, _, _, block in sorted(events):
        lines += block
    log = root / ".snakemake" / "log" / LOG_NAME
    log.parent.mkdir(parents=True)
    log.write_text("\n".join(lines) + "\n")
    meta = root / ".snakemake" / "metadata"
    meta.mkdir()
    for rule, _, _, outputs, _, _, exact in JOBS.values():
        for out in outputs:
            key = base64.urlsafe_b64encode(out.encode()).decode()
            # no record of this run: one left by an earlier run, which must not be taken
            start, end = (BASE + exact[0], BASE + exact[1]) if exact else (BASE - 5000.0, BASE - 4000.0)
            (meta / key).write_text(json.dumps({"rule": rule, "starttime": start, "endtime": end}))
    bench = root / "results" / "benchmarks"
    bench.mkdir(parents=True)
    for jobid, (rule, _, _, outputs, _, (start, end), _) in JOBS.items():
        if outputs:
            (bench / f"{rule}_{jobid}.tsv").write_text(
                f"s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
                f"{end - start}\t0:00:00\t{100 * jobid}\t1\t1\t1\t0\t0\t50\t{jobid}.5\n"
            )
    return root


@pytest.fixture
def run(tmp_path):
    return _write_run(tmp_path)


def test_timeline_takes_the_metadata_times_of_this_run_and_the_log_otherwise(run):
    table, info = run_timeline(run)
    assert info["cores"] == 2 and info["start"] == pytest.approx(BASE)
    t = table.set_index("jobid")
    assert list(table["jobid"]) == [1, 2, 3, 4, 5, 6, 0]
    assert t.at[2, "job"] == "fit[big]" and t.at[5, "threads"] == 2
    assert (t.at[2, "start_s"], t.at[2, "end_s"]) == (12.25, 99.75)  # metadata, to the microsecond
    assert (t.at[6, "start_s"], t.at[6, "end_s"]) == (130.0, 133.0)  # an earlier run's record: the log
    assert t.at[6, "deps"] == [2, 5] and t.at[5, "deps"] == [4] and t.at[1, "deps"] == []
    assert t.at[2, "cpu_s"] == 2.5 and t.at[2, "max_rss_mb"] == 200.0 and t.at[2, "wall_s"] == 88.0


def test_critical_chain_goes_through_the_dependency_that_ended_last(run):
    table, _ = run_timeline(run)
    chain = critical_chain(table)
    assert list(chain["jobid"]) == [1, 3, 4, 5, 6, 0]  # not through the longer fit, which ended first
    wide = chain.set_index("jobid").loc[5]
    assert wide["ready_s"] == 30.0 and wide["waited_s"] == pytest.approx(69.75)  # waited for both cores
    assert chain.set_index("jobid").at[1, "ready_s"] == 10.0  # the run's first job: ready at once


def test_idle_cores_and_longest_path_by_hand(run):
    table, _ = run_timeline(run)
    use = core_usage(table, 2, start=10.0, end=133.0)
    busy = 2 + 87.5 + 7.75 + 10 + 2 * 30 + 3  # the wide job holds both cores
    assert use["busy_core_s"] == pytest.approx(busy)
    assert use["idle_core_s"] == pytest.approx(2 * 123 - busy)
    length, path = longest_path(table)
    assert path == ["fetch", "fit[big]", "table", "all"] and length == pytest.approx(2 + 87.5 + 3)
    length, path = longest_path(table, {"fit": 0.1})
    assert path == ["fetch", "fit[small]", "refine", "wide", "table", "all"]
    assert length == pytest.approx(2 + 0.775 + 10 + 30 + 3)


def test_replay_reproduces_the_run_and_shortens_a_rule(run):
    table, _ = run_timeline(run)
    same = simulate(table, 2).set_index("jobid")  # each job as soon as it can: the big fit from 12 s
    assert same.at[5, "start_s"] == pytest.approx(99.5) and same.at[0, "end_s"] == pytest.approx(132.5)
    half = simulate(table, 2, scale={"fit": 0.5}).set_index("jobid")
    # the big fit ends at 12 + 43.75: the wide job starts then, not at 99.75
    assert half.at[2, "end_s"] == pytest.approx(55.75)
    assert half.at[5, "start_s"] == pytest.approx(55.75) and half.at[0, "end_s"] == pytest.approx(88.75)
    one = simulate(table, 1).set_index("jobid")  # one core: the jobs one after the other
    assert one.at[0, "end_s"] == pytest.approx(10 + 2 + 87.5 + 7.75 + 10 + 30 + 3)


def test_the_tool_prints_the_chain_and_the_idle_cores(run, capsys):
    spec = importlib.util.spec_from_file_location("critical_path", ROOT / "tools" / "critical_path.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.main([str(run), "--scale", "fit=0.5", "--lanes", "--bucket", "30"]) == 0
    out = capsys.readouterr().out
    assert "ended last: all at 2:13" in out
    assert "fetch -> fit[big] -> table -> all" in out  # the longest chain
    assert "  1:40   2:10    30.0   0:30     69.8  wide" in out  # its wait for both cores
    assert "idle 76 core-s" in out  # 246 - 170.25 over the jobs' span, + 20 before the first job
    assert "wall 1:29" in out  # the replay with the fits halved
    assert tool.main([str(run / "nothing")]) == 1


def test_replay_starts_the_first_rules_jobs_before_the_others():
    table = pd.DataFrame(
        {
            "jobid": [1, 2, 3],
            "job": ["long", "short", "after"],
            "rule": ["long", "short", "after"],
            "threads": [1, 1, 1],
            "start_s": [0.0, 10.0, 15.0],
            "end_s": [10.0, 15.0, 16.0],
            "dur_s": [10.0, 5.0, 1.0],
            "deps": [[], [], [2]],
        }
    )
    as_run = simulate(table, 1).set_index("job")
    assert (as_run.at["short", "start_s"], as_run.at["after", "end_s"]) == (10.0, 16.0)
    short_first = simulate(table, 1, first=("short",)).set_index("job")
    # short, then long (the only job ready), then the job that waited for short
    assert short_first.at["short", "start_s"] == 0.0 and short_first.at["long", "start_s"] == 5.0
    assert short_first.at["after", "start_s"] == 15.0
    two = simulate(table, 2, first=("short",)).set_index("job")
    assert two.at["after", "end_s"] == 6.0 and two.at["long", "end_s"] == 10.0
