"""Each list of names is written once, in fmeasure.experiments.registry; what is not generated from
it is held equal to it here.

* config/schema.yaml takes its enums from the registry (``{x-names: NAME}``, filled in by
  ``load_schema``) at the keys listed in :data:`SCHEMA_NAMES`, and lists none of its names by hand;
  its keys that are names (``dataset_overrides``, ``theory.lp``, ``simulations.data_models``) are the
  registry's; its option enums are the library's.
* The stage modules, the report, config.yaml's default run, the paper's claims and the library
  name the same things the same way.
* config/README.md and docs/foptimal.md list the registry's names.

Each comparison (:class:`Same`) returns its differences, one line naming the registry's list, the
file and what differs. It runs on the registry, where it finds none, and on a copy of the registry
with the made-up name ``FAKE`` added to its list alone, where it must name ``FAKE``: so each
comparison can fail. The schema's enums are shown to follow the registry the same way.
"""

import copy
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from fmeasure.experiments import registry
from fmeasure.experiments.config import ConfigError, check_config, load_schema

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "config" / "schema.yaml"
RAW_SCHEMA = yaml.safe_load(SCHEMA_PATH.read_text())
README = ROOT / "config" / "README.md"

#: Where config/schema.yaml takes a list of the registry: config key (``[]``: an item of the list,
#: ``*``: any key of the object) -> the registry's list.
SCHEMA_NAMES = {
    "stages[]": "STAGES",
    "simulations.methods[]": "METHOD_NAMES",
    "knn.methods[]": "INFERENCE_METHODS",
    "parametric.learners[]": "PARAMETRIC_LEARNERS",
    "voting.fits.*.learner": "VOTING_LEARNERS",
    "voting.members[].inference": "INFERENCE_METHODS",
    "trees.models[]": "TREE_MODELS",
    "trees.predictions[]": "TREE_PREDICTIONS",
    "ablations.settings.*.stage": "STAGE_TABLES",
    "ablations.settings.*.methods[]": "ABLATION_METHODS",
    "foptimal.models[]": "FOPTIMAL_MODELS",
    "scaling.learners[]": "SCALING_LEARNERS",
    "peers.reference": "PEER_SYSTEMS",
    "peers.run[]": "PEER_SYSTEMS",
}
#: Blocks of the config whose names are not the registry's: the catalog (its formats and options are
#: the dataset reader's).
NOT_REGISTRY = ("catalog",)
#: The lists of the registry (name -> names).
LISTS = {n: getattr(registry, n) for n in registry.__all__ if isinstance(getattr(registry, n), (tuple, dict))}


def _faked(names):
    """``names`` with the made-up name FAKE added (a dict: with a value like its others)."""
    if isinstance(names, dict):
        sample = next(iter(names.values()))
        return {**names, "FAKE": ("FAKE row",) if isinstance(sample, tuple) else "FAKE"}
    return (*names, "FAKE")


def _diff(what, want, got, *, ordered=False, subset=False) -> list[str]:
    """One line naming what ``got`` lacks and holds beyond ``want`` (with ``subset``: only what it
    lacks; with ``ordered``: also a different order), if anything."""
    missing, extra = [n for n in want if n not in got], [n for n in got if n not in want]
    if subset:
        extra = []
    if missing or extra:
        return [f"{what}: lacks {missing} of the registry's list, holds {extra} beyond it"]
    if ordered and not subset and list(want) != list(got):
        return [f"{what}: in the order {list(got)}, the registry's is {list(want)}"]
    return []


@dataclass
class Same:
    """``got()`` holds the names ``want`` makes of the registry's list ``names`` (``ordered``: in the
    same order; ``subset``: at least those)."""

    what: str
    names: str
    got: Callable[[], list]
    want: Callable = list
    ordered: bool = True
    subset: bool = False

    def differences(self, reg) -> list[str]:
        want = self.want(getattr(reg, self.names))
        return _diff(f"{self.what} ({self.names})", want, self.got(), ordered=self.ordered, subset=self.subset)


# ---- the schema


def _walk(node, path=""):
    """``(config key, schema node)`` of every node of the schema (see :data:`SCHEMA_NAMES`)."""
    if not isinstance(node, dict):
        return
    yield path, node
    for key, sub in (node.get("properties") or {}).items():
        yield from _walk(sub, f"{path}.{key}" if path else key)
    if isinstance(node.get("additionalProperties"), dict):
        yield from _walk(node["additionalProperties"], f"{path}.*")
    if isinstance(node.get("items"), dict):
        yield from _walk(node["items"], f"{path}[]")


def _markers(schema) -> dict:
    return {path: node["x-names"] for path, node in _walk(schema) if "x-names" in node}


def _hand_written(schema, lists) -> list[str]:
    """Every enum of the schema (outside :data:`NOT_REGISTRY`) that lists a name of the registry by hand."""
    out = []
    for path, node in _walk(schema):
        if "enum" not in node or re.split(r"[.\[]", path)[0] in NOT_REGISTRY:
            continue
        shared = [name for name, names in lists.items() if set(node["enum"]) & set(names)]
        same = [name for name in shared if set(node["enum"]) == set(lists[name])]
        if shared:
            instead = f"write {{x-names: {same[0]}}}" if same else f"it shares names with {', '.join(shared)}"
            out.append(f"{SCHEMA_PATH.name}: {path}: enum {node['enum']} written by hand; {instead}")
    return out


def test_the_schema_takes_each_list_from_the_registry_where_the_config_holds_names():
    assert _markers(RAW_SCHEMA) == SCHEMA_NAMES


def test_no_enum_of_the_schema_lists_names_of_the_registry_by_hand():
    assert _hand_written(RAW_SCHEMA, LISTS) == []


def test_a_hand_written_list_of_names_in_the_schema_is_found():
    schema = {
        "properties": {
            "knn": {
                "properties": {"methods": {"items": {"enum": ["mm", "jm", "fm", "gfm"]}}, "ties": {"enum": ["all"]}}
            },
            "trees": {"properties": {"models": {"items": {"enum": ["tree", "bag"]}}}},
            "peers": {"properties": {"run": {"items": {"enum": ["br"]}}}},
        }
    }
    assert _hand_written(schema, LISTS) == [
        "schema.yaml: knn.methods[]: enum ['mm', 'jm', 'fm', 'gfm'] written by hand; write {x-names: INFERENCE_METHODS}",
        "schema.yaml: trees.models[]: enum ['tree', 'bag'] written by hand; it shares names with TREE_MODELS",
        "schema.yaml: peers.run[]: enum ['br'] written by hand; it shares names with FOPTIMAL_MODELS, PEER_SYSTEMS",
    ]  # knn.ties is an option


def _node(schema, path):
    node = schema
    for part in path.replace("[]", ".[]").split("."):
        node = (
            node["items"] if part == "[]" else node["additionalProperties"] if part == "*" else node["properties"][part]
        )
    return node


def test_a_schema_read_already_is_read_the_same():
    schema = load_schema(SCHEMA_PATH)
    assert load_schema(schema) == schema and _markers(schema) == {}


@pytest.mark.parametrize("path, name", SCHEMA_NAMES.items())
def test_each_enum_is_the_registry_list_when_the_schema_is_read(monkeypatch, path, name):
    assert _node(load_schema(SCHEMA_PATH), path)["enum"] == list(LISTS[name])
    monkeypatch.setattr(registry, name, _faked(LISTS[name]))
    assert _node(load_schema(SCHEMA_PATH), path)["enum"] == [*LISTS[name], "FAKE"]


def test_a_learner_added_to_the_registry_is_one_the_config_may_list(monkeypatch):
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["parametric"]["learners"] = ["BR", "FAKE"]
    with pytest.raises(
        ConfigError, match=r"config key 'parametric.learners': 'FAKE' is not one of \['BR', 'LFP', 'EFP'\]"
    ):
        check_config(copy.deepcopy(cfg), SCHEMA_PATH)
    monkeypatch.setattr(registry, "PARAMETRIC_LEARNERS", _faked(registry.PARAMETRIC_LEARNERS))
    assert check_config(cfg, SCHEMA_PATH)["parametric"]["learners"] == ["BR", "FAKE"]


def test_load_schema_refuses_an_unknown_list_and_an_enum_beside_one():
    with pytest.raises(ValueError, match=r"schema node 'properties.stages': x-names 'STAGE' is no list of"):
        load_schema({"properties": {"stages": {"x-names": "STAGE"}}})
    with pytest.raises(ValueError, match="both x-names 'STAGES' and an enum written by hand"):
        load_schema({"properties": {"stages": {"x-names": "STAGES", "enum": ["data"]}}})


def _schema(*keys) -> dict:
    node = RAW_SCHEMA
    for key in keys:
        node = node[key]
    return node


_SIM_MODELS = ("properties", "simulations", "properties", "data_models")
#: The schema's keys that are names: the stages that take dataset overrides, one ``<surrogate>_m`` per
#: LP surrogate, one block per data model of the simulations.
SCHEMA_KEYS = [
    Same(
        "config/schema.yaml properties.dataset_overrides.additionalProperties.properties",
        "OVERRIDE_STAGES",
        lambda: list(_schema("properties", "dataset_overrides", "additionalProperties", "properties")),
    ),
    Same(
        "config/schema.yaml properties.theory.properties.lp.properties: <surrogate>_m",
        "THEORY_SURROGATES",
        lambda: [
            k.removesuffix("_m")
            for k, v in _schema("properties", "theory", "properties", "lp", "properties").items()
            if k.endswith("_m") and v.get("type") == "array"
        ],
    ),
    Same(
        "config/schema.yaml simulations.data_models.properties",
        "SIM_DATA_MODELS",
        lambda: list(_schema(*_SIM_MODELS, "properties")),
    ),
    Same(
        "config/schema.yaml simulations.data_models.required",
        "SIM_DATA_MODELS",
        lambda: _schema(*_SIM_MODELS, "required"),
    ),
]


#: Option enums of the schema that the library's estimators define (config key, module, name).
OPTIONS = [
    ("knn.scaling", "fmeasure.learners.knn", "_SCALINGS"),
    ("knn.ties", "fmeasure.learners.knn", "_TIES"),
    ("pcc.scoring", "fmeasure.learners.logistic", "SCORINGS"),
    ("parametric.scoring", "fmeasure.learners.logistic", "SCORINGS"),
    ("simulations.scale_is", "fmeasure.label_models", "SCALE_KINDS"),
    ("data.nominal", "fmeasure.datasets._parse", "NOMINAL_MODES"),
    ("structured.solver", "fmeasure.learners.ssvm", "SOLVERS"),
]


@pytest.mark.parametrize("key, module, name", OPTIONS, ids=[o[0] for o in OPTIONS])
def test_option_enums_of_the_schema_are_the_library_s(key, module, name):
    library = getattr(importlib.import_module(module), name)
    enum = _node(RAW_SCHEMA, key)["enum"]
    assert _diff(f"schema {key} ({module}.{name})", library, enum) == []
    assert _diff(f"schema {key} ({module}.{name})", (*library, "FAKE"), enum) == [
        f"schema {key} ({module}.{name}): lacks ['FAKE'] of the registry's list, holds [] beyond it"
    ]


# ---- the code and the library


def _config_default_stages():
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["stages"]


def _claims_stages():
    from fmeasure.experiments.findings import paper_claims

    return list(dict.fromkeys(paper_claims().stage))


def _stage_titles():
    from fmeasure.experiments.report import STAGE_TITLES

    return list(STAGE_TITLES)


def _attr(module, name):
    return lambda: list(getattr(importlib.import_module(module), name))


def _call(module, name):
    return lambda: list(getattr(importlib.import_module(module), name)())


CODE = [
    Same(
        "fmeasure.experiments.report.STAGE_TITLES",
        "STAGES",
        _stage_titles,
        lambda s: [*s, *registry.SEPARATE_TARGETS],
        ordered=False,
    ),
    Same(
        "config/config.yaml stages (the default run: every stage but those run by their own target)",
        "STAGES",
        _config_default_stages,
        lambda s: [x for x in s if x not in registry.OWN_TARGET_STAGES],
    ),
    Same(
        "the stages of paper_numbers/claims.csv (every stage but the ablations)",
        "STAGES",
        _claims_stages,
        lambda s: [x for x in s if x != "ablations"],
        ordered=False,
    ),
    Same("STAGES: the stages run by their own target", "OWN_TARGET_STAGES", lambda: registry.STAGES, subset=True),
    Same("STAGES: the stages that take dataset overrides", "OVERRIDE_STAGES", lambda: registry.STAGES, subset=True),
    Same("STAGES: the stages the ablations rerun", "STAGE_TABLES", lambda: registry.STAGES, subset=True),
    Same("fmeasure.label_models.DATA_MODELS", "SIM_DATA_MODELS", _attr("fmeasure.label_models", "DATA_MODELS")),
    Same(
        "fmeasure.experiments.parametric: the learners it makes",
        "PARAMETRIC_LEARNERS",
        _call("fmeasure.experiments.parametric", "_learner_classes"),
        ordered=False,
    ),
    Same(
        "fmeasure.experiments.voting: the learners a fit is",
        "VOTING_LEARNERS",
        _call("fmeasure.experiments.voting", "_learner_classes"),
        ordered=False,
    ),
    Same(
        "fmeasure.experiments.scaling.RESOURCE_JOB",
        "SCALING_LEARNERS",
        _attr("fmeasure.experiments.scaling", "RESOURCE_JOB"),
    ),
    Same(
        "fmeasure.experiments.theory: the LP figure's styles",
        "THEORY_SURROGATES",
        _attr("fmeasure.experiments.theory", "_LP_STYLE"),
    ),
]


# ---- config/README.md


def _readme_row(key: str) -> str:
    """The last cell (the meaning) of the row of ``key``."""
    rows = [line for line in README.read_text().splitlines() if line.startswith(f"| `{key}` |")]
    assert len(rows) == 1, f"config/README.md: {len(rows)} rows for {key}"
    return re.match(r"^\| `[^`]+` \|[^|]*\|(.*)\|$", rows[0]).group(1).strip()


def _between(text: str, start: str, end: str) -> str:
    assert start in text, f"{start!r} not found"
    return text.split(start, 1)[1].split(end, 1)[0]


def _ticked(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def _tree_rows() -> dict:
    """``trees.models``' meaning: model -> its rows (``tree`` (row F-tree), ...)."""
    return {m: rows.removeprefix("row ") for m, rows in re.findall(r"`(\w+)` \(([^)]*)\)", _readme_row("trees.models"))}


README_LISTS = [
    Same(
        "config/README.md `stages`: 'in this order'",
        "STAGES",
        lambda: [
            n for n in _ticked(_between(_readme_row("stages"), "in this order:", "Any other name")) if n.isidentifier()
        ],
    ),
    Same(
        "config/README.md: the stages that take dataset overrides",
        "OVERRIDE_STAGES",
        lambda: _ticked(_between(README.read_text(), "whose jobs run one dataset at a time:", ".")),
    ),
    Same("config/README.md `trees.models`", "TREE_MODELS", lambda: list(_tree_rows())),
    Same(
        "config/README.md `trees.models`: the rows of each",
        "TREE_MODELS",
        lambda: list(_tree_rows().values()),
        lambda models: [", ".join(rows) for rows in models.values()],
    ),
    Same("config/README.md `trees.predictions`", "TREE_PREDICTIONS", lambda: _ticked(_readme_row("trees.predictions"))),
    Same(
        "config/README.md `foptimal.models`",
        "FOPTIMAL_MODELS",
        lambda: _ticked(_readme_row("foptimal.models")),
        lambda models: [x for key, shown in models.items() for x in (key, shown)],
    ),
    Same(
        "config/README.md `ablations.settings.<name>.stage`",
        "STAGE_TABLES",
        lambda: _ticked(_readme_row("ablations.settings.<name>.stage").split(":")[0]),
    ),
    Same(
        "config/README.md `ablations.settings.<name>.methods`",
        "ABLATION_METHODS",
        lambda: _ticked(_readme_row("ablations.settings.<name>.methods").split(";")[0]),
    ),
    Same(
        "config/README.md `voting.fits`: learner",
        "VOTING_LEARNERS",
        lambda: _between(_readme_row("voting.fits"), "{learner: ", ",").split("/"),
    ),
    Same(
        "config/README.md `voting.members`: a PCC member's inference",
        "INFERENCE_METHODS",
        lambda: _ticked(re.search(r"PCC ((?:`\w+`/?)+)", _readme_row("voting.members")).group(1)),
        ordered=False,
    ),
    Same("config/README.md `scaling.learners`", "SCALING_LEARNERS", lambda: _ticked(_readme_row("scaling.learners"))),
]

DOCS = [
    Same(
        "docs/foptimal.md 'The experiment': the models fitted",
        "FOPTIMAL_MODELS",
        lambda: _ticked(
            _between((ROOT / "docs" / "foptimal.md").read_text(), "fitted once on the training set:", "scikit-learn's")
        ),
        lambda models: list(models.values()),
    ),
]

COMPARISONS = SCHEMA_KEYS + CODE + README_LISTS + DOCS


@pytest.mark.parametrize("same", COMPARISONS, ids=lambda c: c.what)
def test_the_names_are_the_registry_s(same):
    assert same.differences(registry) == []


@pytest.mark.parametrize("same", COMPARISONS, ids=lambda c: c.what)
def test_a_name_added_to_the_registry_alone_is_found(same):
    """Each comparison names FAKE when the registry's list holds it and the other side does not."""
    fake = SimpleNamespace(**{**LISTS, same.names: _faked(LISTS[same.names])})
    found = same.differences(fake)
    assert len(found) == 1 and "FAKE" in found[0], found


def _without_first(names):
    return {k: v for k, v in list(names.items())[1:]} if isinstance(names, dict) else names[1:]


@pytest.mark.parametrize("same", [c for c in COMPARISONS if not c.subset], ids=lambda c: c.what)
def test_a_name_taken_out_of_the_registry_alone_is_found(same):
    """Each comparison (but those that only ask for at least the registry's names) names the first
    name of the registry's list when the list no longer holds it and the other side still does."""
    names = LISTS[same.names]
    first = next(iter(names))
    shown = [first]  # a dict's first name may show as its value (trees.models' rows, foptimal.models' classes)
    if isinstance(names, dict):
        shown.append(", ".join(names[first]) if isinstance(names[first], tuple) else names[first])
    found = same.differences(SimpleNamespace(**{**LISTS, same.names: _without_first(names)}))
    assert len(found) == 1 and "beyond it" in found[0] and any(repr(n) in found[0] for n in shown), found
