"""Compose experiment configs outside the command line (reports, tests, notebooks)."""

from __future__ import annotations

from hydra import compose, initialize_config_module
from hydra.core.global_hydra import GlobalHydra
from omegaconf import DictConfig, OmegaConf

from .grid import Case, apply_scale, expand


def compose_config(overrides: list[str] | tuple[str, ...] = ()) -> DictConfig:
    """The root config composed with ``overrides`` (as on the command line)."""
    if GlobalHydra.instance().is_initialized():
        return compose("config", overrides=list(overrides))
    with initialize_config_module("ccexp.conf", version_base="1.3"):
        return compose("config", overrides=list(overrides))


def experiment_cases(name: str, scale: str | None = None, overrides: list[str] | tuple[str, ...] = ()) -> tuple[dict, list[Case]]:
    """The scaled experiment config and its cases, as ``python -m ccexp`` would run them."""
    ov = [f"+experiment={name}", *overrides]
    if scale is not None:
        ov.append(f"experiment.scale={scale}")
    cfg = compose_config(ov)
    experiment = apply_scale(cfg.experiment, ov)
    dataset = OmegaConf.to_container(cfg.dataset, resolve=True)
    oracle = OmegaConf.to_container(cfg.oracle, resolve=True)
    return experiment, expand(experiment, dataset, oracle)
