"""Configuration logic the Snakemake workflow needs at start-up (kept here so it is tested).

* :func:`as_list` turns ``--config datasets=scene,yeast`` strings into lists.
* :func:`select_datasets` checks the selected names against the catalog and which datasets can
  actually be had (mirror, local copy or URL), so a missing dataset is a clear message before any
  job runs, never a crash deep inside one.
* :func:`load_schema` reads ``config/schema.yaml`` with its lists of names filled in from
  :mod:`fmeasure.experiments.registry` (a node ``{x-names: NAME}`` becomes an ``enum``).
* :func:`with_catalog` puts the package's catalog of datasets (``fmeasure.datasets.load_catalog``)
  under ``catalog``, the config's own entries merged over it.
* :func:`check_config` reads text values as the types ``config/schema.yaml`` wants (``--config``
  gives nested values as text), validates the merged configuration, cross-checks the names that
  must exist elsewhere in it, fills in the schema's defaults, and reports the first problem in one
  line naming the key (with the closest valid key for a typo); :func:`exit_on_config_error` turns
  that into a one-line exit for the Snakefile.
* :func:`content_entry` is the part of a catalog entry that decides a parsed dataset's content
  (file names and checksums, format, counts, options), without where the files come from, so that
  changing mirrors or URLs reruns nothing.
* :func:`dataset_view` / :func:`dataset_config`: the configuration one dataset's jobs run with, its
  ``dataset_overrides`` merged over the stage blocks; :func:`override_lines` says them in words.
* The job lists of the stages: :func:`lp_surrogates` (theory), :func:`model_chunks` (simulations),
  :func:`used_fits` (voting), :func:`setting_config` / :func:`setting_datasets` /
  :func:`needs_refit` (ablations).

Nothing here imports matplotlib, scikit-learn or the LP solver, so the workflow starts fast.
"""

from __future__ import annotations

import copy
import difflib
import logging
import re
import sys

from fmeasure.datasets import availability, load_catalog
from fmeasure.datasets.synthetic import check_entry
from fmeasure.experiments import registry
from fmeasure.experiments.registry import OVERRIDE_STAGES, STAGE_TABLES, THEORY_SURROGATES

log = logging.getLogger(__name__)

__all__ = [
    "ConfigError",
    "as_list",
    "select_datasets",
    "load_schema",
    "with_catalog",
    "check_config",
    "exit_on_config_error",
    "content_entry",
    "OVERRIDE_STAGES",
    "FIXED_KEYS",
    "dataset_view",
    "dataset_config",
    "override_lines",
    "lp_surrogates",
    "model_chunks",
    "sample_chunks",
    "used_fits",
    "STAGE_TABLES",
    "PCC_INFERENCE_KEYS",
    "setting_config",
    "needs_refit",
    "setting_datasets",
]

#: Keys of a catalog entry that say where its files come from or describe it, not what they hold.
SOURCE_KEYS = ("homepage", "mirror_dir", "description", "citation")
#: Keys of a catalog file spec that say where it comes from.
FILE_SOURCE_KEYS = ("url",)


class ConfigError(ValueError):
    """The configuration names something that does not exist or cannot be used."""


def as_list(value, key: str) -> list[str]:
    """A list of names from a YAML list or a comma-separated string (``--config key=a,b``)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    raise ConfigError(f"config key {key!r}: expected a list or a comma-separated string, got {value!r}")


def select_datasets(config: dict, names=None, key: str = "datasets") -> tuple[list[str], list[str]]:
    """Datasets to run and messages about those left out.

    ``names`` (default: ``config["datasets"]``) are the datasets asked for, under the config key
    ``key`` (named in messages; e.g. ``peers.datasets``). Returns ``(available,
    skipped_messages)``. Raises :class:`ConfigError` for a name not in the catalog, or for a
    dataset that cannot be had when ``data.on_missing`` is ``error``.
    """
    names = as_list(config.get("datasets") if names is None else names, key)
    catalog = config.get("catalog") or {}
    unknown = [n for n in names if n not in catalog]
    if unknown:
        raise ConfigError(f"config key '{key}': unknown dataset(s) {unknown}; the catalog knows {sorted(catalog)}")
    if len(set(names)) != len(names):
        raise ConfigError(f"config key '{key}': duplicate names in {names}")
    data = config.get("data", {})
    available, skipped = [], []
    for name in names:
        if catalog[name].get("format") == "synthetic":
            check_entry(name, catalog[name])  # an impossible shape stops here, naming the key
            available.append(name)
            continue
        problem = availability(
            name,
            catalog[name],
            data.get("dir", "data"),
            data.get("mirrors", []),
            probe_timeout=data.get("download_timeout", 30),
        )
        if problem is None:
            available.append(name)
        elif data.get("on_missing", "skip") == "error":
            raise ConfigError(problem)
        else:
            skipped.append(problem)
    return available, skipped


def lp_surrogates(cfg: dict) -> list[str]:
    """The surrogates with at least one m listed in ``config["theory"]["lp"]`` (one LP job each)."""
    return [s for s in THEORY_SURROGATES if cfg.get(f"{s}_m")]


def model_chunks(n_models: int, models_per_job: int) -> list[tuple[int, int]]:
    """Split ``range(n_models)`` into ``[start, stop)`` chunks of ``models_per_job`` models.

    Examples
    --------
    >>> model_chunks(5, 2)
    [(0, 2), (2, 4), (4, 5)]
    """
    if n_models < 1 or models_per_job < 1:
        raise ValueError(f"n_models/models_per_job: must be >= 1, got {n_models}/{models_per_job}")
    return [(a, min(a + models_per_job, n_models)) for a in range(0, n_models, models_per_job)]


def sample_chunks(n_samples) -> list[list[int]]:
    """Figure 5's numbers of samples, split into jobs none of which samples more than the largest
    number alone: first fit, from the largest number down (a job's work grows with the sum of its
    numbers). Each job's numbers ascending; the jobs in the order of their smallest number.

    One job per number would pay a new process for points that take less time than its start;
    one job per dataset would put the whole curve on one core.

    Examples
    --------
    >>> sample_chunks([10, 20, 50, 100, 200, 500, 1000, 2000])
    [[10, 20, 50, 100, 200, 500, 1000], [2000]]
    >>> sample_chunks([100, 100, 50])
    [[50], [100], [100]]
    """
    ns = sorted((int(n) for n in n_samples), reverse=True)
    if not ns or ns[-1] < 1:
        raise ValueError(f"n_samples: positive numbers needed, got {list(n_samples)}")
    cap, jobs = ns[0], []
    for n in ns:
        fit = next((j for j in jobs if sum(j) + n <= cap), None)
        if fit is None:
            jobs.append([n])
        else:
            fit.append(n)
    return sorted((sorted(j) for j in jobs), key=lambda j: (j[0], len(j)))


def used_fits(cfg: dict) -> list[str]:
    """Names of the fits that at least one member uses, in order of first use (one job each)."""
    fits = cfg.get("fits") or {}
    out = []
    for k, mem in enumerate(cfg["members"]):
        if mem["fit"] not in fits:
            raise ValueError(
                f"voting.members[{k}] ({mem.get('name')!r}): unknown fit {mem['fit']!r}; "
                f"voting.fits defines {sorted(fits)}"
            )
        if mem["fit"] not in out:
            out.append(mem["fit"])
    names = [m["name"] for m in cfg["members"]]
    if len(set(names)) != len(names):
        raise ValueError(f"voting.members: names must be unique, got {names}")
    return out


def content_entry(config: dict, name: str) -> dict:
    """Catalog entry ``name`` without its sources (URLs, homepage, mirror folder), with the
    effective ``nominal`` mode (the entry's own, else ``data.nominal``).

    Everything in it decides the parsed dataset; nothing in it changes when files move.
    """
    entry = {k: v for k, v in config["catalog"][name].items() if k not in SOURCE_KEYS}
    entry["files"] = {
        role: {k: v for k, v in spec.items() if k not in FILE_SOURCE_KEYS}
        for role, spec in entry.get("files", {}).items()
    }
    entry.setdefault("nominal", config.get("data", {}).get("nominal", "onehot"))
    return entry


def _schema_at(schema, root: dict):
    """``schema`` with a local ``$ref`` (``#/$defs/...``) followed."""
    while isinstance(schema, dict) and str(schema.get("$ref", "")).startswith("#/"):
        node = root
        for part in schema["$ref"][2:].split("/"):
            node = node[part]
        schema = node
    return schema


def _key(path) -> str:
    """The key a user writes for ``path``: ``voting.members[0].fit``; an item of a list is named by
    its list (``stages``), the message shows the item."""
    parts = list(path)
    while parts and isinstance(parts[-1], int):
        parts.pop()
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _error_line(error, root_schema: dict, prefix: tuple = ()) -> str:
    """One line naming the key of ``error`` (whose path starts below ``prefix``)."""
    path = _key(prefix + tuple(error.absolute_path))
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        schema = _schema_at(error.schema, root_schema)
        known = sorted(schema.get("properties", {}))
        unknown = [k for k in error.instance if k not in known]
        if known and unknown:
            key = unknown[0]
            full = f"{path}.{key}" if path else key
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            if close:
                return f"config key {full!r} is unknown; did you mean {(f'{path}.' if path else '') + close[0]!r}?"
            return f"config key {full!r} is unknown; valid keys here: {', '.join(known)}"
    if error.validator in ("oneOf", "anyOf") and error.context:
        here = [e for e in error.context if not e.path]
        if len(here) == len(error.context):  # each alternative refuses the value itself: list them
            shown = f"{error.instance!r} "
            reasons = dict.fromkeys(e.message.removeprefix(shown) for e in here)
            return f"config key {path!r}: {shown}{' or '.join(reasons)}"
        inner = min(error.context, key=lambda e: len(e.message))
        return f"config key {_key(prefix + tuple(inner.absolute_path))!r}: {inner.message}"
    return f"config key {path or '(top level)'!r}: {error.message}"


# ---- text read as the type the schema wants

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_UNCHANGED = object()


def _accepted_types(schema, root: dict) -> set[str] | None:
    """The JSON types a value may have under ``schema`` (None: any type)."""
    schema = _schema_at(schema, root)
    if not isinstance(schema, dict):
        return None
    if "type" in schema:
        return {schema["type"]} if isinstance(schema["type"], str) else set(schema["type"])
    if "enum" in schema or "const" in schema:
        return {_json_type(v) for v in schema.get("enum", [schema.get("const")])}
    branches = schema.get("oneOf") or schema.get("anyOf") or [b for b in (schema.get("then"), schema.get("else")) if b]
    if branches:
        parts = [_accepted_types(b, root) for b in branches]
        return None if None in parts else set().union(*parts)
    return None


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__  # a date read by YAML, say: no JSON type


def _read_text(text: str):
    """``text`` read as YAML (``1e-9``, which YAML 1.1 leaves as text, as a number)."""
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    if isinstance(value, str) and _NUMBER.fullmatch(text.strip()):
        return float(text)
    return value


def _reading(text: str, schema, root: dict):
    """What ``text``, refused where it stands, means where ``schema`` wants another type: its YAML
    reading if that has a type the schema accepts, else (where a list is wanted) its comma-separated
    names, if it has any; ``_UNCHANGED`` when neither applies (the text is then reported as it is)."""
    accepted = _accepted_types(schema, root)
    if accepted is None:
        return _UNCHANGED
    value = _read_text(text)
    kind = _json_type(value)
    if kind != "string" and (kind in accepted or (kind == "integer" and "number" in accepted)):
        return value
    names = [item.strip() for item in text.split(",") if item.strip()]
    if "array" in accepted and names:  # text without a name is no list (an empty one is written [])
        return names
    return _UNCHANGED


def _text_reader(validator):
    """``validator`` that also refuses text where the schema allows text or other types (a peer's
    grid values) and the text reads as one of the others (``"5"`` as 5), so that it is read."""
    from jsonschema import ValidationError, validators

    plain = validator.VALIDATORS["type"]

    def type_(checker, types, instance, schema):
        yield from plain(checker, types, instance, schema)
        if isinstance(instance, str) and not isinstance(types, str) and "string" in types:
            kind = _json_type(_read_text(instance))
            if kind != "string" and (kind in types or (kind == "integer" and "number" in types)):
                yield ValidationError(f"{instance!r} reads as {kind}")

    return validators.extend(type(validator), {"type": type_})(validator.schema)


def _read_text_values(config: dict, validator, root: dict) -> dict:
    """``config`` with each text value the schema refuses replaced by its :func:`_reading`.

    ``--config`` gives every value below the top level as text (Snakemake reads it with YAML's
    BaseLoader), and top-level lists as comma-separated text: ``data={download_timeout: 60}``
    arrives as ``{"download_timeout": "60"}``. Text the schema accepts where it stands, and only
    as text, is kept as written (a title ``2014`` stays text)."""
    reader = _text_reader(validator)
    for _ in range(100):  # each pass replaces text by non-text or by a list of text: few passes
        changes = {}
        for error in reader.iter_errors(config):
            path = tuple(error.absolute_path)
            if not isinstance(error.instance, str) or path in changes or not path:
                continue
            parent = config
            for part in path[:-1]:
                parent = parent[part]
            if parent[path[-1]] is not error.instance:  # e.g. a refused key name (propertyNames)
                continue
            value = _reading(error.instance, error.schema, root)
            if value is not _UNCHANGED:
                changes[path] = value
        if not changes:
            return config
        for path, value in changes.items():
            parent = config
            for part in path[:-1]:
                parent = parent[part]
            parent[path[-1]] = value
    return config


def _fill_defaults(config: dict, validator) -> None:
    """Set the schema's ``default`` of each absent key (optional keys of catalog entries and peers),
    as ``snakemake.utils.validate`` does."""
    from jsonschema import validators

    properties = validator.VALIDATORS["properties"]

    def set_defaults(validator, props, instance, schema):
        if isinstance(instance, dict):
            for key, sub in props.items():
                if isinstance(sub, dict) and "default" in sub:
                    instance.setdefault(key, copy.deepcopy(sub["default"]))
        yield from properties(validator, props, instance, schema)

    filling = validators.extend(type(validator), {"properties": set_defaults})
    filling(validator.schema).validate(config)


def _check_references(config: dict, validator, root: dict) -> None:
    """Names that must exist elsewhere in the config (datasets in the catalog, the voting members'
    fits), and each ablation setting's overrides read and checked as keys of its
    stage's block (in place)."""
    names = config["datasets"]
    unknown = [n for n in names if n not in config["catalog"]]
    if unknown:
        raise ConfigError(
            f"config key 'datasets': unknown dataset(s) {unknown}; the catalog knows {sorted(config['catalog'])}"
        )
    if len(set(names)) != len(names):
        raise ConfigError(f"config key 'datasets': duplicate names in {names}")
    fits, members = config["voting"]["fits"], config["voting"]["members"]
    for k, member in enumerate(members):
        if member["fit"] not in fits:
            raise ConfigError(
                f"config key 'voting.members[{k}].fit': unknown fit {member['fit']!r}; voting.fits defines {sorted(fits)}"
            )
    if len({m["name"] for m in members}) != len(members):
        raise ConfigError(f"config key 'voting.members': names must be unique, got {[m['name'] for m in members]}")
    for name, spec in config["ablations"]["settings"].items():
        where = ("ablations", "settings", name, "overrides")
        spec["overrides"] = _checked_overrides(config, spec["stage"], spec["overrides"], validator, root, where)
    for dataset, stages in config["dataset_overrides"].items():
        if dataset not in config["catalog"]:
            raise ConfigError(
                f"config key 'dataset_overrides.{dataset}': unknown dataset; the catalog knows {sorted(config['catalog'])}"
            )
        for stage, overrides in stages.items():
            where = ("dataset_overrides", dataset, stage)
            for path, _ in _items(overrides):
                if path in FIXED_KEYS.get(stage, ()):
                    key = ".".join((*where, *path))
                    raise ConfigError(
                        f"config key {key!r}: cannot differ between datasets (it decides the jobs and columns "
                        f"of every dataset's tables); change {stage}.{'.'.join(path)} for all datasets instead"
                    )
            stages[stage] = _checked_overrides(config, stage, overrides, validator, root, where)


def _checked_overrides(config: dict, stage: str, overrides: dict, validator, root: dict, where: tuple) -> dict:
    """``overrides`` of ``stage``'s block read as the schema's types and validated merged over the
    block (a problem: one :class:`ConfigError` naming the key under ``where``)."""
    stage_validator = validator.evolve(schema=root["properties"][stage])
    merged = _read_text_values(_overlay(config[stage], overrides), stage_validator, root)
    errors = list(stage_validator.iter_errors(merged))
    if errors:
        import jsonschema

        raise ConfigError(_error_line(jsonschema.exceptions.best_match(errors), root, where))
    return _taken(overrides, merged)


def _items(tree: dict, prefix: tuple = ()) -> list[tuple]:
    """``(key path, value)`` of every key of a nested dict, at every depth (``{"a": {"b": 1}}``:
    ``(("a",), {"b": 1}), (("a", "b"), 1)``)."""
    out = []
    for key, value in tree.items():
        out.append(((*prefix, key), value))
        if isinstance(value, dict):
            out += _items(value, (*prefix, key))
    return out


def _overlay(base: dict, overrides: dict) -> dict:
    """``base`` updated by ``overrides``, nested dicts merged (unknown keys kept, to be reported)."""
    out = copy.deepcopy(base)
    for key, value in overrides.items():
        both = isinstance(value, dict) and isinstance(out.get(key), dict)
        out[key] = _overlay(out[key], value) if both else copy.deepcopy(value)
    return out


def _taken(overrides: dict, merged: dict) -> dict:
    """The keys of ``overrides`` with their values in ``merged``."""
    return {
        k: _taken(v, merged[k]) if isinstance(v, dict) and isinstance(merged[k], dict) else merged[k]
        for k, v in overrides.items()
    }


#: The schema's keyword for a list of names defined in :mod:`fmeasure.experiments.registry`.
NAMES_KEYWORD = "x-names"


def load_schema(schema) -> dict:
    """``config/schema.yaml`` (its path, or the dict read from it) with its lists of names filled in.

    Each node ``{x-names: NAME}`` becomes ``{enum: [...]}``, the names of
    :data:`fmeasure.experiments.registry.NAME` (a dict: its keys), so that every list of names the
    config may hold is written once, in the registry. Returns a new dict; a schema read already is
    returned as it is. An unknown ``NAME``, or a node with both ``x-names`` and ``enum``, is a
    ``ValueError`` naming the node.

    Examples
    --------
    >>> load_schema({"items": {"x-names": "PARAMETRIC_LEARNERS"}})["items"]["enum"]
    ['BR', 'LFP', 'EFP']
    """
    import yaml

    if not isinstance(schema, dict):
        with open(schema) as fh:
            schema = yaml.safe_load(fh)

    def fill(node, path):
        if isinstance(node, list):
            return [fill(item, f"{path}[{i}]") for i, item in enumerate(node)]
        if not isinstance(node, dict):
            return node
        out = {k: fill(v, f"{path}.{k}" if path else str(k)) for k, v in node.items()}
        if NAMES_KEYWORD in out:
            name = out.pop(NAMES_KEYWORD)
            if name not in registry.__all__ or not isinstance(getattr(registry, name), (tuple, dict)):
                lists = [n for n in registry.__all__ if isinstance(getattr(registry, n), (tuple, dict))]
                raise ValueError(
                    f"schema node {path or '(top level)'!r}: {NAMES_KEYWORD} {name!r} is no list of "
                    f"fmeasure.experiments.registry (it has {', '.join(lists)})"
                )
            if "enum" in out:
                raise ValueError(f"schema node {path!r}: both {NAMES_KEYWORD} {name!r} and an enum written by hand")
            out["enum"] = list(getattr(registry, name))
        return out

    return fill(schema, "")


def with_catalog(config: dict) -> dict:
    """A copy of ``config`` whose ``catalog`` is the package's catalog with the config's own entries
    merged over it (nested keys merged: an entry of the config adds a dataset or changes keys of a
    shipped one). A ``catalog`` that is not a mapping is left as it is, for the schema to name.

    Examples
    --------
    >>> cfg = with_catalog({"catalog": {"mine": {"format": "arff"}, "scene": {"nominal": "error"}}})
    >>> cfg["catalog"]["mine"], cfg["catalog"]["scene"]["nominal"], cfg["catalog"]["yeast"]["expected"]["m"]
    ({'format': 'arff'}, 'error', 14)
    """
    config = copy.deepcopy(config)
    own = config.get("catalog")
    if own is None or isinstance(own, dict):
        config["catalog"] = load_catalog(own)
    return config


def check_config(config: dict, schema) -> dict:
    """The configuration read, checked against ``schema`` (a dict or a YAML file, read by
    :func:`load_schema`) and completed.

    Returns a new dict (``config`` is not changed): the package's catalog under ``catalog`` with the
    config's entries merged over it (:func:`with_catalog`), text values read as the type the schema wants
    (``--config data={download_timeout: 60}`` gives the number 60, ``--config stages=data,knn`` the
    list ``['data', 'knn']``), then validated, cross-checked (datasets in the catalog, peers to run
    and the voting members' fits defined, ablation overrides valid keys of their stage) and
    completed with the schema's defaults. Raises one :class:`ConfigError` whose message is one
    line naming the key: an unknown key gets the closest valid key as a suggestion
    (``config key 'knn.neighbors' is unknown; did you mean 'knn.neighbours'?``), a wrong value the
    value and what was expected (``config key 'stages': 'knnn' is not one of ['data', ...]``).
    """
    import jsonschema

    schema = load_schema(schema)
    validator = jsonschema.validators.validator_for(schema)(schema)
    config = _read_text_values(with_catalog(config), validator, schema)
    errors = list(validator.iter_errors(config))
    # A key the user wrote (misspelt, wrong type) says more than one left out.
    written = [e for e in errors if e.validator != "required"]
    if errors:
        raise ConfigError(_error_line(jsonschema.exceptions.best_match(written or errors), schema))
    _check_references(config, validator, schema)
    _fill_defaults(config, validator)
    return config


def exit_on_config_error(func, *args, **kwargs):
    """Call ``func``; on a :class:`ConfigError` (or a dataset error at start-up) exit with its one line."""
    from fmeasure.datasets import DatasetError

    try:
        return func(*args, **kwargs)
    except (ConfigError, DatasetError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None


# ---- one dataset's protocol: dataset_overrides

#: Key paths that decide which jobs exist or which columns a stage's tables have: the same for every
#: dataset.
FIXED_KEYS = {
    "pcc": {("figure5", "n_samples"), ("cv",)},
    "parametric": {("learners",)},
    "voting": {("members",)},
    "trees": {("models",)},
    "structured": {("extra_rows",)},
    "foptimal": {("models",)},
}


def dataset_view(config: dict, dataset: str) -> dict:
    """``config`` as the jobs of ``dataset`` see it: each stage block with the dataset's
    ``dataset_overrides`` merged in (nested dicts merged). Blocks without overrides are shared, not
    copied.

    Examples
    --------
    >>> cfg = {"voting": {"refit": True, "cv": 5}, "knn": {"k": 10},
    ...        "dataset_overrides": {"delicious": {"voting": {"refit": False}}}}
    >>> dataset_view(cfg, "delicious")["voting"]
    {'refit': False, 'cv': 5}
    >>> dataset_view(cfg, "scene")["voting"]
    {'refit': True, 'cv': 5}
    """
    stages = (config.get("dataset_overrides") or {}).get(dataset) or {}
    if not stages:
        return config
    view = dict(config)
    for stage, overrides in stages.items():
        view[stage] = _merge(config[stage], overrides, f"dataset_overrides.{dataset}.{stage}")
    return view


def dataset_config(config: dict, stage: str, dataset: str) -> dict:
    """The config block of ``stage`` that the jobs of ``dataset`` run with (see :func:`dataset_view`)."""
    return dataset_view(config, dataset)[stage]


def override_lines(config: dict, datasets=None) -> list[str]:
    """One line per dataset whose protocol differs from the stage blocks (``datasets``: only these).

    Examples
    --------
    >>> cfg = {"dataset_overrides": {"delicious": {"voting": {"refit": False},
    ...                                            "pcc": {"table4": {"n_samples": 100}}}}}
    >>> override_lines(cfg)
    ['delicious: voting.refit = false; pcc.table4.n_samples = 100']
    >>> override_lines(cfg, datasets=["scene"])
    []
    """
    import json

    lines = []
    for dataset, stages in (config.get("dataset_overrides") or {}).items():
        if datasets is not None and dataset not in datasets:
            continue
        items = [
            f"{'.'.join((stage, *path))} = {json.dumps(value)}"
            for stage, overrides in stages.items()
            for path, value in _items(overrides)
            if not isinstance(value, dict)
        ]
        if items:
            lines.append(f"{dataset}: " + "; ".join(items))
    return lines


# ---- ablations: which settings run where, with which config

#: PCC config keys that only change inference: settings touching only these reuse the stage's chain.
PCC_INFERENCE_KEYS = frozenset(
    {"table4", "chunk_size", "block_size", "exact_max_labels", "figure5", "threads", "mem_mb", "runtime_min"}
)


def _merge(base: dict, overrides: dict, where: str) -> dict:
    """``base`` updated by ``overrides`` (nested dicts merged); an unknown key is an error."""
    out = copy.deepcopy(base)
    for key, value in overrides.items():
        if key not in out:
            raise ValueError(f"{where}: unknown key {key!r} (the stage's config has {sorted(out)})")
        if isinstance(value, dict) and isinstance(out[key], dict):
            out[key] = _merge(out[key], value, f"{where}.{key}")
        else:
            out[key] = copy.deepcopy(value)
    return out


def setting_config(config: dict, name: str) -> dict:
    """The stage config block of setting ``name``: ``config[stage]`` updated by its overrides.

    Examples
    --------
    >>> cfg = {"pcc": {"Cs": [1.0], "table4": {"n_samples": 1000}},
    ...        "ablations": {"settings": {"few": {"stage": "pcc", "overrides": {"table4": {"n_samples": 10}}}}}}
    >>> setting_config(cfg, "few")
    {'Cs': [1.0], 'table4': {'n_samples': 10}}
    """
    settings = config["ablations"]["settings"]
    if name not in settings:
        raise ValueError(f"ablations.settings: no setting named {name!r} (have {sorted(settings)})")
    spec = settings[name]
    stage = spec["stage"]
    if stage not in STAGE_TABLES:
        raise ValueError(f"ablations.settings.{name}.stage must be one of {sorted(STAGE_TABLES)}, got {stage!r}")
    return _merge(config[stage], spec.get("overrides") or {}, f"ablations.settings.{name}.overrides")


def needs_refit(spec: dict) -> bool:
    """Whether a setting fits its own models (PCC settings that change only inference do not)."""
    if spec["stage"] != "pcc":
        return True
    return not set(spec.get("overrides") or {}) <= PCC_INFERENCE_KEYS


def setting_datasets(spec: dict, selected) -> list[str]:
    """The selected datasets a setting runs on (all selected ones when it names none)."""
    wanted = spec.get("datasets")
    return list(selected) if not wanted else [d for d in selected if d in wanted]
