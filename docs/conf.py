"""Sphinx configuration of the fmeasure documentation site.

Build (from the repository root)::

    pip install -e '.[docs]'
    sphinx-build -W --keep-going docs docs/_build/html

The site is made of:

* the front page (``docs/index.md``), the getting-started page and the user guide
  (``docs/user_guide/``): Markdown, read by myst-parser, with math rendered by MathJax, which the
  site carries itself (``docs/_static/mathjax/``: no page loads anything from outside the site);
* the pages of ``docs/*.md``; the READMEs of ``config/`` and of the Slurm profile,
  CONTRIBUTING.md, CHANGELOG.md, CITATION.cff and the pipeline's part of the README, each included
  by a small page beside this file (their links to repository files point to the site's pages, or
  become plain paths where the site has none);
* the API reference (``docs/api/``, written here at each build), one page per topic
  (:data:`API_TOPICS`: estimators, inference, ..., and the pipeline's internals apart), each with
  the public modules of that topic and one page per name in their ``__all__``, from the
  docstrings (numpydoc). A name re-exported by a package is documented once, where users import
  it (the shallowest module that lists it). Links to Python, NumPy, SciPy, scikit-learn and pandas
  go through intersphinx: each project's inventory from its web site, or, when the web cannot be
  reached (or ``FMEASURE_DOCS_OFFLINE=1``), the copy in ``docs/_intersphinx/``
  (``tools/docs_inventories.py`` says where each comes from);
* the gallery (``examples/plot_*.py``), run by sphinx-gallery on small data
  (``FMEASURE_EXAMPLES_SMALL=1`` unless set otherwise), with "Examples using ..." on the API pages.
  An example on a real dataset loads it with ``fmeasure.datasets.load_mulan``, which looks in the
  folders of ``$FMEASURE_DATA_MIRROR`` before downloading: the build adds ``tests/data`` (which
  holds emotions) to them, last, so that it needs no network, and keeps the parsed arrays under its
  doctrees folder (``$SCIKIT_LEARN_DATA``, unless set) rather than in ``~/scikit_learn_data``;
* a page per pipeline stage (every ``workflow/rules/<stage>.smk`` with a ``docs/<stage>.md``),
  listed in ``docs/stages.md`` in the order of the default run, each with the figures of the last
  run in ``results/figures/`` if there are any (``FMEASURE_DOCS_RESULTS`` names another results
  folder), else the command that draws them. The figures are never committed: the site shows what
  this checkout last computed, with the files' dates, or the command.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import os
import pkgutil
import re
import sys
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
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_intersphinx", "**/*.ipynb", "**/*.py.md5", "**/*.codeobj.json"]
templates_path = ["_templates"]
root_doc = "index"

html_theme = "furo"
html_title = f"fmeasure {release}"
html_static_path = ["_static"]
html_css_files = ["fmeasure.css"]
html_show_sourcelink = False

# Markdown: anchors for the headings, so that links like page.md#section resolve; $...$ and
# $$...$$ math, and amsmath environments (\begin{align} ...)
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath", "amsmath"]

# Math: MathJax 3 from the site itself (docs/_static/mathjax: tex-chtml-full.js, with every TeX
# extension, and its fonts), so that formulas render offline and no page loads a script from elsewhere
mathjax_path = "mathjax/tex-chtml-full.js"

# ---------------------------------------------------------------------------------------------
# Links to other projects' documentation. Each inventory is asked of the project's web site first;
# when that fails (no network) the copy in docs/_intersphinx/ is read instead, which Sphinx logs
# as information, not as a warning, so the build passes with -W either way.
# FMEASURE_DOCS_OFFLINE=1 reads the copies only (the same site with no network access attempted).
# ---------------------------------------------------------------------------------------------

#: name -> the documentation whose inventory is used
INTERSPHINX = {
    "python": "https://docs.python.org/3/",
    "numpy": "https://numpy.org/doc/stable/",
    "scipy": "https://docs.scipy.org/doc/scipy/",
    "sklearn": "https://scikit-learn.org/stable/",
    "pandas": "https://pandas.pydata.org/docs/",
}
OFFLINE = os.environ.get("FMEASURE_DOCS_OFFLINE") == "1"
intersphinx_mapping = {
    name: (url, (f"_intersphinx/{name}.inv",) if OFFLINE else (None, f"_intersphinx/{name}.inv"))
    for name, url in INTERSPHINX.items()
}
intersphinx_timeout = 10

# API reference: numpydoc renders the sections; the class pages list their own methods (template in
# _templates/autosummary/class.rst), so numpydoc's member tables are off
autosummary_generate = True
autosummary_ignore_module_all = False
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# the types of parameters and returns link to their documentation (numpydoc's own aliases:
# ndarray, array-like, int, ...; and these); other words of a type stay plain text
numpydoc_xref_param_type = True
numpydoc_xref_ignore = "all"
numpydoc_xref_aliases = {
    "DataFrame": "pandas.DataFrame",
    "Generator": "numpy.random.Generator",
    "Bunch": "sklearn.utils.Bunch",
    "estimator": ":term:`sklearn:estimator`",
}

# The gallery: every examples/plot_*.py is run and its figure kept, with a download per example
os.environ.setdefault("FMEASURE_EXAMPLES_SMALL", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
#: holds the datasets the examples load (emotions), as a data mirror (set in _builder_inited)
TEST_DATA = ROOT / "tests" / "data"
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "abort_on_example_error": True,
    "download_all_examples": True,
    # each example's run time on its page, and all of them in auto_examples/sg_execution_times
    "write_computation_times": True,
    "show_memory": False,
    "remove_config_comments": True,
    # "Examples using X" on the API page of every fmeasure object an example uses, and the names in
    # the examples' code linked to the API reference (and to other projects' through intersphinx)
    "backreferences_dir": "gen_modules/backreferences",
    "doc_module": ("fmeasure",),
    "reference_url": {"fmeasure": None},
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


#: The topics of the API reference, one page each: (page, title, what it holds, modules). A module
#: belongs to the topic that lists it or the package it is in (the longest such name); a public
#: module of no topic is reported by the build. The pipeline's internals come last, apart.
API_TOPICS = [
    (
        "estimators",
        "Estimators",
        "scikit-learn estimators whose predictions maximise the expected instance-wise F-measure: "
        ":class:`~fmeasure.FOptimalClassifier` around any probabilistic scikit-learn model, "
        ":class:`~fmeasure.FOptimalSearchCV` to choose the route by cross-validation, and the learners "
        "of the paper (kNN, PCC, BR, LFP, EFP, F-measure trees, a structured SVM, a voting ensemble).",
        ("fmeasure", "fmeasure.learners"),
    ),
    (
        "inference",
        "Inference",
        "From a distribution of the labels to the prediction with the largest expected F-measure: GFM "
        "(exact for any joint distribution), FM and the other maximizers under label independence, "
        "thresholding, the modes, brute force, and the one call from label samples.",
        ("fmeasure.inference",),
    ),
    (
        "estimation",
        "Estimation",
        "What the inference reads, counted from a sample of label vectors: the marginals, the matrix P "
        "with P(y = 0), the matrix Delta and the joint mode.",
        ("fmeasure.estimation",),
    ),
    (
        "metrics",
        "Metrics",
        "The instance-wise F-measure (F(0, 0) = 1), Hamming loss, subset 0/1 loss and Jaccard index, per "
        "instance, and the mean F as a scikit-learn scorer.",
        ("fmeasure.metrics",),
    ),
    (
        "datasets",
        "Datasets",
        "MULAN and LibSVM multi-label datasets from a local mirror or downloaded, verified and parsed, and "
        "synthetic datasets of a chosen shape.",
        ("fmeasure.datasets",),
    ),
    (
        "theory",
        "Theory",
        "The paper's worst-case distributions evaluated exactly, worst-case regrets by linear "
        "programming, and the label models of its simulations with their Bayes-optimal predictions.",
        ("fmeasure.theory", "fmeasure.label_models"),
    ),
    (
        "cli",
        "Command line",
        "The ``fmeasure`` command (``fmeasure predict``, ``fmeasure evaluate``) as Python functions; the "
        "command itself is described on :doc:`/cli`.",
        ("fmeasure.cli",),
    ),
    (
        "internals",
        "Pipeline internals",
        "Helpers of the Snakemake pipeline that regenerates the paper (atomic outputs, logging, "
        "timing, tables, figures, BLAS threads). They are public for the pipeline's scripts, not meant "
        "for users of the library, and may change without notice.",
        ("fmeasure.io", "fmeasure.timing", "fmeasure.tables", "fmeasure.figures", "fmeasure.blas"),
    ),
]
#: public modules that no topic claims (reported as a warning by the build)
UNCLASSIFIED: list[str] = []


def topic_of(module: str) -> str | None:
    """The page of the topic ``module`` belongs to (see :data:`API_TOPICS`), or None."""
    best = None
    for page, _, _, modules in API_TOPICS:
        for m in modules:
            inside = module == m or (m != "fmeasure" and module.startswith(m + "."))
            if inside and (best is None or len(m) > best[0]):
                best = (len(m), page)
    return best[1] if best else None


def module_section(name: str, own: list[str], elsewhere: list[str]) -> list[str]:
    """A module on its topic's page: its docstring, a table of its names (each with its page), and
    the names it re-exports from elsewhere."""
    title = f"``{name}``"
    lines = [title, "-" * len(title), "", f".. automodule:: {name}", "", f".. currentmodule:: {name}", ""]
    if own:
        lines += _autosummary(own, toctree=True)
    if elsewhere:
        lines += [".. rubric:: Also available here", ""]
        lines += _autosummary(elsewhere, toctree=False)
    return lines


def _module_order(modules: list[str], topic_modules: tuple[str, ...]) -> list[str]:
    # the modules the topic names first (in its order), then the others by name
    named = [m for m in topic_modules if m in modules]
    return named + sorted(m for m in modules if m not in named)


INDEX_HEAD = """\
API reference
=============

Every public name of the library, by topic, from its docstring. A name is documented where users
import it from (``from fmeasure.inference import gfm``); the modules that define or re-export it
link there. The tables below list what each topic's main modules export; each topic's page also has
its submodules. The pipeline's helpers are on :doc:`internals`, and the pipeline's stages
(``fmeasure.experiments``) on :doc:`the stages' pages </stages>`.

.. toctree::
   :hidden:

"""

INTERNALS_TAIL = """
The stages' modules
-------------------

One module of ``fmeasure.experiments`` per stage of the pipeline, each described on the page of its
stage (:doc:`/stages`) rather than here:

"""


def write_api_pages() -> None:
    """Write docs/api/index.rst and one page per topic (only files whose text changed)."""
    layout = api_layout()
    by_topic: dict[str, list[str]] = {page: [] for page, *_ in API_TOPICS}
    UNCLASSIFIED.clear()
    for module in layout:
        page = topic_of(module)
        if page is None:
            UNCLASSIFIED.append(module)
        else:
            by_topic[page].append(module)
    pages = {}
    index = [INDEX_HEAD] + [f"   {page}\n" for page, *_ in API_TOPICS] + ["\n"]
    for page, title, about, topic_modules in API_TOPICS:
        modules = _module_order(by_topic[page], topic_modules)
        lines = [title, "=" * len(title), "", about, ""]
        for m in modules:
            lines += module_section(m, layout[m]["own"], layout[m]["elsewhere"])
        if page == "internals":
            lines += [INTERNALS_TAIL]
            for m in experiment_modules():
                summary = module_summary(m)
                lines += [f"* ``{m}`` -- {summary}" if summary else f"* ``{m}``"]
            lines.append("")
        pages[f"{page}.rst"] = "\n".join(lines)
        # the index: each library topic with the names of its main modules; the internals by link
        index += [title, "-" * len(title), "", about, ""]
        if page != "internals":
            for m in modules:
                if m in topic_modules and layout[m]["own"]:
                    index += [f".. currentmodule:: {m}", ""] + _autosummary(layout[m]["own"], toctree=False)
            index += [f"Every module of the topic, with its submodules: :doc:`{page}`.", ""]
        else:
            index += [f"Their reference: :doc:`{page}`.", ""]
    pages["index.rst"] = "\n".join(index)
    API.mkdir(exist_ok=True)
    for stale in API.glob("*.rst"):
        if stale.name not in pages:
            stale.unlink()
    for file, text in pages.items():
        path = API / file
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)


def experiment_modules() -> list[str]:
    """The modules of ``fmeasure.experiments`` (one per stage, and what the stages share)."""
    import fmeasure.experiments as experiments

    return sorted(
        f"fmeasure.experiments.{info.name}"
        for info in pkgutil.iter_modules(experiments.__path__)
        if not info.name.startswith("_")
    )


def module_summary(name: str) -> str:
    """The first sentence of a module's docstring, read from its source (nothing is imported)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin:
        return ""
    doc = ast.get_docstring(ast.parse(Path(spec.origin).read_text())) or ""
    first = " ".join(doc.split("\n\n", 1)[0].split())
    return first.split(". ", 1)[0].rstrip(".") + "." if first else ""


write_api_pages()


# ---------------------------------------------------------------------------------------------
# Links: the README and the other included files link to repository paths; on the site they
# point to the page that shows that file, or are written as a path when the site has none
# ---------------------------------------------------------------------------------------------

#: repository files shown as a page of the site
SITE_PAGES = {
    "README.md": "reproducing.md",
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


#: sphinx-gallery's tables of the examples' run times load jQuery and DataTables from CDNs to make
#: them sortable: that block is left out, so that the site loads nothing from elsewhere (the tables
#: stay plain tables)
CDN_BLOCK = re.compile(r"^( *)\.\. raw:: html\n(?:\n|\1 +.*\n)*?(?=\1\.\. list-table::)", re.M)


def _no_cdn(app, docname, source):
    if docname.rsplit("/", 1)[-1] == "sg_execution_times":
        source[0] = CDN_BLOCK.sub("", source[0])


def _skip_member(app, what, name, obj, skip, options):
    # scikit-learn's metadata routing (get_metadata_routing, and the setters set_fit_request, ...
    # made per class) is scikit-learn's API, documented there
    if re.fullmatch(r"set_\w+_request|get_metadata_routing", name):
        return True
    # the class pages show inherited members (an estimator's fit, score, get_params ...), but not
    # those of Python's built-in types (an exception's args and with_traceback, a tuple's count)
    owner = getattr(obj, "__objclass__", None)
    if isinstance(owner, type) and owner.__module__ == "builtins":
        return True
    return None


def _attribute_comment(name: str) -> list[str] | None:
    """The ``#:`` comment of the module-level name ``name`` (full path), looked for in the module
    that exports it and in its submodules (where a re-exported constant is defined)."""
    from sphinx.pycode import ModuleAnalyzer

    module, _, attr = name.rpartition(".")
    candidates = [module] + sorted(m for m in sys.modules if m.startswith(module + "."))
    for candidate in candidates:
        try:
            docs = ModuleAnalyzer.for_module(candidate).find_attr_docs()
        except Exception:  # a module without source: try the next
            continue
        if ("", attr) in docs:
            return [line for line in docs[("", attr)] if line is not None]
    return None


def _constant_docstring(app, what, name, obj, options, lines):
    # A constant (module-level data) is documented by its ``#:`` comment. autodoc finds that
    # comment only in the module the name is documented under; for a name re-exported by a package
    # it would show the docstring of the value's type instead (int's, tuple's): take the comment
    # from the module that defines the name, and never the type's docstring.
    if what != "data" or not lines:
        return
    type_doc = inspect.getdoc(type(obj))
    if not type_doc or [line.strip() for line in lines if line.strip()][:1] != type_doc.splitlines()[:1]:
        return
    comment = _attribute_comment(name)
    if comment is None:
        logger.warning(f"{name}: no #: comment documents it (its type's docstring is not shown)")
        comment = []
    lines[:] = comment


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
    # the datasets the examples load (load_mulan) come from tests/data, searched after the folders
    # $FMEASURE_DATA_MIRROR already names (no network needed), and are parsed once per doctrees
    # folder rather than in ~/scikit_learn_data
    mirrors = [p for p in os.environ.get("FMEASURE_DATA_MIRROR", "").split(os.pathsep) if p]
    os.environ["FMEASURE_DATA_MIRROR"] = os.pathsep.join(dict.fromkeys([*mirrors, str(TEST_DATA)]))
    os.environ.setdefault("SCIKIT_LEARN_DATA", str(Path(app.doctreedir) / "scikit_learn_data"))
    warnings.showwarning = _show_warning
    for module in UNCLASSIFIED:
        logger.warning(
            f"{module}: a public module of no topic of the API reference (add it to API_TOPICS in docs/conf.py)"
        )


def setup(app):
    app.connect("builder-inited", _builder_inited, priority=100)
    app.connect("source-read", _source_read)
    app.connect("source-read", _no_cdn)
    app.connect("include-read", _include_read)
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("autodoc-process-docstring", _constant_docstring, priority=400)  # before numpydoc
    return {"parallel_read_safe": True}
