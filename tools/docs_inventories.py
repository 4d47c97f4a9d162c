"""Write the documentation site's fallback intersphinx inventories (``docs/_intersphinx/*.inv``).

The site links to the documentation of Python, NumPy, SciPy, scikit-learn and pandas through
``sphinx.ext.intersphinx``. ``docs/conf.py`` asks each project's web site for its inventory first
and falls back to the file written here when the web cannot be reached, so that the build gives the
same pages, without a warning, offline and online (online the links follow the current inventories;
offline, these).

Where each file comes from:

* Python, SciPy, scikit-learn, pandas: the ``objects.inv`` of the HTML documentation in Debian's
  packages ``python3.11-doc``, ``python-scipy-doc``, ``python-sklearn-doc`` and
  ``python-pandas-doc`` (``apt-get install`` them, then run this script), cut down to what the site
  can refer to: Python objects (the ``py`` domain), glossary terms (``std:term``) and, for Python,
  the labels of its pages (``std:label``: numpydoc links ``bool`` to one). These are
  older releases than the ones the package needs (the names new since are not linked offline).
* NumPy: Debian ships no NumPy documentation, so the few NumPy objects the site refers to are
  listed below with the addresses of NumPy's documentation.

Run from the repository root: ``python tools/docs_inventories.py`` (``--check`` only reports
whether the files are up to date).
"""

from __future__ import annotations

import argparse
import re
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "_intersphinx"

#: name -> (project, Debian inventory)
DEBIAN = {
    "python": ("Python", Path("/usr/share/doc/python3.11/html/objects.inv")),
    "scipy": ("SciPy", Path("/usr/share/doc/python-scipy-doc/html/objects.inv")),
    "sklearn": ("scikit-learn", Path("/usr/share/doc/python-sklearn-doc/html/objects.inv")),
    "pandas": ("pandas", Path("/usr/share/doc/python-pandas-doc/html/objects.inv")),
}

#: the NumPy objects the site refers to: (name, domain:role, address relative to numpy.org/doc/stable/)
NUMPY = [
    ("numpy.ndarray", "py:class", "reference/generated/numpy.ndarray.html#numpy.ndarray"),
    ("numpy.dtype", "py:class", "reference/generated/numpy.dtype.html#numpy.dtype"),
    ("numpy.random.Generator", "py:class", "reference/random/generator.html#numpy.random.Generator"),
    ("numpy.random.default_rng", "py:function", "reference/random/generator.html#numpy.random.default_rng"),
    ("numpy.random.RandomState", "py:class", "reference/random/legacy.html#numpy.random.RandomState"),
    ("numpy.save", "py:function", "reference/generated/numpy.save.html#numpy.save"),
    ("numpy.load", "py:function", "reference/generated/numpy.load.html#numpy.load"),
    ("numpy.inf", "py:data", "reference/constants.html#numpy.inf"),
    ("numpy.nan", "py:data", "reference/constants.html#numpy.nan"),
    ("array_like", "std:term", "glossary.html#term-array_like"),
    ("arrays.scalars", "std:label", "reference/arrays.scalars.html#arrays-scalars"),
]

KEEP = re.compile(r"^(py:\w+|std:term)$")
KEEP_PYTHON = re.compile(r"^(py:\w+|std:term|std:label)$")
# an inventory line: name, domain:role, priority, address, display name (Sphinx's own pattern)
LINE = re.compile(r"(.+?)\s+(\S+)\s+(-?\d+)\s+?(\S*)\s+(.*)")
HEADER = "# Sphinx inventory version 2\n# Project: {project}\n# Version: {version}\n"
ZLIB_LINE = "# The remainder of this file is compressed using zlib.\n"


def read(path: Path) -> tuple[str, list[str]]:
    """The version and the entry lines of a version-2 inventory."""
    raw = path.read_bytes()
    head, _, body = raw.partition(ZLIB_LINE.encode())
    lines = head.decode().splitlines()
    if not lines or lines[0] != "# Sphinx inventory version 2":
        raise SystemExit(f"{path}: not a version-2 Sphinx inventory")
    version = lines[2].removeprefix("# Version: ")
    return version, zlib.decompress(body).decode().splitlines()


def write(project: str, version: str, entries: list[str]) -> bytes:
    body = "".join(sorted(set(entries), key=lambda line: (line.lower(), line)))
    head = HEADER.format(project=project, version=version) + ZLIB_LINE
    return head.encode() + zlib.compress(body.encode(), 9)


def inventories() -> dict[str, bytes]:
    out = {}
    for name, (project, path) in DEBIAN.items():
        if not path.is_file():
            raise SystemExit(f"{path}: missing (apt-get install the Debian documentation package)")
        version, lines = read(path)
        kept = []
        for line in lines:
            m = LINE.fullmatch(line)
            if m and (KEEP_PYTHON if name == "python" else KEEP).match(m.group(2)):
                kept.append(line + "\n")
        out[f"{name}.inv"] = write(project, f"{version} (Debian's documentation package)", kept)
    numpy = [f"{n} {role} {-1 if role == 'std:label' else 1} {uri} -\n" for n, role, uri in NUMPY]
    out["numpy.inv"] = write("NumPy", "stable (the objects the site refers to)", numpy)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report whether the files are up to date")
    args = parser.parse_args(argv)
    stale = []
    for file, data in inventories().items():
        path = OUT / file
        if not path.is_file() or path.read_bytes() != data:
            stale.append(file)
            if not args.check:
                OUT.mkdir(exist_ok=True)
                path.write_bytes(data)
    verb = "out of date" if args.check else "written"
    print(f"{verb}: {', '.join(stale)}" if stale else "up to date")
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
