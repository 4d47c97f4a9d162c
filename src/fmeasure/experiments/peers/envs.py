"""The peers' own environments: a virtual environment per peer, built once from pinned requirements
with a Python the peer supports (:func:`build_env`); when there is none, a one-line refusal
(:class:`EnvRefused`) and the peer's rows are marked not run."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["ENV_RECORD", "EnvRefused", "env_python", "python_version", "python_minor", "find_python", "build_env"]

#: The record a built environment keeps in its own folder (what was installed, from which file).
ENV_RECORD = "fmeasure-env.json"


class EnvRefused(RuntimeError):
    """A peer's environment cannot be built here (no Python it supports); its rows are not run."""


def _sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def env_python(prefix) -> Path:
    """The Python interpreter of the virtual environment at ``prefix``."""
    return Path(prefix) / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def python_version(executable) -> str | None:
    """The full version (``3.11.7``) of the Python ``executable``, or None when it does not run."""
    try:
        out = subprocess.run(
            [str(executable), "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def python_minor(version: str) -> str:
    """``X.Y`` of a version ``X.Y.Z``."""
    return ".".join(str(version).split(".")[:2])


def find_python(versions) -> tuple[str, str] | None:
    """``(executable, version)`` of a Python whose ``X.Y`` is one of ``versions``: the running
    interpreter if it is one, else the first ``pythonX.Y`` on the PATH (in the order of
    ``versions``) that runs. None when there is none."""
    versions = [str(v) for v in versions]
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    if here in versions:
        return sys.executable, ".".join(map(str, sys.version_info[:3]))
    for v in versions:
        exe = shutil.which(f"python{v}")
        found = python_version(exe) if exe else None
        if found and python_minor(found) == v:
            return exe, found
    return None


def build_env(requirements, prefix, *, python_versions, peer: str = "", log_file=None) -> dict:
    """Build (or reuse) a virtual environment at ``prefix`` from a pinned ``requirements`` file,
    with a Python whose ``X.Y`` is one of ``python_versions``.

    The environment is reused when it was built from a file with the same content (sha256) and its
    Python is one of ``python_versions``. A new one is built beside ``prefix`` with the interpreter
    :func:`find_python` finds and moved into place only when pip succeeded, so a failed build leaves
    nothing behind. Returns the record: ``status`` ("ok"), ``requirements``, ``sha256``, ``python``
    (the environment's version), ``python_needs``, ``interpreter`` (what built it), ``build_s``
    (seconds of this build; 0 when reused), ``reused`` and ``packages`` (``pip freeze``).

    Raises :class:`EnvRefused` (one line naming ``peer`` and the versions it needs) when no such
    Python is found, and ``RuntimeError`` with pip's last line, naming the requirements file, when
    pip fails.
    """
    requirements, prefix = Path(requirements), Path(prefix)
    needs = [str(v) for v in python_versions]
    if not needs:
        raise ValueError("python_versions: name at least one Python version (X.Y)")
    if not requirements.is_file():
        raise FileNotFoundError(f"{requirements}: no such requirements file")
    sha = _sha256(requirements)
    record_path = prefix / ENV_RECORD
    if record_path.is_file() and env_python(prefix).exists():
        old = json.loads(record_path.read_text())
        if old.get("sha256") == sha and python_minor(python_version(env_python(prefix)) or "") in needs:
            return {**old, "python_needs": needs, "build_s": 0.0, "reused": True}
    found = find_python(needs)
    if found is None:
        here = ".".join(map(str, sys.version_info[:3]))
        names = ", ".join(f"python{v}" for v in needs)
        raise EnvRefused(
            f"peer {peer or requirements.stem}: needs Python {' or '.join(needs)} for {requirements.name}; "
            f"this interpreter is {here} and none of {names} is on the PATH"
        )
    interpreter, version = found
    partial = prefix.with_name(prefix.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    made = subprocess.run([interpreter, "-m", "venv", "--clear", str(partial)], capture_output=True, text=True)
    if made.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        last = [line for line in (made.stderr or made.stdout).splitlines() if line.strip()]
        raise RuntimeError(f"{interpreter} -m venv failed: {last[-1] if last else 'no output'}")
    py = env_python(partial)
    out = subprocess.run(
        [str(py), "-m", "pip", "install", "--no-input", "--disable-pip-version-check", "-q", "-r", str(requirements)],
        capture_output=True,
        text=True,
    )
    if log_file is not None:
        Path(log_file).write_text(out.stdout + out.stderr)
    if out.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        last = [line for line in (out.stderr or out.stdout).splitlines() if line.strip()]
        raise RuntimeError(f"{requirements}: pip install failed: {last[-1] if last else 'no output'}")
    freeze = subprocess.run([str(py), "-m", "pip", "freeze"], capture_output=True, text=True, check=True).stdout
    record = {
        "status": "ok",
        "requirements": str(requirements),
        "sha256": sha,
        "python": python_version(py) or version,
        "python_needs": needs,
        "interpreter": str(interpreter),
        "build_s": time.perf_counter() - t0,
        "reused": False,
        "packages": freeze.split(),
    }
    (partial / ENV_RECORD).write_text(json.dumps(record, indent=1))
    shutil.rmtree(prefix, ignore_errors=True)
    partial.rename(prefix)  # only the interpreter is called afterwards, never the scripts pip wrote
    return record
