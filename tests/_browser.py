"""Open a page in headless Chromium and report its tables and images (loaded or broken)."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

_CHECK = """<script>
window.addEventListener('load', () => {
  const imgs = Array.from(document.images);
  const out = {
    n_img: imgs.length,
    broken: imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.getAttribute('src').slice(0, 80)),
    n_table: document.querySelectorAll('table').length,
    text: document.body.innerText.length,
  };
  const pre = document.createElement('pre');
  pre.id = 'fm-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def chromium():
    """The Chromium executable, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(args, timeout=180):
    exe = chromium()
    cmd = [
        exe,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--allow-file-access-from-files",
        "--hide-scrollbars",
        *args,
    ]
    env = dict(os.environ, HOME=os.environ.get("HOME", "/tmp"))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def check_page(html: Path, budget_ms: int = 15000) -> dict:
    """Load ``html`` (a copy with a check script, same folder) and return what the browser saw:
    ``n_img``, ``broken`` (sources of images that did not load), ``n_table``, ``text`` (length)."""
    html = Path(html)
    probe = html.with_name(f".probe_{html.name}")
    page = html.read_text(errors="replace")
    page = page.replace("</body>", _CHECK + "</body>") if "</body>" in page else page + _CHECK
    probe.write_text(page)
    try:
        out = _run([f"--virtual-time-budget={budget_ms}", "--dump-dom", probe.resolve().as_uri()])
    finally:
        probe.unlink()
    m = re.search(r'<pre id="fm-check">(.*?)</pre>', out.stdout, re.S)
    if not m:
        raise AssertionError(f"Chromium did not run the page's check script:\n{out.stderr[-2000:]}")
    return json.loads(m.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))


def screenshot(url: str, png: Path, size=(1400, 1000), budget_ms: int = 8000) -> Path:
    """A PNG screenshot of ``url`` (e.g. ``file:///.../report.html#sec-findings``)."""
    out = _run([f"--window-size={size[0]},{size[1]}", f"--virtual-time-budget={budget_ms}", f"--screenshot={png}", url])
    if not Path(png).is_file():
        raise AssertionError(f"no screenshot written:\n{out.stderr[-2000:]}")
    return Path(png)
