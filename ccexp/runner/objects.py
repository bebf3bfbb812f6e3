"""From a config to its object: the ``_target_`` of a yaml and :func:`hydra.utils.instantiate` (issue 30, item 1).

Each ``conf/algorithm``, ``conf/dataset`` and ``conf/oracle`` yaml names the
class or factory it builds with ``_target_``, as lightning-hydra-template's
``configs/model/*.yaml`` do; the runner builds every estimator, dataset and
problem with :func:`build`, a thin layer over ``hydra.utils.instantiate``
that adds what only a case knows (the random state, and an oracle's
dataset).  The registries (:mod:`ccexp.registry`) stay the index of names:
what an algorithm reads, what an oracle gives, the plugins of entry points.
A ``_target_`` must name the object registered under the config's ``name``
(:func:`split_target`); a plugin's yaml without one builds the registered
object itself.

The target travels beside the parameters, never among them: the grid's
dataset / oracle / algorithm dicts, whose hashes seed the instances and name
the cases, hold the name and the parameters only, as they always have.
"""

from __future__ import annotations

import functools
from typing import Callable

from hydra.errors import InstantiationException
from hydra.utils import get_object, instantiate

from omegaconf import DictConfig, OmegaConf

from ..registry import ALGORITHMS, DATASETS, ORACLES
from .compose import ConfigError, group_target, list_options

#: the config groups whose yaml names an object, and the registry of their names
GROUPS = {"algorithm": ALGORITHMS, "dataset": DATASETS, "oracle": ORACLES}


def _path(obj) -> str | None:
    """``module.qualname`` of ``obj`` when an import finds it by that path, else None (a class made in a function)."""
    qualname = getattr(obj, "__qualname__", "")
    module = getattr(obj, "__module__", None)
    if not module or not qualname or "<locals>" in qualname or module == "__main__":
        return None
    return f"{module}.{qualname}"


def registered_target(group: str, name: str) -> str | Callable:
    """What ``_target_`` names for the registered ``name``: its import path, or the object itself if it has none."""
    obj = GROUPS[group].get(name)
    return _path(obj) or obj


@functools.lru_cache(maxsize=None)
def _located(target: str) -> object:
    return get_object(target)


def split_target(group: str, conf: dict) -> tuple[str | Callable, dict]:
    """A config's ``_target_`` and the rest of it (``name`` and the parameters).

    A config without ``_target_`` (a plugin's older yaml) targets the object
    registered as its ``name``; one whose ``_target_`` names another object
    than the registered one is refused in one line (:class:`ConfigError`).
    """
    conf = dict(conf)
    target = conf.pop("_target_", None)
    name = conf.get("name")
    try:
        registered = GROUPS[group].get(name)
    except ValueError as err:  # "unknown dataset 'x'; valid datasets are: ..."
        raise ConfigError(str(err).splitlines()[0]) from None
    if target is None:
        return registered_target(group, name), conf
    try:
        located = _located(target) if isinstance(target, str) else target
    except Exception as err:  # noqa: BLE001 - an import path that does not import
        raise ConfigError(f"{group} {name!r}: _target_ {target!r} cannot be imported ({type(err).__name__}: "
                          f"{str(err).splitlines()[0] if str(err) else ''})") from None
    if located is not registered:
        raise ConfigError(f"{group} {name!r}: _target_ {target!r} is not the {group} registered as {name!r} "
                          f"({GROUPS[group].origin(name)}); write {group}._target_={registered_target(group, name)}")
    return target, conf


def build(target: str | Callable, params: dict, *args, **runtime):
    """``hydra.utils.instantiate`` of ``{"_target_": target, **params}``, called with ``args`` and ``runtime``.

    ``params`` are the config's (``name`` left out); ``args`` and ``runtime``
    are what the case gives (an oracle's dataset, the ``random_state``),
    passed to the partial object Hydra makes so that they are never copied
    into an OmegaConf node.  Lists and mappings reach the object as plain
    ``list`` / ``dict`` (``_convert_="all"``); a parameter that is a mapping
    is a value, not a nested object (``_recursive_=False``).
    """
    config = {"_target_": target, **{k: v for k, v in params.items() if k != "name"}}
    if not isinstance(target, str):
        # an object without an import path (a class made in a function, a plugin's closure): Hydra locates
        # a _target_ by its path, so it is called as instantiate would call it
        return target(*args, **{k: v for k, v in config.items() if k != "_target_"}, **runtime)
    try:
        factory = instantiate(config, _partial_=True, _convert_="all", _recursive_=False)
    except InstantiationException as err:
        raise ValueError(str(err).splitlines()[0]) from None
    return factory(*args, **runtime)


def run_targets(cfg: DictConfig, cases) -> dict[str, dict]:
    """The ``_target_`` of every algorithm, dataset and oracle the cases use: ``{group: {name: target}}``.

    The base dataset's and oracle's come from the composed config (a user's
    ``dataset._target_=...`` included), a swept name's from its own config,
    and each is checked against the registry (:func:`~ccexp.runner.objects.split_target`).
    """
    targets: dict[str, dict] = {"algorithm": {}, "dataset": {}, "oracle": {}}
    for group in ("dataset", "oracle"):
        target, conf = split_target(group, OmegaConf.to_container(cfg[group], resolve=True))
        targets[group][conf["name"]] = target
    used: dict[tuple[str, str], None] = {}  # in the cases' order
    for c in cases:
        used.update({("algorithm", c.algorithm): None, ("dataset", c.instance.dataset["name"]): None,
                     ("oracle", c.instance.oracle["name"]): None})
    for group, name in used:
        if name not in targets[group]:
            own = group_target(group, name) if name in list_options(group) else None
            targets[group][name] = split_target(group, {"name": name, "_target_": own})[0]
    return targets
