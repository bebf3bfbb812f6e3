"""Hydra composition of ``conf/`` (installed as ``ccexp.conf``): the root config and one group's config.

The lowest module of the runner: :mod:`ccexp.runner.grid` composes the
configs of swept dataset / oracle names with :func:`group_config`, and
:mod:`ccexp.runner.config` builds the run's specification on top of
:func:`compose_config`.  Kept apart so that neither of those two imports
the other.
"""

from __future__ import annotations

import functools
from importlib import resources

from hydra import compose, initialize_config_module
from hydra.core.global_hydra import GlobalHydra
from omegaconf import DictConfig, OmegaConf


class ConfigError(ValueError):
    """An override or option that cannot take effect; the message is one line saying what to write instead."""


def normalize_overrides(overrides) -> list[str]:
    """``+experiment=NAME`` (the older spelling) as ``experiment=NAME``.

    The root defaults hold ``experiment: null`` so that ``experiment=NAME``
    works; Hydra then refuses ``+experiment`` ("Multiple values"), which the
    README and scripts used for a long time, so it is read as the plain choice.
    """
    return [o[1:] if o.startswith("+experiment=") else o for o in overrides or ()]


def compose_config(overrides: list[str] | tuple[str, ...] = ()) -> DictConfig:
    """The root config composed with ``overrides`` (as on the command line)."""
    overrides = normalize_overrides(overrides)
    if GlobalHydra.instance().is_initialized():
        return compose("config", overrides=overrides)
    with initialize_config_module("ccexp.conf", version_base="1.3"):
        return compose("config", overrides=overrides)


def list_options(group: str) -> list[str]:
    """The config names of a group (``conf/<group>/*.yaml``)."""
    folder = resources.files("ccexp.conf").joinpath(group)
    return sorted(p.name[: -len(".yaml")] for p in folder.iterdir() if p.name.endswith(".yaml"))


@functools.lru_cache(maxsize=None)
def _group_config_cached(group: str, name: str) -> str:
    if name not in list_options(group):
        raise ConfigError(f"unknown {group} {name!r}; valid {group}s are: {', '.join(list_options(group))}")
    cfg = compose_config([f"{group}={name}"])
    return OmegaConf.to_yaml(cfg[group], resolve=True)


def group_config(group: str, name: str) -> dict:
    """The config ``<group>=<name>`` as Hydra composes it (``name`` included), as a plain dict."""
    return dict(OmegaConf.to_container(OmegaConf.create(_group_config_cached(group, name))))
