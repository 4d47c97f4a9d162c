"""The start-up check of the configuration, fuzzed with Hypothesis.

Each example overrides one key of ``config/schema.yaml`` (any key, nested ones and keys left out of
config.yaml included) the way ``snakemake --config KEY=TEXT`` does: the text is read by Snakemake's
own parser and merged on config.yaml by Snakemake's own merge. The function the Snakefile calls,
``check_config`` with the schema, must then either stop with one line naming the key, or return
what the override means:

* a valid value (drawn from the schema) gives exactly the configuration with that value typed in,
  with the schema's defaults filled in as ``snakemake.utils.validate`` fills them;
* any value (wrong types, unknown keys, unknown stage and dataset names, nested values) gives one
  line naming the key, or a configuration that is valid, equal to config.yaml outside the key, and
  holding every name that was written in a list.

Valid values come from a small generator for the JSON-schema keywords config/schema.yaml uses
(hypothesis-jsonschema 0.23.1, the general one, fails on objects with Hypothesis 6.170: "'many'
object has no attribute 'more'"). Validity is decided by the ``jsonschema`` library on the schema,
plus the cross-references
(datasets in the catalog, peers to run defined, voting members' fits, ablation overrides, dataset
overrides) as
config/README.md states them. ``FMEASURE_FUZZ_EXAMPLES`` sets the inputs per test (default 60; a
longer search: ``FMEASURE_FUZZ_EXAMPLES=2000``). The same path through the real Snakemake engine is
checked in tests/workflow/test_pipeline_errors.py.
"""

import copy
import os
import re
from pathlib import Path

import jsonschema
import yaml
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from snakemake.cli import parse_config
from snakemake.utils import update_config
from snakemake.utils import validate as snakemake_validate

from fmeasure.experiments.config import ConfigError, check_config, load_schema, with_catalog

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "config" / "schema.yaml"
SCHEMA = load_schema(SCHEMA_PATH)  # with the registry's lists of names, as check_config reads it
#: config.yaml with the package's catalog under ``catalog``, as check_config reads it.
BASE = with_catalog(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))
STRICT = jsonschema.Draft202012Validator(SCHEMA)
EXAMPLES = int(os.environ.get("FMEASURE_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def _with_defaults(cfg: dict) -> dict:
    cfg = copy.deepcopy(cfg)
    snakemake_validate(cfg, str(SCHEMA_PATH))  # fills in the schema's defaults, in place
    return cfg


BASE_FILLED = _with_defaults(BASE)


# ---- every key of the schema, with its schema


def _resolve(node):
    while isinstance(node, dict) and "$ref" in node:
        target = SCHEMA
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


def _branch(node, value):
    """The schema that applies to ``value`` (the ``then`` or ``else`` of an ``if``)."""
    node = _resolve(node)
    if "if" in node:
        node = _resolve(node["then"] if jsonschema.Draft202012Validator(node["if"]).is_valid(value) else node["else"])
    return node


def _keys(node, value, path=()):
    node = _branch(node, value)
    if path:
        yield path, node
    props = node.get("properties") or {}
    extra = node.get("additionalProperties")
    names = list(props) + [k for k in (value or {}) if k not in props] if isinstance(value, dict) else list(props)
    for key in names:
        sub = props.get(key, extra if isinstance(extra, dict) else None)
        if sub is not None:
            yield from _keys(sub, value.get(key) if isinstance(value, dict) else None, (*path, key))


KEYS = list(_keys(SCHEMA, BASE))
#: Each top-level key, then one of its keys: the catalog's many entries do not crowd out the rest.
SECTIONS = {top: [(p, n) for p, n in KEYS if p[0] == top] for top in SCHEMA["properties"]}
ANY_KEY = st.sampled_from(sorted(SECTIONS)).flatmap(lambda top: st.sampled_from(SECTIONS[top]))


def test_the_fuzzed_keys_cover_the_schema():
    paths = {".".join(p) for p, _ in KEYS}
    assert len(KEYS) > 400
    assert {
        "stages",
        "datasets",
        "data.download_timeout",
        "theory.figure1.eps",
        "catalog.scene.files.train.sha256",
    } <= paths
    assert {"catalog.mediamill-shape.skew", "peers.budget.cpu_s", "voting.members", "scaling.timeout_s"} <= paths


# ---- values


def _valid(node, value=None):
    """Values valid under ``node`` (the subset of JSON schema that config/schema.yaml uses)."""
    node = _branch(node, value) if value is not None else _resolve(node)
    if "enum" in node:
        return st.sampled_from(node["enum"])
    if "const" in node:
        return st.just(node["const"])
    if "anyOf" in node or "oneOf" in node:
        return st.one_of([_valid(b) for b in node.get("anyOf") or node["oneOf"]])
    if "if" in node:
        return st.one_of(_valid(node["then"]), _valid(node["else"]))
    kind = node.get("type")
    if isinstance(kind, list):  # text that reads as another of the types is read so (a peer's grid)
        plain = [_valid({**node, "type": k}) for k in kind]
        return st.one_of(plain).filter(lambda v: not isinstance(v, str) or isinstance(_yaml(v), str))
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind in ("integer", "number"):
        lo = node.get("minimum", node.get("exclusiveMinimum", -(10**6)))
        hi = node.get("maximum", node.get("exclusiveMaximum", 10**6))
        ints = st.integers(int(-(-lo // 1)), int(hi // 1))
        if "multipleOf" in node:
            step = node["multipleOf"]
            ints = st.integers(int(-(-lo // step)), int(hi // step)).map(lambda k: k * step)
        if kind == "number":
            ints = ints | st.floats(lo, hi, allow_nan=False, allow_infinity=False)
        excluded = {node.get("exclusiveMinimum"), node.get("exclusiveMaximum")} - {None}
        return ints.filter(lambda x: x not in excluded)
    if kind == "string":
        if node.get("pattern") == "^[0-9a-f]{64}$":
            return st.text("0123456789abcdef", min_size=64, max_size=64)
        return st.text(TEXT_CHARS, min_size=node.get("minLength", 0), max_size=12)
    if kind == "array":
        items = _valid(node.get("items", {"type": "string"}))
        lo, hi = node.get("minItems", 0), min(node.get("maxItems", 4), 4)
        return st.lists(items, min_size=lo, max_size=max(lo, hi), unique_by=repr if node.get("uniqueItems") else None)
    if kind == "object":
        props = node.get("properties") or {}
        required = node.get("required") or []
        optional = {k: _valid(v) for k, v in props.items() if k not in required}
        fixed = st.fixed_dictionaries({k: _valid(props[k]) for k in required}, optional=optional)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and not props:
            names = node.get("propertyNames", {})
            keys = st.sampled_from(names["enum"]) if "enum" in names else NAMES
            return st.dictionaries(keys, _valid(extra), min_size=node.get("minProperties", 0), max_size=2)
        return fixed
    return JUNK  # no type constraint


def _yaml(text):
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


# Printable text: PyYAML writes a control character such as NEL (U+0085) as a raw line break, which
# no reader gets back, so the command-line text of such a value cannot be made by rendering it.
TEXT_CHARS = st.characters(min_codepoint=32, max_codepoint=0x17F, exclude_categories=("Cc",))
NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,8}[A-Za-z0-9]", fullmatch=True)
TEXTS = st.text(TEXT_CHARS, max_size=12) | st.sampled_from(
    ["knnn", "scaling", "report", "nosuch", "data", "true", "null", "no", "1e-9", "-5", "[1", "{a: 1}", ",", "a,b", ""]
)
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False), TEXTS
)
JUNK = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3), max_leaves=8
)


def _names(node, path):
    """Names a list at ``path`` may hold, and names it may not (unknown stages, datasets, ...)."""
    known = list(_resolve(node.get("items", {})).get("enum", [])) or (
        sorted(BASE["catalog"]) if path == ("datasets",) else []
    )
    return st.lists(st.sampled_from(known) | TEXTS if known else TEXTS, max_size=4)


def _one_leaf_wrong(valid_value):
    """A valid block with the value of one of its keys, at any depth, replaced by junk."""
    if not isinstance(valid_value, dict) or not valid_value:
        return JUNK
    key = st.sampled_from(sorted(valid_value))
    return key.flatmap(lambda k: st.one_of(JUNK, _one_leaf_wrong(valid_value[k])).map(lambda v: {**valid_value, k: v}))


def _any_value(node, value, path):
    """Wrong types, unknown keys, lists of known and unknown names, nested junk, valid values."""
    node = _branch(node, value)
    options = [JUNK, st.dictionaries(NAMES, JUNK, min_size=1, max_size=2), _valid(node, value)]
    options.append(_valid(node, value).flatmap(_one_leaf_wrong))
    if node.get("type") == "array":
        options.append(_names(node, path))
        options.append(_names(node, path).map(lambda names: ",".join(map(str, names))))
    return st.one_of(options)


# ---- the override as --config gives it, and what it means


def _nested(path, value):
    for key in reversed(path[1:]):
        value = {key: value}
    return value


def _cli_config(path, value, commas=False) -> dict:
    """config.yaml with ``--config PATH=VALUE`` merged, as the Snakefile receives it."""
    if commas:
        text = ",".join(value)
    else:
        text = yaml.safe_dump(_nested(path, value), default_flow_style=True, width=float("inf"), allow_unicode=True)
        text = text.strip().removesuffix("\n...").strip()
    cfg = copy.deepcopy(BASE)
    update_config(cfg, parse_config([f"{path[0]}={text}"]))
    return cfg


def _typed_config(path, value) -> dict:
    cfg = copy.deepcopy(BASE)
    update_config(cfg, {path[0]: _nested(path, copy.deepcopy(value))})
    return cfg


def _overlay(base, overrides):
    out = copy.deepcopy(base)
    for key, value in overrides.items():
        out[key] = _overlay(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


#: Keys a dataset's overrides may not change (config/README.md, ``dataset_overrides``).
FIXED_ACROSS_DATASETS = {
    ("parametric", "learners"),
    ("trees", "models"),
    ("foptimal", "models"),
    ("voting", "members"),
    ("structured", "extra_rows"),
    ("pcc", "cv"),
    ("pcc", "figure5", "n_samples"),
}


def _changes_a_fixed_key(stage: str, overrides: dict) -> bool:
    """Whether ``overrides`` of ``stage`` reach a key in :data:`FIXED_ACROSS_DATASETS`."""
    for fixed in FIXED_ACROSS_DATASETS:
        if fixed[0] != stage:
            continue
        node = overrides
        for key in fixed[1:]:
            node = node.get(key, KeyError) if isinstance(node, dict) else KeyError
        if node is not KeyError:
            return True
    return False


def _is_valid(cfg: dict) -> bool:
    """Valid under the schema, with the cross-references config/README.md states."""
    if not STRICT.is_valid(cfg):
        return False
    voting = cfg["voting"]
    settings_valid = all(
        jsonschema.Draft202012Validator(SCHEMA["properties"][s["stage"]]).is_valid(
            _overlay(cfg[s["stage"]], s["overrides"])
        )
        for s in cfg["ablations"]["settings"].values()
    )
    overrides_valid = all(
        dataset in cfg["catalog"]
        and all(
            jsonschema.Draft202012Validator(SCHEMA["properties"][stage]).is_valid(_overlay(cfg[stage], overrides))
            and not _changes_a_fixed_key(stage, overrides)
            for stage, overrides in stages.items()
        )
        for dataset, stages in cfg["dataset_overrides"].items()
    )
    return (
        set(cfg["datasets"]) <= set(cfg["catalog"])
        and len(set(cfg["datasets"])) == len(cfg["datasets"])
        and all(m["fit"] in voting["fits"] for m in voting["members"])
        and len({m["name"] for m in voting["members"]}) == len(voting["members"])
        and settings_valid
        and overrides_valid
    )


def _expected(path, typed: dict) -> dict:
    """``typed`` with the schema's defaults (only catalog entries and peers have defaults)."""
    if path[0] in ("catalog", "peers"):
        return _with_defaults(typed)
    out = copy.deepcopy(BASE_FILLED)
    out[path[0]] = copy.deepcopy(typed[path[0]])
    return out


def _same(a, b) -> bool:
    """Equal, with the same types all the way down (1, 1.0 and True differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return a == b


def _created(path) -> tuple:
    """The first key on ``path`` that config.yaml lacks (the block the override creates), else ``path``."""
    return next((path[:i] for i in range(1, len(path)) if _get(BASE_FILLED, path[:i]) is None), path)


def _one_line_naming(error: ConfigError, path) -> None:
    """One line naming the key changed or a key below it (below the block it creates, such as a
    catalog entry's ``files.xml`` missing its ``sha256``), or, for a setting's ``stage``, the
    setting's ``overrides`` that the new stage refuses."""
    line = str(error)
    assert "\n" not in line, line
    named = re.match(r"config key '([^']*)'", line)
    assert named, line
    if path[:2] == ("ablations", "settings") and path[3:] == ("stage",):
        path = path[:3]
    key, dotted = named.group(1), ".".join(_created(path))
    assert key == dotted or key.startswith((dotted + ".", dotted + "[")), (dotted, line)


# ---- the properties


VALID_CASES = ANY_KEY.flatmap(lambda key: st.tuples(st.just(key[0]), _valid(key[1], _get(BASE, key[0]))))
UNKNOWN_TOP = NAMES.filter(lambda k: k not in SCHEMA["properties"]).map(lambda k: ((k,), {}))
ANY_CASES = (ANY_KEY | UNKNOWN_TOP).flatmap(
    lambda key: st.tuples(st.just(key[0]), _any_value(key[1], _get(BASE, key[0]), key[0]))
)


@FUZZ
@given(case=VALID_CASES)
@example(case=(("data", "download_timeout"), 60))  # was refused: "'60' is not of type 'number'"
@example(case=(("stages",), ["data", "knn"]))
@example(case=(("dataset_overrides",), {"A0": {}}))  # no such dataset: not a valid override
@example(case=(("dataset_overrides",), {"scene": {"voting": {"refit": False}}}))
def test_a_valid_override_gives_the_config_it_means(case):
    path, value = case
    typed = _typed_config(path, value)
    assume(_is_valid(typed))  # e.g. a voting member naming a fit that exists
    expected = _expected(path, typed)
    assert _same(check_config(typed, SCHEMA), expected)  # a config file: kept as typed
    commas = len(path) == 1 and isinstance(value, list) and all(re.fullmatch(r"[A-Za-z][\w.-]*", str(v)) for v in value)
    for style in (False, True) if commas and value else (False,):
        got = check_config(_cli_config(path, value, commas=style), SCHEMA)
        assert _same(got, expected), (path, value, style)


@FUZZ
@given(case=ANY_CASES)
@example(case=(("stages",), "data,knnn"))  # the unknown stage was dropped without a word
@example(case=(("stages",), "nosuch"))  # the report alone was planned
@example(case=(("datasets",), ["scene", "nosuch"]))
@example(case=(("nosuchkey",), 1))
@example(case=(("dataset_overrides",), {"A0": {}}))
@example(case=(("dataset_overrides",), {"scene": {"trees": {"models": ["tree"]}}}))
@example(case=(("catalog", "scene", "subset", "train"), 1))  # a key of a block the base lacks
@example(case=(("datasets",), ">"))  # Snakemake reads the text as '': that is no list of names
@example(case=(("catalog", "yeast-libsvm", "files", "xml", "name"), "0"))  # a new block, incomplete
def test_any_override_is_one_line_naming_the_key_or_what_it_means(case):
    path, value = case
    node = _branch(dict(KEYS).get(path, {}), _get(BASE, path))
    try:
        cli = _cli_config(path, value)
    except ValueError:  # Snakemake itself refuses the text (e.g. a top-level key it cannot parse)
        return
    try:
        got = check_config(cli, SCHEMA)
    except ConfigError as error:
        _one_line_naming(error, path)
        return
    assert _is_valid(got)
    new = _created(path)
    assert _same(_without(got, new), _without(BASE_FILLED, new))  # nothing else changed
    if node.get("type") == "array" and isinstance(value, (list, str)):  # no name dropped
        written = [v.strip() for v in value.split(",") if v.strip()] if isinstance(value, str) else value
        held = _get(got, path)
        assert len(held) == len(written), (written, held)
        if "enum" in _resolve(node.get("items", {})) or path == ("datasets",):
            assert [str(v) for v in held] == [str(v).strip() for v in written], (written, held)


def _get(cfg, path):
    for key in path:
        if not isinstance(cfg, dict) or key not in cfg:
            return None
        cfg = cfg[key]
    return cfg


def _without(cfg, path) -> dict:
    cfg = copy.deepcopy(cfg)
    node = cfg
    for key in path[:-1]:
        node = node.get(key, {}) if isinstance(node, dict) else {}
    if isinstance(node, dict):
        node.pop(path[-1], None)
    return cfg
