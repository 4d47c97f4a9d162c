"""The code in the README's "Use it as a library" section runs and prints what it says."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_library_examples_run_and_match_their_comments():
    text = README.read_text().split("## Use it as a library", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 4
    ns = {}
    for code in blocks:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(code, ns)
        printed = " ".join(buf.getvalue().split())
        # every bracketed/numeric result written after "# " on a print line is what was printed
        for line in code.splitlines():
            if line.startswith("print(") and "#" in line:
                claim = line.split("#", 1)[1].strip()
                claim = re.split(r"\s{2,}|\(", claim)[0].strip()
                if claim and claim[0] in "[0123456789":
                    assert " ".join(claim.split()) in printed, (claim, printed)
