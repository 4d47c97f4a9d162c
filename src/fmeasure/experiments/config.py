"""Configuration logic the Snakemake workflow needs at start-up (kept here so it is tested).

* :func:`as_list` turns ``--config datasets=scene,yeast`` strings into lists.
* :func:`select_datasets` checks the selected names against the catalog and which datasets can
  actually be had (mirror, local copy or URL), so a missing dataset is a clear message before any
  job runs, never a crash deep inside one.
* :func:`check_config` validates the merged configuration against ``config/schema.yaml`` and
  reports the first problem in one line naming the key (with the closest valid key for a typo);
  :func:`exit_on_config_error` turns that into a one-line exit for the Snakefile.
* :func:`content_entry` is the part of a catalog entry that decides a parsed dataset's content
  (file names and checksums, format, counts, options), without where the files come from, so that
  changing mirrors or URLs reruns nothing.
* The job lists of the stages: :func:`lp_surrogates` (theory), :func:`model_chunks` (simulations),
  :func:`used_fits` (voting), :func:`setting_config` / :func:`setting_datasets` /
  :func:`needs_refit` (ablations).

Nothing here imports matplotlib, scikit-learn or the LP solver, so the workflow starts fast.
"""

from __future__ import annotations

import copy
import difflib
import logging
import sys

from fmeasure.datasets import availability
from fmeasure.synthetic import check_entry

log = logging.getLogger(__name__)

__all__ = [
    "ConfigError",
    "as_list",
    "select_datasets",
    "check_config",
    "exit_on_config_error",
    "content_entry",
    "lp_surrogates",
    "model_chunks",
    "used_fits",
    "STAGE_TABLES",
    "PCC_INFERENCE_KEYS",
    "setting_config",
    "needs_refit",
    "setting_datasets",
]

#: Keys of a catalog entry that say where its files come from, not what they are.
SOURCE_KEYS = ("homepage", "mirror_dir")
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
    # imported here: fmeasure.theory imports the numba kernels, which the jobs importing this module do not need
    from fmeasure.theory import SURROGATES

    return [s for s in SURROGATES if cfg.get(f"{s}_m")]


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


def _schema_at(schema: dict, root: dict) -> dict:
    ref = schema.get("$ref")
    if ref and ref.startswith("#/"):
        node = root
        for part in ref[2:].split("/"):
            node = node[part]
        return node
    return schema


def _error_line(error, root_schema: dict) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
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
        inner = min(error.context, key=lambda e: len(e.message))
        return f"config key {path!r}: {inner.message}"
    return f"config key {path or '(top level)'!r}: {error.message}"


def check_config(config: dict, schema) -> None:
    """Validate ``config`` against ``schema`` (a dict or a YAML file); raise one :class:`ConfigError`.

    The message is one line naming the key: an unknown key gets the closest valid key as a
    suggestion (``config key 'knn.neighbors' is unknown; did you mean 'knn.neighbours'?``).
    """
    import jsonschema
    import yaml

    if not isinstance(schema, dict):
        with open(schema) as fh:
            schema = yaml.safe_load(fh)
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = list(validator.iter_errors(config))
    # A key the user wrote (misspelt, wrong type) says more than one left out.
    written = [e for e in errors if e.validator != "required"]
    if errors:
        raise ConfigError(_error_line(jsonschema.exceptions.best_match(written or errors), schema))


def exit_on_config_error(func, *args, **kwargs):
    """Call ``func``; on a :class:`ConfigError` (or a dataset error at start-up) exit with its one line."""
    from fmeasure.datasets import DatasetError

    try:
        return func(*args, **kwargs)
    except (ConfigError, DatasetError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None


# ---- ablations: which settings run where, with which config

#: The stage whose table a deviation comes from, and that table's name.
STAGE_TABLES = {"pcc": "table4", "parametric": "table5"}
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
