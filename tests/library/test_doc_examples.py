"""The code of the documentation site's library pages runs and prints what its comments say.

The front page (docs/index.md) and the README open with the same example, which runs and prints the
score its comment gives. Every Python block of the getting-started page and of each user guide page
runs, the blocks of a page in order in one namespace, as a reader would paste them; a ``print``
line whose comment starts with a value (a number, a list, a name) prints that value. The pages load
MULAN's emotions with ``load_mulan``: it is found in tests/data (added to ``FMEASURE_DATA_MIRROR``,
as the documentation build does), parsed into a data folder of the test's own, never downloaded.
"""

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
TEST_DATA = ROOT / "tests" / "data"
#: the library's pages that hold code (the user guide's index has none)
PAGES = [
    p
    for p in [DOCS / "getting_started.md", *sorted((DOCS / "user_guide").glob("*.md"))]
    if "```python" in p.read_text()
]
FRONT = re.compile(r"<!-- front-example:start -->\n```python\n(.*?)```\n<!-- front-example:end -->", re.S)


@pytest.fixture(autouse=True)
def datasets_from_the_test_data(monkeypatch, tmp_path):
    """load_mulan finds emotions in tests/data and caches it in the test's folder; no download."""
    import urllib.request

    mirrors = [p for p in os.environ.get("FMEASURE_DATA_MIRROR", "").split(os.pathsep) if p]
    monkeypatch.setenv("FMEASURE_DATA_MIRROR", os.pathsep.join([*mirrors, str(TEST_DATA)]))
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "scikit_learn_data"))

    def offline(*args, **kwargs):
        raise OSError("the documentation's examples must not download in the tests")

    monkeypatch.setattr(urllib.request, "urlopen", offline)


def _blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def _run(code, ns):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "<docs>", "exec"), ns)
    return buf.getvalue()


def _claims(code):
    """The values the comments of the ``print`` lines claim (the comment up to two spaces or a
    parenthesis), where the comment starts with one."""
    out = []
    for line in code.splitlines():
        if line.lstrip().startswith("print(") and "  # " in line:
            claim = re.split(r"\s{2,}|\s\(", line.split("  # ", 1)[1].strip())[0].strip()
            if claim and (" " not in claim or claim[0] in "[{(-0123456789"):
                out.append(claim)
    return out


def test_the_readme_opens_with_the_front_pages_example_and_it_runs():
    front = FRONT.findall((DOCS / "index.md").read_text())
    readme = FRONT.findall((ROOT / "README.md").read_text())
    assert len(front) == 1 and readme == front, "README.md and docs/index.md must show the same example"
    code = front[0]
    printed = _run(code, {}).split()
    claim = re.search(r"print\(.*#.*?(\d+\.\d+)\s*$", code, re.M)
    assert claim and len(printed) == 1
    assert round(float(printed[0]), len(claim.group(1).split(".")[1])) == float(claim.group(1)), (printed, claim)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_the_pages_code_runs_and_prints_what_it_says(page):
    ns = {}
    blocks = _blocks(page.read_text())
    for code in blocks:
        printed = " ".join(_run(code, ns).split())
        for claim in _claims(code):
            assert " ".join(claim.split()) in printed, (page.name, claim, printed)
