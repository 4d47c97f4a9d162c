"""The peers stage's systems: :data:`fmeasure.experiments.registry.PEER_SYSTEMS` read with the config.

The registry is the single list of systems (their titles, kinds, environments and grids); the
config chooses which run (``peers.run``), which is the reference (``peers.reference``) and may
change a system's grid, fixed parameters or Python versions (``peers.peers.<name>``, a change of the
protocol that its hash shows). A name the registry does not hold is an error wherever it appears.
"""

from __future__ import annotations

import copy

from fmeasure.experiments.registry import PEER_KINDS, PEER_SYSTEMS, PeerSystem

__all__ = [
    "UnknownSystem",
    "system",
    "title",
    "kind",
    "is_peer",
    "is_f_maximizer",
    "system_spec",
    "system_settings",
    "system_seeds",
    "check_config",
]

#: The keys of ``peers.peers.<name>`` that the config may set over the registry's.
OVERRIDABLE = ("grid", "params", "python")


class UnknownSystem(KeyError):
    """A system name that :data:`~fmeasure.experiments.registry.PEER_SYSTEMS` does not hold."""

    def __str__(self):
        return str(self.args[0])


def system(name: str) -> PeerSystem:
    """The registry's entry of ``name``; :class:`UnknownSystem` (one line naming the registry) if none."""
    try:
        return PEER_SYSTEMS[name]
    except KeyError:
        raise UnknownSystem(f"system {_unknown(name)}") from None


def title(name: str) -> str:
    """How the tables and figures name ``name``."""
    return system(name).title


def kind(name: str) -> str:
    """``f-maximizer`` or ``baseline`` (:data:`~fmeasure.experiments.registry.PEER_KINDS`)."""
    k = system(name).kind
    assert k in PEER_KINDS, k
    return k


def is_peer(name: str) -> bool:
    """True for a public package's model, False for a route of ours (an unknown name raises)."""
    return system(name).source == "peer"


def is_f_maximizer(name: str) -> bool:
    return kind(name) == "f-maximizer"


def system_spec(peers_cfg: dict, name: str) -> dict:
    """The registry's entry of ``name`` as a dict, with ``peers.peers.<name>``'s ``grid``, ``params``
    and ``python`` over it: ``title, kind, source, env, python, grid, params, tunes_itself,
    stochastic``."""
    s = system(name)
    spec = {
        "title": s.title,
        "kind": s.kind,
        "source": s.source,
        "env": s.env,
        "python": [str(v) for v in s.python],
        "grid": copy.deepcopy(s.grid),
        "params": copy.deepcopy(s.params),
        "tunes_itself": s.tunes_itself,
        "stochastic": s.stochastic,
    }
    over = (peers_cfg.get("peers") or {}).get(name) or {}
    for key in OVERRIDABLE:
        if key in over:
            spec[key] = [str(v) for v in over[key]] if key == "python" else copy.deepcopy(over[key])
    return spec


def system_settings(peers_cfg: dict, name: str) -> list[str]:
    """The settings ``name`` runs in: the stage's ``settings``, or ``["tuned"]`` alone for a system
    that tunes itself (its default and tuned settings are the same fit)."""
    if system(name).tunes_itself:
        return ["tuned"]
    return list(peers_cfg["settings"])


def system_seeds(peers_cfg: dict, name: str) -> list[int]:
    """The seeds ``name`` runs on: every seed of ``peers.seeds`` for a stochastic system, the first
    alone for one whose fit draws no random numbers, where another seed would only move the folds of
    its tuning."""
    seeds = [int(s) for s in peers_cfg["seeds"]]
    return seeds if system(name).stochastic else seeds[:1]


def check_config(peers_cfg: dict, run: list[str]) -> None:
    """Check what the schema cannot: every system run or configured is in the registry, the
    reference is a route of ours that runs, the settings include ``tuned`` (the tests compare tuned
    rows) and the seeds are distinct. Raises :class:`fmeasure.experiments.config.ConfigError` with
    one line naming the key."""
    from fmeasure.experiments.config import ConfigError

    for key, names in (("peers.run", run), ("peers.peers", list(peers_cfg.get("peers") or {}))):
        for name in names:
            if name not in PEER_SYSTEMS:
                raise ConfigError(f"config key {key!r}: {_unknown(name)}")
    ref = peers_cfg["reference"]
    if ref not in PEER_SYSTEMS:
        raise ConfigError(f"config key 'peers.reference': {_unknown(ref)}")
    if ref not in run:
        raise ConfigError(f"config key 'peers.reference': {ref!r} is not in peers.run {run}")
    if is_peer(ref):
        raise ConfigError(f"config key 'peers.reference': {ref!r} is a peer; the reference is a route of ours")
    if "tuned" not in peers_cfg["settings"]:
        raise ConfigError("config key 'peers.settings': must include tuned (every test compares tuned rows)")
    for name in run:
        spec = system_spec(peers_cfg, name)
        if spec["env"] != "project" and not spec["python"]:
            raise ConfigError(f"config key 'peers.peers.{name}.python': the Python versions its environment needs")
    if len(set(peers_cfg["seeds"])) != len(peers_cfg["seeds"]):
        raise ConfigError(f"config key 'peers.seeds': duplicate seeds in {peers_cfg['seeds']}")


def _unknown(name: str) -> str:
    return f"{name!r} is not in fmeasure.experiments.registry.PEER_SYSTEMS ({', '.join(PEER_SYSTEMS)})"
