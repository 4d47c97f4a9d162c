"""Small I/O helpers shared by the library and the pipeline's scripts.

* :func:`atomic_output` writes to a temporary name and renames on success, so a crash never
  leaves a half-written file where a finished one is expected (reruns then resume cleanly).
* :func:`script_logging` sends a Snakemake script's logging and warnings to its ``log:`` file.
* :func:`progress` is tqdm that shows on a terminal and stays quiet in log files.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from tqdm.auto import tqdm

__all__ = ["atomic_output", "script_logging", "progress", "heartbeat", "KNOWN_ERRORS"]

#: Exceptions that mean bad input, not a bug (fmeasure's dataset and config errors are
#: ValueErrors, as are the input checks of fmeasure and scikit-learn): a failing script prints
#: their one-line message, and the traceback goes to its log only.
KNOWN_ERRORS = (ValueError, FileNotFoundError)

log = logging.getLogger(__name__)


@contextlib.contextmanager
def atomic_output(path, suffix: str | None = None):
    """Yield a temporary path next to ``path``; rename it to ``path`` if the block succeeds.

    Parameters
    ----------
    path : str or Path
        The final file name. Its folder is created if needed.
    suffix : str, optional
        Suffix of the temporary name (default: the final suffix, so writers that infer the
        format from the name, such as matplotlib or numpy, keep working).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_output(target) as tmp:
    ...     _ = tmp.write_text("done")
    >>> target.read_text()
    'done'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = path.suffix if suffix is None else suffix
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=f".tmp{suffix}", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600 files; give the usual permissions
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def script_logging(snakemake, level=logging.INFO) -> logging.Logger:
    """Route logging and warnings of a Snakemake ``script:`` to its first ``log:`` file.

    Returns the logger named after the rule. Uncaught exceptions are logged with their traceback,
    so the log says why a job failed; for bad input (:data:`KNOWN_ERRORS`) the terminal gets one
    line naming the rule and the culprit, without a traceback.
    """
    log_path = snakemake.log[0] if len(snakemake.log) else None
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handlers = [logging.FileHandler(log_path, mode="w")]
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )
    logging.captureWarnings(True)
    logger = logging.getLogger(f"rule.{snakemake.rule}")

    def _excepthook(kind, value, tb):
        logger.error("job failed", exc_info=(kind, value, tb))
        if issubclass(kind, KNOWN_ERRORS):
            # Bad input (a dataset, a config value, an argument): its one-line message names the
            # culprit; the traceback is in the log only.
            print(f"Error in {snakemake.rule}: {value}", file=sys.stderr)
            return
        sys.__excepthook__(kind, value, tb)

    sys.excepthook = _excepthook
    return logger


def progress(
    iterable,
    *,
    total: int | None = None,
    desc: str = "done",
    logger: logging.Logger | None = None,
    every: float = 5.0,
    bar: bool = False,
):
    """Yield the items of ``iterable`` and report progress on long work.

    A line ``<desc> k of total (elapsed s)`` goes to ``logger`` (default: this module's) after the
    first item, then at most once every ``every`` seconds, and after the last item: in a pipeline
    it lands in the rule's log file, where ``tail -f logs/...`` shows it. With ``bar=True`` a
    tqdm progress bar is drawn as well (for interactive use, e.g. ``fit`` in a notebook; learners
    turn it on with ``verbose=1``); pipelines leave it off.

    Examples
    --------
    >>> [x * x for x in progress(range(3), desc="squared")]
    [0, 1, 4]
    """
    logger = logger or log
    if total is None:
        try:
            total = len(iterable)
        except TypeError:
            total = None
    of = f" of {total}" if total is not None else ""
    start = last = time.perf_counter()
    bar_ = tqdm(total=total, desc=desc, leave=False) if bar else None
    k = 0
    try:
        for k, item in enumerate(iterable, start=1):
            yield item
            now = time.perf_counter()
            if bar_ is not None:
                bar_.update(1)
            if k == 1 or k == total or now - last >= every:
                logger.info("%s %d%s (%.1f s)", desc, k, of, now - start)
                last = now
        if total is None or k != total:
            logger.info("%s %d%s (%.1f s)", desc, k, of, time.perf_counter() - start)
    finally:
        if bar_ is not None:
            bar_.close()


@contextlib.contextmanager
def heartbeat(message, *, logger: logging.Logger | None = None, every: float = 60.0):
    """Log ``message(elapsed_seconds)`` every ``every`` seconds while the block runs.

    For work that reports only when a piece finishes (a tree of a bag, a model's ``fit``): a
    background thread writes the line, so a log never stays silent longer than ``every`` seconds.
    Nothing is logged when the block ends sooner.

    Examples
    --------
    >>> with heartbeat(lambda s: f"fitting, {s:.0f} s", every=60.0):
    ...     pass
    """
    logger = logger or log
    stop = threading.Event()
    start = time.perf_counter()

    def beat():
        while not stop.wait(every):
            logger.info("%s", message(time.perf_counter() - start))

    thread = threading.Thread(target=beat, name="heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
