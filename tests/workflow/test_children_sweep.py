"""tests/_children.py's sweep: the processes a folder's record names are killed, and no other."""

import subprocess
import sys
import time

import _children


def _spawn(cmd, **kw):
    return subprocess.Popen(cmd, start_new_session=True, stdin=subprocess.DEVNULL, **kw)


def test_sweep_kills_what_names_the_folder_and_spares_the_rest(tmp_path):
    root = tmp_path / "cluster"
    root.mkdir()
    held = root / "held.log"
    sleeper = [sys.executable, "-c", "import time; time.sleep(120)"]
    by_env = _spawn(sleeper, env={"SLURM_CONF": str(root / "slurm.conf")})
    with open(held, "w") as out:  # holds a file inside the folder open, as slurmstepd holds slurmd's log
        by_fd = _spawn(sleeper, stdout=out)
    other = _spawn(sleeper, env={"SLURM_CONF": str(tmp_path / "elsewhere" / "slurm.conf")})
    try:
        time.sleep(0.5)  # the environments and files are in place once the processes run
        killed = _children.sweep(root, grace=5)
        assert sorted(killed) == sorted([by_env.pid, by_fd.pid])
        for proc in (by_env, by_fd):
            assert proc.wait(timeout=10) != 0
        assert other.poll() is None
    finally:
        for proc in (by_env, by_fd, other):
            proc.kill()
            proc.wait()


def test_stopping_a_sweep_record_kills_its_processes_and_forgets_it(tmp_path):
    root = tmp_path / "cluster"
    root.mkdir()
    rec = _children.record_sweep(root, "test")
    proc = _spawn([sys.executable, "-c", "import time; time.sleep(120)"], env={"SLURM_CONF": f"{root}/slurm.conf"})
    try:
        time.sleep(0.5)
        assert rec["pgid"] < 0 and rec in _children._own
        _children.stop(rec, grace=5)
        assert proc.wait(timeout=10) != 0 and rec not in _children._own
    finally:
        proc.kill()
        proc.wait()
