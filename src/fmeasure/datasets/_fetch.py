"""Fetching: a dataset file from a local mirror folder (plain or ``.gz``) or its URL, verified by
sha256 and written atomically; and whether a catalog entry's files can be obtained at all."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import logging
import os
import shutil
import urllib.request
from pathlib import Path

from fmeasure.datasets._base import DatasetError
from fmeasure.io import atomic_output

log = logging.getLogger("fmeasure.datasets")


#: Environment variable naming local mirror folders (several separated by ``os.pathsep``, ``:`` on
#: Linux and macOS); they are searched before the config's mirrors.
MIRROR_ENV = "FMEASURE_DATA_MIRROR"


def mirror_folders(configured=()) -> list[Path]:
    """Mirror folders to search, in order: those of ``$FMEASURE_DATA_MIRROR`` (``os.pathsep``-separated),
    then ``configured``."""
    folders = [Path(p) for p in os.environ.get(MIRROR_ENV, "").split(os.pathsep) if p]
    folders.extend(Path(p) for p in configured if p)
    return folders


def describe_mirrors(configured=()) -> str:
    """Human-readable list of the mirror folders searched, marking the ones that do not exist."""
    folders = mirror_folders(configured)
    if not folders:
        return f"no mirror set ({MIRROR_ENV} unset)"
    return ", ".join(f"{f}" + ("" if f.is_dir() else " (does not exist)") for f in folders)


def find_in_mirror(folders, subdir: str, filename: str) -> Path | None:
    """First existing ``<mirror>/<subdir>/<filename>[.gz]`` (also ``<mirror>/<filename>[.gz]``).

    Raises :class:`DatasetError` if a mirror folder exists but cannot be read.
    """
    for folder in folders:
        folder = Path(folder)
        if not folder.exists():
            continue
        if not folder.is_dir() or not os.access(folder, os.R_OK | os.X_OK):
            raise DatasetError(f"{folder}: data mirror folder is not a readable directory")
        for base in (folder / subdir, folder):
            for candidate in (base / filename, base / f"{filename}.gz"):
                if candidate.is_file():
                    return candidate
    return None


def open_binary(path):
    """``path`` opened for reading bytes, decompressed if it is gzip (told by its first bytes, not its name)."""
    path = Path(path)
    with open(path, "rb") as fh:
        magic = fh.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")


def content_digest(path) -> tuple[str, int]:
    """sha256 and length in bytes of a file's content, decompressing gzip transparently."""
    digest, size = hashlib.sha256(), 0
    try:
        with open_binary(path) as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
                size += len(chunk)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise DatasetError(f"{path}: cannot read ({exc.__class__.__name__}: {exc})") from None
    return digest.hexdigest(), size


def sha256_of(path) -> str:
    """sha256 of a file's content, decompressing gzip transparently."""
    return content_digest(path)[0]


def fetch_file(
    target,
    *,
    sha256: str,
    mirrors=(),
    subdir: str = "",
    url: str | None = None,
    timeout: float = 60.0,
    size: int | None = None,
) -> str:
    """Put a verified, uncompressed copy of a dataset file at ``target``.

    Looks in the mirror folders first (plain or ``.gz``), then downloads ``url``. The content's
    sha256 must equal ``sha256`` (and its length ``size``, if given). Returns where the file came from.

    Raises
    ------
    DatasetError
        Not found anywhere, download failed, corrupt archive, or checksum mismatch. The message
        names the file and, for a mismatch, the expected and the actual checksum.
    """
    target = Path(target)
    source = find_in_mirror(mirror_folders(mirrors), subdir, target.name)
    with atomic_output(target) as tmp:
        if source is not None:
            origin = str(source)
            try:
                with open_binary(source) as src, open(tmp, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
            except (OSError, EOFError, gzip.BadGzipFile) as exc:
                raise DatasetError(f"{source}: corrupt or truncated file ({exc})") from None
        elif url:
            origin = url
            log.info("downloading %s", url)
            try:
                with urllib.request.urlopen(url, timeout=timeout) as resp, open(tmp, "wb") as dst:
                    shutil.copyfileobj(resp, dst, 1 << 20)
            except OSError as exc:
                raise DatasetError(
                    f"{target.name}: not in any mirror ({describe_mirrors(mirrors)})"
                    f" and download of {url} failed ({exc}); set {MIRROR_ENV} to a folder holding it"
                ) from None
            if url.endswith((".gz", ".bz2")):
                raw = tmp.with_name(tmp.name + ".raw")
                opener = gzip.open if url.endswith(".gz") else bz2.open
                try:
                    with opener(tmp, "rb") as src, open(raw, "wb") as dst:
                        shutil.copyfileobj(src, dst, 1 << 20)
                    os.replace(raw, tmp)
                except (OSError, EOFError) as exc:
                    raw.unlink(missing_ok=True)
                    raise DatasetError(f"{url}: corrupt compressed download ({exc})") from None
        else:
            raise DatasetError(
                f"{target.name}: not found in any mirror ({describe_mirrors(mirrors)})"
                " and the catalog gives no download URL"
            )
        if tmp.stat().st_size == 0:
            raise DatasetError(f"{origin}: empty file")
        if size is not None and tmp.stat().st_size != size:
            raise DatasetError(
                f"{origin}: size mismatch for {target.name}: expected {size} bytes, got {tmp.stat().st_size}"
            )
        actual = sha256_of(tmp)
        if actual != sha256:
            raise DatasetError(f"{origin}: sha256 mismatch for {target.name}: expected {sha256}, got {actual}")
    return origin


def url_problem(url: str, timeout: float = 10.0) -> str | None:
    """None if ``url`` answers a HEAD request, else why not (one line)."""
    try:
        request = urllib.request.Request(url, method="HEAD")
        with urllib.request.urlopen(request, timeout=timeout):
            return None
    except (OSError, ValueError) as exc:
        return f"{exc.__class__.__name__}: {getattr(exc, 'reason', exc)}"


def availability(name: str, entry: dict, data_dir, mirrors=(), probe_timeout: float | None = 10.0) -> str | None:
    """None if every file of a catalog entry can be had; else a message saying what is missing.

    A file can be had if it is already under ``data_dir/raw/<name>/``, is in a mirror, or has a
    download URL that answers (checked with a HEAD request of at most ``probe_timeout`` seconds;
    ``None`` skips the check and trusts the URL).
    """
    missing, failed = [], []
    for spec in entry.get("files", {}).values():
        fname = spec["name"]
        if (Path(data_dir) / "raw" / name / fname).is_file():
            continue
        if find_in_mirror(mirror_folders(mirrors), entry.get("mirror_dir", name), fname):
            continue
        if spec.get("url"):
            problem = None if probe_timeout is None else url_problem(spec["url"], probe_timeout)
            if problem is None:
                continue
            failed.append(f"{spec['url']} ({problem})")
        missing.append(fname)
    if not missing:
        return None
    where = describe_mirrors(mirrors)
    how = f"download failed: {failed[0]}" if failed else "no download URL is known"
    return (
        f"dataset {name!r}: {', '.join(missing)} not found (looked in {data_dir}/raw/{name} and "
        f"mirrors: {where}) and {how}. "
        f"Get it from {entry.get('homepage', 'its homepage')} and put the files (plain or .gz) in "
        f"<mirror>/{entry.get('mirror_dir', name)}/ with {MIRROR_ENV}=<mirror>, "
        f"or leave it out: --config datasets=<other names>."
    )
