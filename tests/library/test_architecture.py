"""The package keeps its shape: library vs experiments, one dispatch, no private imports across modules.

Read from the source with :mod:`ast`, so a new module is checked without touching this file.
"""

import ast
from pathlib import Path

import pytest

from fmeasure.experiments.registry import SEPARATE_TARGETS, STAGES

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "src" / "fmeasure"


def _module_name(path: Path) -> str:
    if PKG.parent not in path.parents:  # a script outside the package (benchmarks)
        return path.stem
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path):
    """(imported module, imported names) of every import statement, relative imports resolved."""
    tree = ast.parse(path.read_text())
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([mod] if mod else []))
            yield mod, [a.name for a in node.names]


MODULES = sorted(PKG.rglob("*.py"))
LIBRARY = [p for p in MODULES if "experiments" not in p.relative_to(PKG).parts]


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: _module_name(p))
def test_library_never_imports_experiments(path):
    bad = [
        mod
        for mod, names in _imports(path)
        if mod.startswith("fmeasure.experiments") or (mod == "fmeasure" and "experiments" in names)
    ]
    assert not bad, f"{_module_name(path)} imports {bad}"


def test_estimation_does_not_import_inference():
    mods = [mod for mod, names in _imports(PKG / "estimation.py")]
    assert not [m for m in mods if m.startswith("fmeasure.inference")], mods


@pytest.mark.parametrize(
    "path",
    MODULES + sorted((ROOT / "benchmarks").glob("*.py")),
    ids=lambda p: p.name if "benchmarks" in p.parts else _module_name(p),
)
def test_no_private_names_imported_across_modules(path):
    # fmeasure._arrays is the one private module shared on purpose (by inference and estimation)
    bad = [
        (mod, n)
        for mod, names in _imports(path)
        if mod.startswith("fmeasure")
        for n in names
        if n.startswith("_") and not (n.startswith("__") and n.endswith("__"))
    ]
    assert not bad, f"{path.name} imports private names {bad}"


def test_one_dispatch_from_label_samples():
    # MM/JM/FM/GFM from label samples is decided in one function: nobody else calls the
    # sample estimators and the four inferences side by side
    callers = []
    for path in MODULES:
        if path.name == "samples.py":
            continue
        text = path.read_text()
        if (
            ("gfm_from_samples(" in text or "gfm_from_p(" in text)
            and "marginal_modes(" in text
            and "estimation.marginals(" in text
        ):
            callers.append(_module_name(path))
    assert not callers, f"dispatch written again in {callers}: use fmeasure.inference.from_samples"


#: Every stage of the registry, the parts built like one, and the report (always built).
STAGE_LIKE = (*STAGES, *SEPARATE_TARGETS, "report")


@pytest.mark.parametrize("stage", STAGE_LIKE)
def test_every_stage_has_its_four_files(stage):
    assert (ROOT / "workflow" / "rules" / f"{stage}.smk").is_file(), stage
    assert list((ROOT / "workflow" / "scripts").glob(f"{stage}_*.py")), stage
    module = PKG / "experiments" / f"{stage}.py"
    assert module.is_file() or (module.with_suffix("") / "__init__.py").is_file(), stage  # a module or a package
    assert (ROOT / "docs" / f"{stage}.md").is_file(), stage


def test_every_rule_file_is_a_stage_of_the_registry():
    """A rule file is a stage of fmeasure.experiments.registry (or built like one), or the rules'
    shared helpers: a stage cannot be added to the workflow without its name in the registry."""
    files = {p.stem for p in (ROOT / "workflow" / "rules").glob("*.smk")}
    assert sorted(files - {"common", *STAGE_LIKE}) == []


def _graph() -> dict[str, set[str]]:
    """fmeasure's modules -> the fmeasure modules they import (anywhere in the file, functions included)."""
    modules = {_module_name(p): p for p in MODULES}
    graph = {}
    for name, path in modules.items():
        edges = set()
        for mod, names in _imports(path):
            targets = [f"{mod}.{n}" for n in names if f"{mod}.{n}" in modules]  # from pkg import module
            edges.update(targets or ([mod] if mod in modules else []))
        graph[name] = edges - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_cycles_finds_a_circle_built_by_hand():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycle():
    """No module imports, even inside a function, a module that imports it back (directly or
    through others): each module can be read, tested and moved on its own."""
    assert _cycles(_graph()) == []
