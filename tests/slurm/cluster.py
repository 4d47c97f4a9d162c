"""A throwaway Slurm cluster of several nodes (default two) on the local machine, for tests.

Brings up ``munged``, ``slurmctld`` and one ``slurmd`` per node by hand (no systemd, no cgroups,
no accounting database) with every file -- config, munge key and socket, state, spool, logs,
PID files -- inside one temporary directory, on free TCP ports, so it does not collide with
a site installation or with another copy of itself. The nodes are all on this host: each
``slurmd`` is started with ``-N <node>`` and listens on the ``Port=`` of its own ``NodeName``
line (``NodeAddr=127.0.0.1``), with its own spool folder, PID file and log (``%n`` in
``SlurmdSpoolDir``, ``SlurmdPidFile``, ``SlurmdLogFile``). Debian 12's slurm-wlm 22.05 accepts
this as it is: ``-N`` with a distinct ``Port=`` per node is all it takes (checked: it even accepts
one ``NodeHostname`` for all nodes; each node gets its own made-up one anyway, never resolved
because ``-N`` names the node), so no UTS namespace or special build is needed. The partition has ``LLN=YES`` (least loaded node): a job goes to the
node with the fewest allocated CPUs, so two concurrent one-CPU jobs run on different nodes. The daemons run in the foreground as
children of this process and are stopped by PID (only the ones we started), in reverse
order, with bounded waits, also when start-up fails half way; each is recorded with
``tests/_children.py``, which stops it if the test run is terminated before that.

Typical use (the pytest fixture in ``tests/workflow/test_slurm.py`` does this)::

    from slurm.cluster import SlurmCluster, ensure_slurm_installed, slurm_unavailable_reason

    reason = slurm_unavailable_reason()      # None when we can run it here
    ensure_slurm_installed()                 # apt-get install ... when root and missing
    with SlurmCluster(tmp_path / "slurm", nodes=2) as cluster:
        env = cluster.env()                  # SLURM_CONF=... for sbatch/squeue/snakemake
        subprocess.run(["sbatch", "--wrap", "true"], env=env)
        cluster.completed_jobs()             # {job id: {"JobState": ..., "NodeList": ...}}
        cluster.set_node_state("fmnode2", "DOWN")   # and "RESUME"

Run ``python tests/slurm/cluster.py`` to bring a cluster up by hand and get a shell hint.

Facts this relies on (checked on Debian 12, Slurm 22.05, as root): without accounting the
Snakemake Slurm plugin must query job states with ``squeue`` (``sacct`` talks to the absent
database and silently loses jobs); ``squeue --states=all`` sees finished jobs for
``MinJobAge`` seconds, set high here. Finished jobs are also recorded in ``jobcomp.log``
(``JobCompType=jobcomp/filetxt``), which the tests use as the cluster-side history.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import _children
except ImportError:  # run as a script: tests/ is not on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import _children

log = logging.getLogger(__name__)

#: Debian packages that provide the daemons and the client commands.
APT_PACKAGES = ("slurmctld", "slurmd", "slurm-client", "munge")
#: Executables the cluster needs.
REQUIRED_EXECUTABLES = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo")
#: Client commands wrapped in ``<root>/bin`` so that they find this cluster's slurm.conf.
CLIENT_COMMANDS = (
    "sbatch",
    "srun",
    "salloc",
    "squeue",
    "scancel",
    "scontrol",
    "sinfo",
    "sacct",
    "sacctmgr",
    "sshare",
    "sstat",
)
#: Name of the single partition (the default one, so jobs without ``-p`` land there).
PARTITION = "debug"
#: Node names are this prefix and a number from 1: fmnode1, fmnode2, ...
NODE_PREFIX = "fmnode"


def _missing_executables() -> list[str]:
    return [exe for exe in REQUIRED_EXECUTABLES if shutil.which(exe) is None]


def slurm_unavailable_reason() -> str | None:
    """Why a local Slurm cluster cannot be started here, or None if it can.

    It can when we are root (the daemons need it) and either the Slurm binaries are
    installed or ``apt-get`` can install them.
    """
    if sys.platform != "linux":
        return f"a local Slurm cluster needs Linux, this is {sys.platform}"
    if os.geteuid() != 0:
        return "a local Slurm cluster needs root (slurmd, munged); not root here"
    missing = _missing_executables()
    if missing and shutil.which("apt-get") is None:
        return f"Slurm executables {missing} missing and no apt-get to install them"
    return None


def ensure_slurm_installed(timeout: float = 300.0) -> None:
    """Install the Debian Slurm packages with apt-get if any executable is missing.

    Runs ``apt-get install --no-install-recommends`` (about 10 s) and, only if that
    fails, ``apt-get update`` and the install once more. Raises RuntimeError with the
    tail of apt's output when the executables are still missing.
    """
    if not _missing_executables():
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *APT_PACKAGES]
    deadline = time.monotonic() + timeout
    out = ""
    for attempt in ("install", "update+install"):
        if attempt == "update+install":
            upd = subprocess.run(
                ["apt-get", "update", "-q"],
                env=env,
                capture_output=True,
                text=True,
                timeout=max(1.0, deadline - time.monotonic()),
            )
            out += upd.stdout + upd.stderr
        res = subprocess.run(
            install, env=env, capture_output=True, text=True, timeout=max(1.0, deadline - time.monotonic())
        )
        out += res.stdout + res.stderr
        if res.returncode == 0 and not _missing_executables():
            return
    raise RuntimeError(
        f"apt-get could not install {APT_PACKAGES}; still missing {_missing_executables()}:\n"
        + "\n".join(out.splitlines()[-20:])
    )


def _free_ports(n: int) -> list[int]:
    """``n`` distinct TCP ports free on 127.0.0.1 right now (all held until all are chosen)."""
    socks = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _node_hardware() -> dict[str, str]:
    """Parse ``slurmd -C`` (``NodeName=vm CPUs=2 ... RealMemory=24105``) into a dict."""
    out = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, timeout=30, check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("NodeName="))
    return dict(field.split("=", 1) for field in line.split())


class SlurmCluster:
    """A Slurm cluster of ``nodes`` nodes on this host, living in ``root`` (created if needed).

    Parameters
    ----------
    root : path
        Directory for all cluster files; it is left in place after ``stop()`` so that
        logs (``slurmctld.log``, ``slurmd-<node>.log``, ``munged.log``, ``jobcomp.log``) can be read.
    nodes : int
        Number of nodes (one ``slurmd`` each), named ``fmnode1``, ``fmnode2``, ...
    start_timeout : float
        Seconds to wait for each daemon to come up before giving up.
    min_job_age : int
        ``MinJobAge``: seconds finished jobs stay visible to ``squeue``. The Snakemake
        plugin falls back to ``sacct`` when this is below three status-check intervals.
    cpus : int, optional
        CPUs each node advertises (``SlurmdParameters=config_overrides``); default: the
        detected count, at least 4 (memory: at least 16 GB). Overcommitting lets a 2-core CI
        runner accept jobs that ask for several threads, and lets short jobs' start-up latencies
        overlap; with the partition's ``LLN=YES`` jobs still spread over the nodes.

    Examples
    --------
    >>> with SlurmCluster(Path("/tmp/cl")) as c:  # doctest: +SKIP
    ...     subprocess.run(["sbatch", "--wrap", "true"], env=c.env(), check=True)
    """

    def __init__(
        self,
        root: Path,
        *,
        nodes: int = 2,
        start_timeout: float = 30.0,
        min_job_age: int = 600,
        cpus: int | None = None,
    ):
        if nodes < 1:
            raise ValueError(f"a cluster needs at least one node, not {nodes}")
        self.root = Path(root)
        self.nodes = [f"{NODE_PREFIX}{i}" for i in range(1, nodes + 1)]
        self.cpus = cpus
        self.start_timeout = start_timeout
        self.min_job_age = min_job_age
        self.procs: dict[str, subprocess.Popen] = {}
        self.conf = self.root / "slurm.conf"
        self.munge_socket = self.root / "munge" / "munge.socket"
        self.jobcomp = self.root / "jobcomp.log"
        self.hw: dict[str, str] = {}

    # ------------------------------------------------------------------ set-up
    def env(self, base: dict | None = None) -> dict:
        """Environment for client commands (sbatch, squeue, snakemake) of this cluster.

        Sets ``SLURM_CONF`` and puts ``<root>/bin`` first on ``PATH``: wrappers of the
        client commands that set ``SLURM_CONF`` themselves. They are needed because the
        plugin's job step (``snakemake --executor slurm-jobstep`` inside the job) removes
        every ``SLURM_*`` variable before its nested ``srun``; a real site keeps its config
        where ``srun`` finds it unaided (``/etc/slurm`` or configless), so there it does not
        matter. ``PATH`` itself reaches the jobs through ``sbatch --export=ALL``.
        """
        env = dict(os.environ if base is None else base)
        env["SLURM_CONF"] = str(self.conf)
        env["PATH"] = os.pathsep.join([str(self.root / "bin"), env.get("PATH", os.defpath)])
        return env

    def _write_wrappers(self) -> None:
        bindir = self.root / "bin"
        bindir.mkdir(parents=True, exist_ok=True)
        for cmd in CLIENT_COMMANDS:
            real = shutil.which(cmd)
            if real is None:
                continue
            wrapper = bindir / cmd
            wrapper.write_text(f'#!/bin/sh\nSLURM_CONF="{self.conf}" exec "{real}" "$@"\n')
            os.chmod(wrapper, 0o755)

    def _write_config(self) -> None:
        r = self.root
        for sub in ("state", "spool", "munge"):
            (r / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(r, 0o700)
        os.chmod(r / "munge", 0o700)
        self._write_wrappers()
        key = r / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o600)

        self.hw = hw = _node_hardware()
        host = hw["NodeName"]
        # With config_overrides the configured memory is not checked against the hardware,
        # and without cgroups it is not enforced: advertise at least 16 GB so that a rule's
        # `mem_mb` request is not rejected on a small CI runner.
        mem = max(16384, int(hw.get("RealMemory", "1000")))
        ctld_port, *node_ports = _free_ports(1 + len(self.nodes))
        cpus = self.cpus or max(int(hw.get("CPUs", "1")), 4)
        # Every node on 127.0.0.1 with its own port (what lets several slurmd share a host); each has
        # its own NodeHostname too, as on a real cluster (never resolved: -N tells slurmd its node).
        node_lines = "\n".join(
            f"NodeName={n} NodeHostname={n} NodeAddr=127.0.0.1 Port={port} CPUs={cpus} RealMemory={mem} State=UNKNOWN"
            for n, port in zip(self.nodes, node_ports)
        )
        self.conf.write_text(f"""\
# Written by tests/slurm/cluster.py: a throwaway cluster of {len(self.nodes)} node(s) on one host, no accounting.
ClusterName=fmeasuretest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.munge_socket}
StateSaveLocation={r / "state"}
# %n: the node's name, so that the slurmd of each node has its own
SlurmdSpoolDir={r / "spool" / "%n"}
SlurmctldPidFile={r / "slurmctld.pid"}
SlurmdPidFile={r / "slurmd-%n.pid"}
SlurmctldLogFile={r / "slurmctld.log"}
SlurmdLogFile={r / "slurmd-%n.log"}
SlurmctldDebug=info
SlurmdDebug=info
# no systemd/cgroups here
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
# no slurmdbd; finished jobs are written to a text file instead
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc={self.jobcomp}
MpiDefault=none
# 1, not 2: a node set DOWN by hand (a failed node, in the tests) stays out until RESUME
ReturnToService=1
MinJobAge={self.min_job_age}
DefMemPerCPU=1000
KillWait=5
InactiveLimit=0
SlurmctldTimeout=60
SlurmdTimeout=60
# the node lines below win over the detected hardware (CPUs may be overcommitted)
SlurmdParameters=config_overrides
{node_lines}
# LLN: each job goes to the least loaded node (fewest allocated CPUs), so jobs spread
PartitionName={PARTITION} Nodes={",".join(self.nodes)} Default=YES MaxTime=INFINITE State=UP LLN=YES
""")
        for n in self.nodes:
            (r / "spool" / n).mkdir(parents=True, exist_ok=True)

    def _spawn(self, name: str, cmd: list[str]) -> None:
        out = open(self.root / f"{name}.stdout", "wb")
        try:
            # own session: a Ctrl-C on the test does not hit the daemons before teardown; recorded, so
            # that a terminated test run stops them too (tests/_children.py)
            self.procs[name] = _children.popen(
                cmd,
                name,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env(),
            )
        finally:
            out.close()
        log.info("started %s (pid %d): %s", name, self.procs[name].pid, " ".join(cmd))

    def _wait(self, name: str, ready, what: str) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            proc = self.procs[name]
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode} while {what}:\n" + self.tail(name))
            if ready():
                return
            time.sleep(0.2)
        raise RuntimeError(f"timed out after {self.start_timeout:.0f} s {what}:\n" + self.tail(name))

    def _run(self, cmd: list[str], timeout: float = 10.0) -> subprocess.CompletedProcess:
        return subprocess.run(cmd, env=self.env(), capture_output=True, text=True, timeout=timeout)

    def _ok(self, cmd: list[str], pattern: str) -> bool:
        try:
            res = self._run(cmd)
        except subprocess.TimeoutExpired:
            return False
        return res.returncode == 0 and re.search(pattern, res.stdout) is not None

    def start(self) -> SlurmCluster:
        """Write the config and start munged, slurmctld, one slurmd per node; wait for idle nodes."""
        # recorded first, stopped last: whatever the daemons leave (batch jobs, their slurmstepd)
        self._sweep = _children.record_sweep(self.root, "slurm jobs")
        try:
            self._write_config()
            r = self.root
            self._spawn(
                "munged",
                [
                    "munged",
                    "--foreground",
                    "--force",
                    f"--socket={self.munge_socket}",
                    f"--key-file={r / 'munge' / 'munge.key'}",
                    f"--pid-file={r / 'munged.pid'}",
                    f"--log-file={r / 'munged.log'}",
                    f"--seed-file={r / 'munge' / 'seed'}",
                ],
            )
            self._wait("munged", self.munge_socket.exists, "waiting for the munge socket")
            self._spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", str(self.conf)])
            self._wait(
                "slurmctld",
                lambda: self._ok(["scontrol", "ping"], r"is UP"),
                "waiting for slurmctld to answer `scontrol ping`",
            )
            for node in self.nodes:
                self._spawn(f"slurmd-{node}", ["slurmd", "-D", "-N", node, "-f", str(self.conf)])
            for node in self.nodes:
                self._wait(
                    f"slurmd-{node}",
                    lambda node=node: self.node_state(node) == "idle",
                    f"waiting for node {node} to be idle in `sinfo`",
                )
        except BaseException:
            self.stop()
            raise
        return self

    # ---------------------------------------------------------------- teardown
    def stop(self, timeout: float = 15.0) -> None:
        """Cancel our jobs and stop the daemons we started (by PID), newest first."""
        if "slurmctld" in self.procs and self.procs["slurmctld"].poll() is None:
            try:  # jobs' slurmstepd processes outlive slurmd: cancel them first
                self._run(["scancel", "--full", f"--partition={PARTITION}"], timeout=10)
                deadline = time.monotonic() + timeout
                while time.monotonic() < deadline and self._ok(
                    ["squeue", "-h", "-t", "PD,R,CG,CF,S", "-o", "%i"], r"\d"
                ):
                    time.sleep(0.5)
            except (OSError, subprocess.SubprocessError) as exc:
                log.warning("could not cancel jobs before teardown: %s", exc)
        for name in reversed(list(self.procs)):  # started last, stopped first
            proc = self.procs.get(name)
            if proc is None or proc.poll() is not None:
                if proc is not None:
                    _children.forget(proc)
                continue
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                log.warning("%s (pid %d) ignored SIGTERM; killing it", name, proc.pid)
                proc.kill()
                proc.wait(timeout=timeout)
            _children.forget(proc)
            log.info("stopped %s (pid %d)", name, proc.pid)
        sweep = getattr(self, "_sweep", None)
        if sweep is not None:  # the jobs' processes that outlived the daemons, if any
            left = _children.sweep(self.root)
            if left:
                log.warning("killed %d process(es) left by the cluster's jobs: %s", len(left), left)
            _children.forget(sweep)
            self._sweep = None

    def __enter__(self) -> SlurmCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ----------------------------------------------------------------- queries
    def tail(self, name: str, lines: int = 30) -> str:
        """Last lines of a daemon's log and captured stdout, for error messages."""
        text = []
        for path in (self.root / f"{name}.log", self.root / f"{name}.stdout"):
            if path.exists():
                text += [f"--- {path}"] + path.read_text(errors="replace").splitlines()[-lines:]
        return "\n".join(text)

    def job_records(self) -> list[dict[str, str]]:
        """Every record of ``jobcomp/filetxt``, oldest first: ``{field: value}`` (``JobId``,
        ``JobState``, ``NodeList``, ...). A job that Slurm requeued (e.g. after a node failure) has
        one record per run under the same ``JobId``: the interrupted one (``NODE_FAIL`` or
        ``REQUEUED``), then the last."""
        if not self.jobcomp.exists():
            return []
        records = []
        for line in self.jobcomp.read_text().splitlines():
            fields = dict(re.findall(r"(\w+)=(\S*)", line))
            if "JobId" in fields:
                records.append(fields)
        return records

    def completed_jobs(self) -> dict[str, dict[str, str]]:
        """Finished jobs recorded by ``jobcomp/filetxt``: {job id: {field: value}} of each job's
        last record (its ``NodeList`` is the node it ran on)."""
        return {rec["JobId"]: rec for rec in self.job_records()}

    def nodes_of(self, jobs=None) -> dict[str, str]:
        """{job id: node it completed on} for ``jobs`` (default: every finished job)."""
        done = self.completed_jobs()
        return {j: done[j].get("NodeList", "") for j in (done if jobs is None else jobs) if j in done}

    def node_state(self, node: str) -> str | None:
        """The node's state as ``sinfo`` prints it (``idle``, ``mix``, ``alloc``, ``down*``, ...),
        None if ``sinfo`` does not answer."""
        try:
            res = self._run(["sinfo", "-h", "-N", "-n", node, "-o", "%t"])
        except subprocess.TimeoutExpired:
            return None
        lines = res.stdout.split()
        return lines[0] if res.returncode == 0 and lines else None

    def set_node_state(self, node: str, state: str, reason: str = "set by the test harness") -> None:
        """``scontrol update NodeName=<node> State=<state>``: ``DOWN`` (its running jobs are
        killed, and requeued when they allow it), ``DRAIN``, ``RESUME`` (back in service)."""
        if node not in self.nodes:
            raise ValueError(f"no node {node!r} in this cluster (nodes: {self.nodes})")
        cmd = ["scontrol", "update", f"NodeName={node}", f"State={state}"]
        if state.upper() in ("DOWN", "DRAIN", "FAIL"):
            cmd.append(f"Reason={reason}")
        res = self._run(cmd)
        if res.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")

    def running_jobs(self) -> dict[str, str]:
        """{job id: node list} of the jobs RUNNING now, from ``squeue``."""
        try:
            res = self._run(["squeue", "-h", "-t", "R", "-o", "%i %N"])
        except subprocess.TimeoutExpired:
            return {}
        return dict(line.split(None, 1) for line in res.stdout.splitlines() if len(line.split()) == 2)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    reason = slurm_unavailable_reason()
    if reason:
        sys.exit(reason)
    ensure_slurm_installed()
    where = Path(tempfile.mkdtemp(prefix="fmeasure-slurm-"))
    with SlurmCluster(where) as cluster:
        print(
            f"cluster of {', '.join(cluster.nodes)} up in {where}; in another shell: export SLURM_CONF={cluster.conf}"
        )
        print("Ctrl-C to stop")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
