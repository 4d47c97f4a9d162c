"""Configuration logic the Snakemake workflow needs at start-up (kept here so it is tested).

* :func:`as_list` turns ``--config datasets=scene,yeast`` strings into lists.
* :func:`apply_aliases` accepts the old names of renamed keys (with a deprecation message), so a
  user's config file keeps working.
* :func:`select_datasets` checks the selected names against the catalog and which datasets can
  actually be had (mirror, local copy or URL), so a missing dataset is a clear message before any
  job runs, never a crash deep inside one.
"""

from __future__ import annotations

import logging

from fmeasure.datasets import availability
from fmeasure.theory import SURROGATES

log = logging.getLogger(__name__)

__all__ = ["ConfigError", "ALIASES", "apply_aliases", "as_list", "select_datasets", "lp_surrogates", "model_chunks", "used_fits"]


class ConfigError(ValueError):
    """The configuration names something that does not exist or cannot be used."""


#: Renamed config keys: (block, old name) -> new name. One spelling per idea across stages:
#: ``cv`` for cross-validation folds, ``runtime_min`` for a job's declared run time in minutes.
ALIASES = {
    ("pcc", "cv_folds"): "cv",
    ("pcc", "fit_runtime_min"): "runtime_min",
    ("parametric", "runtime_minutes"): "runtime_min",
}


def apply_aliases(config: dict, warn=None) -> list[str]:
    """Rename old config keys to their current names in place; return the deprecation messages.

    Each message is also passed to ``warn`` (default: the module's logger). The configuration
    files of this repository use the current names only, so an old name comes from a user's own
    file laid over them (``--configfile``): where both names are present, the old name's value wins.

    Examples
    --------
    >>> cfg = {"pcc": {"cv_folds": 3}}
    >>> apply_aliases(cfg, warn=print)
    config key 'pcc.cv_folds' is deprecated: use 'pcc.cv' (the old name still works)
    ["config key 'pcc.cv_folds' is deprecated: use 'pcc.cv' (the old name still works)"]
    >>> cfg
    {'pcc': {'cv': 3}}
    """
    warn = warn or log.warning
    messages = []
    for (block, old), new in ALIASES.items():
        section = config.get(block)
        if not isinstance(section, dict) or old not in section:
            continue
        section[new] = section.pop(old)
        messages.append(f"config key '{block}.{old}' is deprecated: use '{block}.{new}' (the old name still works)")
        warn(messages[-1])
    return messages


def as_list(value, key: str) -> list[str]:
    """A list of names from a YAML list or a comma-separated string (``--config key=a,b``)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    raise ConfigError(f"config key {key!r}: expected a list or a comma-separated string, got {value!r}")


def select_datasets(config: dict) -> tuple[list[str], list[str]]:
    """Datasets to run and messages about those left out.

    Returns ``(available, skipped_messages)``. Raises :class:`ConfigError` for a name not in
    the catalog, or for a dataset that cannot be had when ``data.on_missing`` is ``error``.
    """
    names = as_list(config.get("datasets"), "datasets")
    catalog = config.get("catalog") or {}
    unknown = [n for n in names if n not in catalog]
    if unknown:
        raise ConfigError(
            f"config key 'datasets': unknown dataset(s) {unknown}; the catalog knows {sorted(catalog)}"
        )
    if len(set(names)) != len(names):
        raise ConfigError(f"config key 'datasets': duplicate names in {names}")
    data = config.get("data", {})
    available, skipped = [], []
    for name in names:
        problem = availability(name, catalog[name], data.get("dir", "data"), data.get("mirrors", []))
        if problem is None:
            available.append(name)
        elif data.get("on_missing", "skip") == "error":
            raise ConfigError(problem)
        else:
            skipped.append(problem)
    return available, skipped


def lp_surrogates(cfg: dict) -> list[str]:
    """The surrogates with at least one m listed in ``config["theory"]["lp"]`` (one LP job each)."""
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
            raise ValueError(f"voting.members[{k}] ({mem.get('name')!r}): unknown fit {mem['fit']!r}; "
                             f"voting.fits defines {sorted(fits)}")
        if mem["fit"] not in out:
            out.append(mem["fit"])
    names = [m["name"] for m in cfg["members"]]
    if len(set(names)) != len(names):
        raise ValueError(f"voting.members: names must be unique, got {names}")
    return out
