"""The code of the documentation site's library pages runs and prints what its comments say.

The front page (docs/index.md) and the README open with the same example, which runs and prints the
score its comment gives. Every Python block of the getting-started page and of each user guide page
runs, the blocks of a page in order in one namespace, as a reader would paste them; a ``print``
line whose comment starts with a value (a number, a list, a name) prints that value.
"""

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: the library's pages that hold code (the user guide's index has none)
PAGES = [
    p
    for p in [DOCS / "getting_started.md", *sorted((DOCS / "user_guide").glob("*.md"))]
    if "```python" in p.read_text()
]
FRONT = re.compile(r"<!-- front-example:start -->\n```python\n(.*?)```\n<!-- front-example:end -->", re.S)


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
