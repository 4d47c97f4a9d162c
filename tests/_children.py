"""Children of the test run that must not outlive it: the Slurm daemons, Snakemake runs.

Each such child starts in its own session (so that a Ctrl-C or a signal to the test process does
not reach it before its owner stops it in order), and is recorded here: in this process, and, in a
test session, as a file in the session's registry folder (``$FMEASURE_TEST_CHILDREN``, made by the
pytest controller in ``tests/conftest.py`` and inherited by the pytest-xdist workers). Its owner
stops it and :func:`forget` s it as usual; what is still recorded when the test run is terminated
is stopped by :func:`stop_recorded`:

* a SIGTERM to a worker (or to the single process of ``-n 0``) stops that process's children;
* a SIGTERM to the controller passes it on to the workers (a worker whose controller is gone would
  otherwise wait 5 s, interrupt itself and get 10 s before execnet's ``os._exit``), then stops every
  child still in the registry, whichever process started it;
* at exit, a process stops what it still records.

A child is stopped by its process group (SIGTERM, then SIGKILL after a grace period), newest first
(a Snakemake run cancels its Slurm jobs while the daemons are still up). Some processes belong to
no group we started: Slurm runs a batch job under its own ``slurmstepd``, in a session of its own,
and both outlive the daemons. :func:`record_sweep` records a folder for them: what runs with
``SLURM_CONF`` inside it in its environment, or holds a file inside it open, is killed when that
record is stopped (recorded before the daemons start, it is stopped after them). A group is signalled only
while its leader is the process recorded (same start time) or gone with members left: a process
id reused by someone else's process is never signalled.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

__all__ = [
    "REGISTRY_ENV",
    "popen",
    "record",
    "record_sweep",
    "sweep",
    "forget",
    "stop",
    "stop_recorded",
    "install",
    "uninstall",
]

#: Environment variable naming the session's registry folder.
REGISTRY_ENV = "FMEASURE_TEST_CHILDREN"
#: Seconds a group gets between SIGTERM and SIGKILL.
GRACE = 5.0

_own: list[dict] = []  # this process's records, oldest first
_installed = False


def _start_time(pid: int) -> str | None:
    """The kernel's start time of process ``pid`` (field 22 of /proc/<pid>/stat), None if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _ours(rec: dict) -> bool:
    """Whether ``rec``'s group still exists and is the one we started."""
    if not _group_alive(rec["pgid"]):
        return False
    started = _start_time(rec["pgid"])
    # the leader alive: it must be our process; gone: its id cannot be reused while its group lives
    return started is None or started == rec["start"]


def record(proc: subprocess.Popen | int, what: str = "") -> dict:
    """Record a child started in its own session (``proc`` or its pid: the group's id)."""
    pid = proc if isinstance(proc, int) else proc.pid
    rec = {"pgid": pid, "start": _start_time(pid), "owner": os.getpid(), "what": what, "t": time.time()}
    return _register(rec, str(pid))


def _register(rec: dict, name: str) -> dict:
    """Keep ``rec`` in this process and, in a test session, as ``<pid>-<name>.json`` in the registry."""
    _own.append(rec)
    folder = os.environ.get(REGISTRY_ENV)
    if folder and Path(folder).is_dir():
        path = Path(folder) / f"{os.getpid()}-{name}.json"
        path.write_text(json.dumps(rec))
        rec["file"] = str(path)
    return rec


_sweeps = 0


def record_sweep(root: Path | str, what: str = "") -> dict:
    """Record a folder whose processes are to be killed when the record is stopped (:func:`sweep`).

    The record has a negative ``pgid`` (no process group): pass the returned dict to :func:`stop`
    or :func:`forget`."""
    global _sweeps
    _sweeps += 1
    rec = {"pgid": -_sweeps, "sweep": str(root), "owner": os.getpid(), "what": what, "t": time.time()}
    return _register(rec, f"sweep{_sweeps}")


def _names(pid: int, root: str) -> bool:
    """Whether process ``pid`` has ``SLURM_CONF`` inside ``root`` in its environment or a file
    inside ``root`` open."""
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False
    prefix = os.fsencode(f"SLURM_CONF={root}/")
    if any(e.startswith(prefix) for e in env):
        return True
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(fd).startswith(f"{root}/"):
                return True
        except OSError:
            continue
    return False


def _running(pid: int, start: str | None) -> bool:
    """Whether ``pid`` is still the process that started at ``start`` and not a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[19] == start and fields[0] != "Z"


def sweep(root: Path | str, grace: float = GRACE) -> list[int]:
    """Kill (SIGTERM, SIGKILL after ``grace`` s) every process that names ``root`` as
    :func:`_names` says, this process and its ancestors excepted; the pids signalled."""
    root = str(Path(root).resolve())
    spare, pid = set(), os.getpid()
    while pid > 1:  # this process and its ancestors
        spare.add(pid)
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) not in spare and _names(int(entry.name), root):
            found.append((int(entry.name), _start_time(int(entry.name))))
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        live = [(p, s) for p, s in found if s is not None and _running(p, s)]
        for p, _ in live:
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        while any(_running(p, s) for p, s in live) and time.monotonic() < deadline:
            time.sleep(0.05)
    return [p for p, _ in found]


def forget(proc: subprocess.Popen | int | dict) -> None:
    """Drop the record of a child its owner has stopped (or that ended)."""
    pid = proc["pgid"] if isinstance(proc, dict) else proc if isinstance(proc, int) else proc.pid
    for rec in [r for r in _own if r["pgid"] == pid]:
        _own.remove(rec)
        if "file" in rec:
            Path(rec["file"]).unlink(missing_ok=True)


def popen(cmd, what: str = "", **kwargs) -> subprocess.Popen:
    """:class:`subprocess.Popen` in a new session, recorded."""
    proc = subprocess.Popen(cmd, start_new_session=True, **kwargs)
    record(proc, what or str(cmd[0]))
    return proc


def stop(proc: subprocess.Popen | int | dict, grace: float = GRACE) -> None:
    """Stop a recorded child's whole process group (SIGTERM, SIGKILL after ``grace`` s) and forget it."""
    pid = proc["pgid"] if isinstance(proc, dict) else proc if isinstance(proc, int) else proc.pid
    rec = next((r for r in _own if r["pgid"] == pid), None) or (proc if isinstance(proc, dict) else None)
    if rec is not None:
        _stop_group(rec, grace)
    if isinstance(proc, subprocess.Popen):
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    forget(pid)


def _stop_group(rec: dict, grace: float) -> None:
    if "sweep" in rec:
        sweep(rec["sweep"], grace)
        return
    if not _ours(rec):
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        try:
            os.killpg(rec["pgid"], sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:  # reap our own child, if the leader is one
                os.waitpid(rec["pgid"], os.WNOHANG)
            except ChildProcessError:
                pass
            if not _group_alive(rec["pgid"]):
                return
            time.sleep(0.05)


def _registry_records() -> list[dict]:
    folder = os.environ.get(REGISTRY_ENV)
    if not folder or not Path(folder).is_dir():
        return []
    out = []
    for path in Path(folder).glob("*.json"):
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        rec["file"] = str(path)
        out.append(rec)
    return out


def stop_recorded(everyone: bool = False, grace: float = GRACE) -> None:
    """Stop this process's recorded children (``everyone``: every child in the session's registry),
    newest first."""
    recs = {(r["owner"], r["pgid"]): r for r in _own}
    if everyone:
        recs.update({(r["owner"], r["pgid"]): r for r in _registry_records()})
    for rec in sorted(recs.values(), key=lambda r: r["t"], reverse=True):
        _stop_group(rec, grace)
        forget(rec)
        if "file" in rec:
            Path(rec["file"]).unlink(missing_ok=True)


def _workers() -> list[dict]:
    folder = os.environ.get(REGISTRY_ENV)
    if not folder or not Path(folder).is_dir():
        return []
    out = []
    for path in Path(folder).glob("worker-*.pid"):
        try:
            out.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    return out


def _on_sigterm(controller: bool):
    def handler(signum, frame):
        signal.signal(signum, signal.SIG_IGN)  # once
        if controller:
            workers = [w for w in _workers() if _start_time(w["pid"]) == w["start"]]
            for w in workers:
                try:
                    os.kill(w["pid"], signal.SIGTERM)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + 4 * GRACE
            while any(_start_time(w["pid"]) == w["start"] for w in workers) and time.monotonic() < deadline:
                time.sleep(0.1)
        stop_recorded(everyone=controller)
        if controller:
            _remove_registry()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)  # die of the signal, as without this handler

    return handler


def install(*, controller: bool) -> None:
    """Stop the recorded children on SIGTERM and at exit (``tests/conftest.py``, every process).

    The controller (or the single process of ``-n 0``) makes the session's registry folder; a
    pytest-xdist worker announces itself there so that the controller can pass SIGTERM on."""
    global _installed
    if _installed:
        return
    _installed = True
    if controller:
        os.environ[REGISTRY_ENV] = tempfile.mkdtemp(prefix="fmeasure-test-children-")
    else:
        folder = os.environ.get(REGISTRY_ENV)
        if folder and Path(folder).is_dir():
            me = {"pid": os.getpid(), "start": _start_time(os.getpid())}
            (Path(folder) / f"worker-{os.getpid()}.pid").write_text(json.dumps(me))
    if threading.current_thread() is threading.main_thread():  # where Python runs signal handlers
        signal.signal(signal.SIGTERM, _on_sigterm(controller))
    atexit.register(stop_recorded, everyone=controller)


def uninstall(*, controller: bool) -> None:
    """At the end of a session: stop what is left and, in the controller, remove the registry."""
    stop_recorded(everyone=controller)
    if controller:
        _remove_registry()


def _remove_registry() -> None:
    folder = os.environ.get(REGISTRY_ENV)
    if folder and Path(folder).is_dir():
        for path in Path(folder).iterdir():
            path.unlink(missing_ok=True)
        Path(folder).rmdir()
