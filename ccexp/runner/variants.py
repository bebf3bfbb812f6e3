"""Named variants of an experiment: ``experiment.variant=NAME`` (issues 28, 29, 34).

A variant is a setup other than the paper's text that evidence says the
authors ran (their public code's settings, a dataset as their table describes
it), declared in the experiment's ``variants:`` as experiment keys and the
values it sets.  The default always stays the paper's text; a variant's
results go to ``<scale>+<variant>`` (:func:`~ccexp.runner.layout.scale_label`),
and ``results/<experiment>/paper+<variant>/`` is committed beside ``paper/``.
"""

from __future__ import annotations

from omegaconf import DictConfig, OmegaConf, open_dict

from .compose import ConfigError


def variant_of(experiment, name) -> tuple[str | None, dict]:
    """The named variant ``experiment.variant`` and what it sets, or ``(None, {})``; refuses an unknown one."""
    variants = experiment.get("variants") or {}
    variant = experiment.get("variant")
    if variant is None or variant == "":
        return None, {}
    if not isinstance(variant, str) or variant not in variants:
        valid = ", ".join(sorted(variants)) or "none (this experiment declares no variants)"
        raise ConfigError(f"unknown variant {variant!r} for experiment {name!r}; valid variants: {valid}"
                          + (f" (write experiment.variant={'|'.join(sorted(variants))})" if variants else ""))
    declared = variants[variant] or {}
    if isinstance(declared, DictConfig):
        declared = OmegaConf.to_container(declared, resolve=False)
    if not isinstance(declared, dict) or any(k in declared for k in ("name", "scale", "variant", "variants")):
        raise ConfigError(f"variant {variant!r} of {name!r} must be a mapping of experiment keys other than name, "
                          f"scale, variant and variants: a variant changes only the setup")
    presets = declared.get("presets") or {}
    if not isinstance(presets, dict) or not set(presets) <= set(experiment.get("presets") or {}):
        raise ConfigError(f"variant {variant!r} of {name!r}: its presets must be some of the experiment's scales "
                          f"({', '.join(sorted(experiment.get('presets') or {}))})")
    return variant, declared


def _leaves(d: dict, prefix: str = "") -> list[str]:
    out = []
    for k, v in d.items():
        out += _leaves(v, f"{prefix}{k}.") if isinstance(v, dict) and v else [f"{prefix}{k}"]
    return out


def with_variant(cfg: DictConfig, user_keys=frozenset()) -> DictConfig:
    """``cfg`` with the named variant (``experiment.variant``) merged into its experiment.

    A variant is a setup other than the paper's text that evidence says the
    authors ran (their code's settings, a dataset as their table describes
    it), declared in the experiment's ``variants:``.  It is merged into the
    composed experiment before anything is resolved, so the experiment's own
    interpolations (``oracle.preset: ${experiment.preset}``) follow it, and a
    key the user set on the command line keeps the user's value.  The order
    is: the experiment, the variant, the scale's preset, the variant's own
    ``presets[scale]`` (where a scale's grid must differ under the variant,
    e.g. its smaller dataset list), the user's overrides
    (:func:`~ccexp.runner.config.apply_scale`).  Its results go to
    ``<scale>+<variant>`` (:func:`~ccexp.runner.layout.scale_label`).
    """
    experiment = cfg.get("experiment")
    if experiment is None:
        return cfg
    variant, declared = variant_of(experiment, experiment.get("name"))
    if variant is None:
        return cfg
    cfg = cfg.copy()
    setup = {k: v for k, v in declared.items() if k != "presets"}
    with open_dict(cfg):
        cfg.experiment = OmegaConf.merge(cfg.experiment, not_overridden(setup, user_keys))
    return cfg


def not_overridden(declared: dict, user_keys) -> DictConfig:
    """``declared`` without the leaves that the user's ``experiment.<key>`` overrides (``user_keys``) touch."""
    user = set(user_keys)
    keep = OmegaConf.create(declared)
    for leaf in _leaves(declared):
        if any(leaf == u or leaf.startswith(u + ".") or u.startswith(leaf + ".") for u in user):
            parent, _, key = leaf.rpartition(".")
            node = OmegaConf.select(keep, parent) if parent else keep
            node.pop(key)
    return keep
