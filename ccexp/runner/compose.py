"""Hydra composition of ``conf/`` (installed as ``ccexp.conf``): the root config and one group's config.

The lowest module of the runner: :mod:`ccexp.runner.grid` composes the
configs of swept dataset / oracle names with :func:`group_config`, and
:mod:`ccexp.runner.config` builds the run's specification on top of
:func:`compose_config`.  Kept apart so that neither of those two imports
the other.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from importlib import resources
from pathlib import Path

from hydra import compose, initialize_config_module
from hydra.core.global_hydra import GlobalHydra
from hydra.utils import get_object
from omegaconf import DictConfig, OmegaConf


class ConfigError(ValueError):
    """An override or option that cannot take effect; the message is one line saying what to write instead."""


def signature_default(*, _node_, _parent_):
    """``key: ${default:}`` in a group's yaml: the default of ``key`` in the signature of the yaml's ``_target_``.

    A parameter's default is declared once, in the signature of the class or
    factory that builds the object (issue 30).  A yaml of ``conf/algorithm``,
    ``conf/dataset`` or ``conf/oracle`` lists the parameters that a run may
    change (its keys enter each case's identity and seeds, so the list is
    chosen, not generated); each value that is the signature's default is
    written ``${default:}`` and read from there when the config is resolved.
    ``python -m ccexp algorithm=NAME --cfg job --resolve`` prints the values.

    A tuple default resolves to a list (OmegaConf holds no tuples).

    Raises
    ------
    ValueError
        When the node has no ``_target_`` beside it, or the target takes no
        parameter of that name, or the parameter has no default.
    """
    key = _node_._key()
    target = _parent_.get("_target_") if isinstance(_parent_, DictConfig) else None
    if target is None:
        raise ValueError(f"{key}: ${{default:}} needs a _target_ beside it, whose signature holds the default")
    params = inspect.signature(get_object(target)).parameters
    if key not in params or params[key].default is inspect.Parameter.empty:
        raise ValueError(f"{key}: ${{default:}} but {target} has no default for a parameter {key!r}")
    value = params[key].default
    return list(value) if isinstance(value, tuple) else value


OmegaConf.register_new_resolver("default", signature_default, replace=True)


def omegaconf_message(err: Exception) -> str:
    """An OmegaConf error (an interpolation to a missing key, ...) as one line naming the key.

    >>> from omegaconf import OmegaConf
    >>> try:
    ...     OmegaConf.to_container(OmegaConf.create({"trials": "${foo}"}), resolve=True)
    ... except Exception as err:
    ...     print(omegaconf_message(err))
    trials: Interpolation key 'foo' not found
    """
    first = str(err).splitlines()[0].strip() if str(err) else type(err).__name__
    key = getattr(err, "full_key", None)
    return f"{key}: {first}" if key else first


def normalize_overrides(overrides) -> list[str]:
    """``+experiment=NAME`` (the older spelling) as ``experiment=NAME``.

    The root defaults hold ``experiment: null`` so that ``experiment=NAME``
    works; Hydra then refuses ``+experiment`` ("Multiple values"), which the
    README and scripts used for a long time, so it is read as the plain choice.
    """
    return [o[1:] if o.startswith("+experiment=") else o for o in overrides or ()]


def compose_config(overrides: list[str] | tuple[str, ...] = (), hydra: bool = False) -> DictConfig:
    """The root config composed with ``overrides`` (as on the command line); ``hydra``: with Hydra's own ``hydra`` node."""
    overrides = normalize_overrides(overrides)
    if GlobalHydra.instance().is_initialized():
        return compose("config", overrides=overrides, return_hydra_config=hydra)
    with initialize_config_module("ccexp.conf", version_base="1.3"):
        return compose("config", overrides=overrides, return_hydra_config=hydra)


@contextlib.contextmanager
def _config_loader():
    """Hydra's config loader: the app's when Hydra runs, else one over ``ccexp.conf`` for the block."""
    if GlobalHydra.instance().is_initialized():
        yield GlobalHydra.instance().config_loader()
        return
    with initialize_config_module("ccexp.conf", version_base="1.3"):
        yield GlobalHydra.instance().config_loader()


@functools.lru_cache(maxsize=None)
def _group_options(group: str) -> tuple[str, ...]:
    with _config_loader() as loader:
        return tuple(sorted(loader.get_group_options(group)))


def list_options(group: str) -> list[str]:
    """The config names of a group: ``conf/<group>/*.yaml``, and those a plugin adds to Hydra's search path.

    A plugin package ships ``conf/algorithm/<name>.yaml`` in its own package
    and adds that package to the search path with a Hydra ``SearchPathPlugin``
    (``docs/extending.md``), so its configs compose like ccexp's own.
    """
    return list(_group_options(group))


def config_text(group: str, name: str) -> str:
    """The text of the yaml file of ``<group>=<name>``, from the first source of Hydra's search path that has it."""
    with _config_loader() as loader:
        for source in loader.get_sources():
            if source.scheme() in ("pkg", "file") and source.is_config(f"{group}/{name}"):
                if source.scheme() == "pkg":
                    return resources.files(source.path).joinpath(group, f"{name}.yaml").read_text()
                return Path(source.path, group, f"{name}.yaml").read_text()
    raise ConfigError(f"unknown {group} {name!r}; valid {group}s are: {', '.join(list_options(group))}")


def config_header(group: str, name: str, width: int | None = None) -> str:
    """The header comment of ``conf/<group>/<name>.yaml`` as one line (cut at ``width`` on a word)."""
    words = []
    for line in config_text(group, name).splitlines():
        if not line.startswith("#"):
            break
        if "@package" not in line:
            words += line.lstrip("# ").split()
    line = " ".join(words)
    if width is None or len(line) <= width:
        return line
    cut = line[: width - 1]
    return cut[: cut.rfind(" ")] + " …"



#: (group, name) -> the config ``<group>=<name>`` as Hydra composed it (yaml text: every reader gets a fresh copy)
_COMPOSED: dict[tuple[str, str], str] = {}


#: where an experiment's defaults list puts the configs it builds (``- /algorithm@_groups.algorithm.NAME: NAME``)
GROUPS_KEY = "_groups"


def take_group_configs(cfg: DictConfig) -> None:
    """Keep the group configs that ``cfg`` composed under ``_groups.<group>.<name>`` (issue 30: compose once).

    Each experiment's defaults list names every algorithm it runs and every
    dataset and oracle it sweeps, at every scale and variant, under
    ``_groups`` (``- /algorithm@_groups.algorithm.ls_eq: ls_eq``), so the
    root composition already holds them, each as choosing it alone would
    compose it.  :func:`load_group_configs` then composes only a name that
    the user added on the command line (``experiment.algorithms=[...]``).
    """
    for group, configs in (cfg.get(GROUPS_KEY) or {}).items():
        for name, node in configs.items():
            _COMPOSED.setdefault((group, name), OmegaConf.to_yaml(node, resolve=True))


def load_group_configs(group: str, names) -> None:
    """Compose the configs of ``names`` of ``group`` not composed yet, all in one composition.

    A name an experiment declares comes from its own composition
    (:func:`take_group_configs`); the others (a name the user added) are
    added to the root's defaults under their own package
    (``+algorithm@_group.ls_eq=ls_eq``, Hydra's syntax for a config group
    at another package), so one composition gives them all, each as
    choosing it alone would.
    """
    missing = [n for n in dict.fromkeys(names) if (group, n) not in _COMPOSED]
    for name in missing:
        if name not in list_options(group):
            raise ConfigError(f"unknown {group} {name!r}; valid {group}s are: {', '.join(list_options(group))}")
    if not missing:
        return
    cfg = compose_config([f"+{group}@_group.{i}={name}" for i, name in enumerate(missing)])
    for i, name in enumerate(missing):
        _COMPOSED[group, name] = OmegaConf.to_yaml(cfg._group[str(i)], resolve=True)


def _group_config_cached(group: str, name: str) -> str:
    load_group_configs(group, [name])
    return _COMPOSED[group, name]


def group_config(group: str, name: str) -> dict:
    """The config ``<group>=<name>`` as Hydra composes it (``name`` included, ``_target_`` left out), as a plain dict.

    The ``_target_`` (the object the config builds) is :func:`group_target`'s.
    """
    conf = dict(OmegaConf.to_container(OmegaConf.create(_group_config_cached(group, name))))
    conf.pop("_target_", None)
    return conf


def group_target(group: str, name: str) -> str | None:
    """The ``_target_`` of the config ``<group>=<name>`` (None if its yaml names none: a plugin's older yaml)."""
    return OmegaConf.create(_group_config_cached(group, name)).get("_target_")
