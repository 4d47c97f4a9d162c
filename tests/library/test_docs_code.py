"""Every Python block in docs/*.md runs, on the scene slice shipped in tests/data.

A block may use ``X``, ``Y`` (training features and 0/1 labels) and ``X_test``, as the docs'
comments say; they are scene-small's, parsed by the same parser as the pipeline's. A block that
names anything else, imports a name that moved, or calls an API with the wrong arguments fails
here. The library's pages (the front page, getting started), whose blocks build on each other and
load their own data, are run in order by test_doc_examples.py instead.
"""

import gzip
import re
import shutil
from pathlib import Path

import pytest
import yaml

from fmeasure import datasets as D

ROOT = Path(__file__).resolve().parents[2]
#: run by test_doc_examples.py, a page's blocks in order in one namespace
LIBRARY_PAGES = {"index.md", "getting_started.md"}
DOCS = sorted(p for p in (ROOT / "docs").glob("*.md") if p.name not in LIBRARY_PAGES)
BLOCKS = [
    (path, i, code)
    for path in DOCS
    for i, code in enumerate(re.findall(r"^```python\n(.*?)^```", path.read_text(), flags=re.S | re.M))
]


@pytest.fixture(scope="module")
def scene_small(tmp_path_factory):
    raw = tmp_path_factory.mktemp("raw")
    for f in (ROOT / "tests" / "data" / "scene-small").iterdir():
        if f.suffix == ".gz":
            with gzip.open(f, "rb") as src, open(raw / f.stem, "wb") as dst:
                shutil.copyfileobj(src, dst)
        else:
            shutil.copy(f, raw / f.name)
    entry = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["catalog"]["scene-small"]
    return D.parse("scene-small", entry, raw)


def test_the_docs_blocks_are_found():
    # the pattern must find the blocks, or the test below would pass vacuously
    assert {p.name for p, _, _ in BLOCKS} >= {"foptimal.md", "knn.md", "trees.md"}


@pytest.mark.parametrize("path,i,code", BLOCKS, ids=[f"{p.stem}-{i}" for p, i, _ in BLOCKS])
def test_docs_block_runs(path, i, code, scene_small):
    ns = {"X": scene_small.X_train, "Y": scene_small.Y_train, "X_test": scene_small.X_test}
    exec(compile(code, f"{path.name} block {i}", "exec"), ns)
    # what a block predicts has one 0/1 row per test instance
    for name in ("H", "H_pooled", "H_vote"):
        if name in ns:
            H = ns[name]
            assert H.shape == scene_small.Y_test.shape and set(map(int, H.ravel())) <= {0, 1}, (path.name, name)
