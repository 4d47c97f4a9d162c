"""Sphinx configuration of the fmeasure documentation site.

Build (from the repository root)::

    pip install -e '.[docs]'
    sphinx-build -W --keep-going docs docs/_build/html

The site is made of:

* the pages of ``docs/*.md`` (Markdown, read by myst-parser); the README as the front page, and
  the READMEs of ``config/`` and of the Slurm profile, CONTRIBUTING.md, CHANGELOG.md and
  CITATION.cff, each included by a small page beside this file (their links to repository files
  point to the site's pages, or become plain paths where the site has none);
* the API reference (``docs/api/``, written here at each build): one page per public module of
  ``fmeasure`` (every module but the private ones and the pipeline's ``fmeasure.experiments``), one
  page per name in its ``__all__``, from the docstrings (numpydoc). A name re-exported by a
  package is documented once, where users import it (the shallowest module that lists it);
* the gallery (``examples/plot_*.py``), run by sphinx-gallery on small data
  (``FMEASURE_EXAMPLES_SMALL=1`` unless set otherwise);
* a page per pipeline stage (every ``workflow/rules/<stage>.smk`` with a ``docs/<stage>.md``),
  listed in ``docs/stages.md`` in the order of the default run, each with the figures of the last
  run in ``results/figures/`` if there are any (``FMEASURE_DOCS_RESULTS`` names another results
  folder), else the command that draws them. The figures are never committed: the site shows what
  this checkout last computed, with the files' dates, or the command.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import pkgutil
import re
import warnings
from datetime import UTC, datetime
from pathlib import Path

from sphinx.util import logging as sphinx_logging

import fmeasure

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
#: the pipeline's outputs whose figures the stage pages show (a run writes them to results/)
RESULTS = Path(os.environ.get("FMEASURE_DOCS_RESULTS", ROOT / "results")).resolve()
logger = sphinx_logging.getLogger("fmeasure.docs")

project = "fmeasure"
author = "the fmeasure developers"
copyright = "the fmeasure developers"
version = release = fmeasure.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "**/*.ipynb", "**/*.py.md5", "**/*.codeobj.json"]
templates_path = ["_templates"]
root_doc = "index"

html_theme = "furo"
html_title = f"fmeasure {release}"
html_static_path: list[str] = []
html_show_sourcelink = False

# Markdown: anchors for the headings, so that links like page.md#section resolve
myst_heading_anchors = 3

# API reference: numpydoc renders the sections; the class pages list their own methods (template in
# _templates/autosummary/class.rst), so numpydoc's member tables are off
autosummary_generate = True
autosummary_ignore_module_all = False
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# The gallery: every examples/plot_*.py is run and its figure kept, with a download per example
os.environ.setdefault("FMEASURE_EXAMPLES_SMALL", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "abort_on_example_error": True,
    "download_all_examples": True,
    "write_computation_times": False,
    "show_memory": False,
    "remove_config_comments": True,
}


# ---------------------------------------------------------------------------------------------
# API reference: docs/api/<module>.rst for every public module, written from the package itself
# ---------------------------------------------------------------------------------------------

API = DOCS / "api"
#: pipeline code, described on the stage pages rather than in the library's reference
NOT_LIBRARY = ("fmeasure.experiments",)


def public_modules() -> list[str]:
    """Every public module of the package: no component starting with ``_``, no pipeline code."""
    names = ["fmeasure"]
    for info in pkgutil.walk_packages(fmeasure.__path__, prefix="fmeasure."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        if info.name.startswith(NOT_LIBRARY):
            continue
        names.append(info.name)
    return sorted(names)


def public_names(module) -> list[str]:
    """The module's ``__all__``; without one, the functions and classes it defines."""
    if hasattr(module, "__all__"):
        return [n for n in module.__all__ if not inspect.ismodule(getattr(module, n))]
    return [
        n
        for n, obj in vars(module).items()
        if not n.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and obj.__module__ == module.__name__
    ]


def defines(module, name: str) -> bool:
    """Whether ``name`` is defined (def, class or assignment) in ``module``'s own source."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return False
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return True
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        for t in targets:
            for leaf in ast.walk(t):
                if isinstance(leaf, ast.Name) and leaf.id == name:
                    return True
    return False


def _key(module_name: str, name: str, obj):
    # one object exported under one name by several modules is one entry; scalars are not
    # tracked by identity (two modules may hold equal small numbers or strings by chance)
    if isinstance(obj, int | float | str | bytes | bool | type(None)):
        return (module_name, name)
    return (id(obj), name)


def api_layout() -> dict[str, dict[str, list[str]]]:
    """For each public module: ``own`` (names documented on its page) and ``elsewhere``
    (names it exports that are documented on another module's page, as full paths)."""
    modules = {name: importlib.import_module(name) for name in public_modules()}
    candidates: dict = {}
    for mod_name, mod in modules.items():
        for name in public_names(mod):
            candidates.setdefault(_key(mod_name, name, getattr(mod, name)), []).append(mod_name)
    layout = {m: {"own": [], "elsewhere": []} for m in modules}
    for mod_name, mod in modules.items():
        for name in public_names(mod):
            where = candidates[_key(mod_name, name, getattr(mod, name))]
            owner = min(where, key=lambda m: (m.count("."), not defines(modules[m], name), m))
            if owner == mod_name:
                layout[mod_name]["own"].append(name)
            else:
                layout[mod_name]["elsewhere"].append(f"{owner}.{name}")
    return layout


def _autosummary(names: list[str], toctree: bool) -> list[str]:
    lines = [".. autosummary::"]
    if toctree:
        lines.append("   :toctree: generated/")
    lines += ["   :nosignatures:", ""] + [f"   {n}" for n in names] + [""]
    return lines


def module_page(name: str, own: list[str], elsewhere: list[str], children: list[str]) -> str:
    lines = [name, "=" * len(name), "", f".. automodule:: {name}", "", f".. currentmodule:: {name}", ""]
    if own:
        lines += _autosummary(own, toctree=True)
    if elsewhere:
        lines += [".. rubric:: Also available here", ""]
        lines += _autosummary(elsewhere, toctree=False)
    if children:
        lines += [".. rubric:: Submodules", "", ".. currentmodule:: None", ""] + _module_list(children)
    return "\n".join(lines)


def _module_list(modules: list[str]) -> list[str]:
    # a table of the modules with their summaries, and the same pages in the navigation
    lines = _autosummary(modules, toctree=False)
    return lines + [".. toctree::", "   :hidden:", ""] + [f"   {m}" for m in modules] + [""]


INDEX_HEAD = """\
API reference
=============

Every public name of the library, from its docstring. A name is documented in the module users
import it from (``from fmeasure.inference import gfm``); the modules that define or re-export it
link there. The pipeline's stages (``fmeasure.experiments``) are described on their own pages.

"""


def write_api_pages() -> None:
    """Write docs/api/index.rst and one page per public module (only files whose text changed)."""
    layout = api_layout()
    pages = {}
    for name, entry in layout.items():
        # the top-level modules are listed by the index, not under the page of fmeasure itself
        children = [m for m in layout if m.rsplit(".", 1)[0] == name and m != name and name != "fmeasure"]
        pages[f"{name}.rst"] = module_page(name, entry["own"], entry["elsewhere"], children)
    top = ["fmeasure"] + [m for m in layout if m.count(".") == 1]
    pages["index.rst"] = INDEX_HEAD + "\n".join(_module_list(top))
    API.mkdir(exist_ok=True)
    for stale in API.glob("*.rst"):
        if stale.name not in pages:
            stale.unlink()
    for file, text in pages.items():
        path = API / file
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)


write_api_pages()


# ---------------------------------------------------------------------------------------------
# Links: the README and the other included files link to repository paths; on the site they
# point to the page that shows that file, or are written as a path when the site has none
# ---------------------------------------------------------------------------------------------

#: repository files shown as a page of the site
SITE_PAGES = {
    "README.md": "index.md",
    "config/README.md": "configuration.md",
    "workflow/profiles/slurm/README.md": "slurm.md",
    "examples/README.txt": "auto_examples/index.rst",
    "CHANGELOG.md": "changelog.md",
    "CONTRIBUTING.md": "contributing.md",
    "CITATION.cff": "citing.md",
}
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def site_links(text: str, repo_path: str) -> str:
    """``text`` (Markdown of the repository file ``repo_path``) with its links made to work from
    a page of the site at docs/ (every page that includes a file sits there)."""

    def fix(m: re.Match) -> str:
        bang, label, target = m.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#", target):
            return m.group(0)
        path, sep, anchor = target.partition("#")
        rel = os.path.normpath(os.path.join(os.path.dirname(repo_path), path))
        if rel in SITE_PAGES:
            new = SITE_PAGES[rel]
        elif rel.startswith("docs/") and (ROOT / rel).exists():
            new = rel.removeprefix("docs/")
        elif bang and (ROOT / rel).is_file():
            new = os.path.relpath(ROOT / rel, DOCS)
        else:
            return f"{label} (`{rel}`)" if label.strip("`") != rel else f"`{rel}`"
        return f"{bang}[{label}]({new}{sep}{anchor})"

    return LINK.sub(fix, text)


def _include_read(app, relative_path, parent_docname, content):
    path = (DOCS / relative_path).resolve() if not Path(relative_path).is_absolute() else Path(relative_path)
    try:
        repo_path = str(path.relative_to(ROOT))
    except ValueError:
        return
    if repo_path.endswith(".md"):
        content[0] = site_links(content[0], repo_path)


# ---------------------------------------------------------------------------------------------
# Stage pages: docs/<stage>.md for every workflow/rules/<stage>.smk, with the run's figures
# ---------------------------------------------------------------------------------------------


def stages() -> dict[str, str]:
    """Each stage with a page: its name -> the Snakemake target that runs it alone."""
    out = {}
    for smk in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        stage = smk.stem
        if not (DOCS / f"{stage}.md").is_file():
            continue
        rules = set(re.findall(r"^rule (\w+):", smk.read_text(), re.M))
        target = next((t for t in (f"{stage}_all", stage) if t in rules), None)
        out[stage] = f"snakemake --cores all {target}" if target else "snakemake --cores all"
    return out


def stage_figures(stage: str) -> tuple[list[Path], bool]:
    """The PNG figures of ``stage`` in results/figures/, and whether its rules draw any."""
    smk = ROOT / "workflow" / "rules" / f"{stage}.smk"
    draws = "figures/" in smk.read_text()
    found = sorted((RESULTS / "figures").glob(f"{stage}*.png"))
    found = [p for p in found if re.fullmatch(rf"{re.escape(stage)}(_\w+)?\.png", p.name)]
    return found, draws


def figure_section(stage: str, command: str) -> str:
    found, draws = stage_figures(stage)
    if not draws:
        return ""
    head = "\n\n## Figures from `results/`\n\n"
    if not found:
        return (
            head + "The figures of this stage are drawn by a pipeline run, not by the documentation build: "
            f"`{command}` writes them to `results/figures/{stage}*.png`, and building the site again afterwards "
            "shows them here.\n"
        )
    parts = [
        head + f"The figures of the last run in this checkout, as `{command}` wrote them to `results/figures/` "
        "(the date is the file's).\n"
    ]
    for png in found:
        stamp = datetime.fromtimestamp(png.stat().st_mtime, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
        rel = os.path.relpath(png, DOCS)
        parts.append(f"\n```{{figure}} {rel}\n:alt: {png.stem}\n\n`results/figures/{png.name}`, written {stamp}\n```\n")
    return "".join(parts)


STAGES = stages()


def stage_order() -> list[str]:
    """The stage pages in the order of the default run (config/config.yaml), then the others with
    the report last."""
    import yaml

    run = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["stages"]
    first = [s for s in run if s in STAGES]
    rest = sorted((s for s in STAGES if s not in run), key=lambda s: (s == "report", s))
    return first + rest


def stages_toctree() -> str:
    return "\n\n```{toctree}\n:maxdepth: 1\n\n" + "".join(f"{s}\n" for s in stage_order()) + "```\n"


def _source_read(app, docname, source):
    path = Path(app.env.doc2path(docname))
    if path.suffix != ".md" or path.parent != DOCS:
        return
    text = site_links(source[0], f"docs/{path.name}")
    if docname in STAGES:
        text += figure_section(docname, STAGES[docname])
    if docname == "stages":
        text += stages_toctree()
    source[0] = text


def _skip_member(app, what, name, obj, skip, options):
    # scikit-learn's metadata-routing setters (set_fit_request, ...) are made per class by
    # scikit-learn and documented there
    if re.fullmatch(r"set_\w+_request", name):
        return True
    return None


# ---------------------------------------------------------------------------------------------
# Python warnings raised while reading docstrings (numpydoc's, for one) are the site's warnings too
# ---------------------------------------------------------------------------------------------


_python_show_warning = warnings.showwarning


def _show_warning(message, category, filename, lineno, file=None, line=None):
    if re.search(r"[/\\](numpydoc|sphinx|docutils|myst_parser)[/\\]", str(filename)):
        logger.warning(f"{category.__name__}: {message} ({filename}:{lineno})")
    else:
        _python_show_warning(message, category, filename, lineno, file, line)


def _builder_inited(app):
    out = Path(app.doctreedir) / "gallery-out"
    out.mkdir(parents=True, exist_ok=True)
    # the examples save their figure there too (as when run by hand); the gallery keeps its own copy
    os.environ["FMEASURE_EXAMPLES_OUT"] = str(out)
    warnings.showwarning = _show_warning


def setup(app):
    app.connect("builder-inited", _builder_inited, priority=100)
    app.connect("source-read", _source_read)
    app.connect("include-read", _include_read)
    app.connect("autodoc-skip-member", _skip_member)
    return {"parallel_read_safe": True}
