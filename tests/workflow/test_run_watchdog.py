"""The end-to-end tests' runner stops a run that makes no progress, and only such a run.

:func:`_workflow.run_snakemake` bounds the time without progress (a finished step, a new file),
not the whole run: a slow run on a loaded machine goes on, a stalled one is stopped with how far it
got. Checked here on stand-in commands (no Snakemake), so it takes seconds.
"""

import sys
import time

import _workflow
import pytest


def _run_as(monkeypatch, tmp_path, code, timeout):
    monkeypatch.setattr(_workflow, "snakemake_cmd", lambda *a, **k: [sys.executable, "-c", code])
    return _workflow.run_snakemake(tmp_path, timeout=timeout)


def test_a_run_that_keeps_finishing_steps_outlives_the_timeout(monkeypatch, tmp_path):
    code = (
        "import sys, time\n"
        "for i in range(1, 7):\n"
        "    time.sleep(0.5); print(f'{i} of 6 steps ({100 * i // 6}%) done', file=sys.stderr, flush=True)\n"
    )
    t0 = time.monotonic()
    out = _run_as(monkeypatch, tmp_path, code, timeout=2)
    assert out.returncode == 0 and time.monotonic() - t0 > 2.5  # longer than the timeout, not stopped
    assert "6 of 6 steps" in out.stderr


def test_a_stalled_run_is_stopped_and_says_how_far_it_got(monkeypatch, tmp_path):
    code = "import sys, time\nprint('1 of 4 steps (25%) done', file=sys.stderr, flush=True)\ntime.sleep(120)\n"
    t0 = time.monotonic()
    with pytest.raises(AssertionError, match=r"no progress for 2 s and was stopped \(1 of 4 steps \(25%\) done"):
        _run_as(monkeypatch, tmp_path, code, timeout=2)
    assert time.monotonic() - t0 < 30
