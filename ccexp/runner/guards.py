"""What a run may not ask for, refused in one line before anything runs (issue 33).

:func:`ccexp.runner.config.resolve_run` calls these on the composed config:

- :func:`check_read_keys`: a key that nothing reads (``+foo.bar=1``,
  ``+experiment.foo=1``, ``+runner.foo=1``) is refused, with or without
  Hydra's ``+``, instead of being ignored (item 10);
- :func:`check_name`: ``experiment.name`` names the records, the report and
  the reference rows of the chosen experiment, so it cannot be set
  (``experiment.name=agg_outliers`` on agg_robustness stored one experiment
  under another's name; ``experiment.name=../../x`` a path; item 7);
- :func:`check_sweep`: every swept key takes a non-empty list (a scalar
  crashed in ``itertools.product``; an empty list ran nothing and exited 0;
  item 8);
- :func:`check_grid_size`: the grid's bookkeeping must fit in memory
  (``experiment.trials=10000000000000`` grew past 6 GB without a word;
  item 14).

Each raises :class:`~ccexp.runner.compose.ConfigError`, whose message the
command line prints as one line before exiting with status 2.
"""

from __future__ import annotations

import dataclasses
import os
import re

from omegaconf import OmegaConf

from .compose import GROUPS_KEY, ConfigError
from .grid import count_cases, flatten, sweep_grids
from .sweep import RunnerOptions

#: the keys of an experiment config that the runner and the reports read (``experiment.<key>``);
#: ``variant`` / ``variants`` are the named variants of issue 28
EXPERIMENT_KEYS = ("name", "paper", "scale", "trials", "algorithms", "sweep", "single_trial", "setting_trials", "algorithm_params",
                   "presets", "record", "early_stop", "trace_metrics", "variant", "variants", "one_case_at_a_time",
                   "first_trial")
#: the root keys of the composed config (``hydra`` is Hydra's own)
ROOT_KEYS = ("experiment", "dataset", "oracle", "algorithm", "runner", "tracking", "paths", "report")
TRACKING_KEYS = ("mode", "uri")
PATHS_KEYS = ("results", "data")
#: bytes the driver holds per case of a grid: the case (~650 B measured on exp1, recon_random), its record
#: and the records table; an estimate that errs high
BYTES_PER_CASE = 4096


def runner_keys() -> list[str]:
    """The ``runner.*`` keys: the fields of :class:`ccexp.runner.sweep.RunnerOptions`."""
    return [f.name for f in dataclasses.fields(RunnerOptions)]


_EXPERIMENT_READ = re.compile(r"\$\{experiment\.(\w+)")


def _interpolated_keys(cfg) -> set[str]:
    """The ``experiment.<key>`` that an interpolation of the composed config reads (``${experiment.preset}``).

    Such a key is an experiment's own variable (the acc experiments'
    ``preset``): the runner does not read it, the configs that interpolate
    it do.  Read from the composed config, not from the yaml's text.
    """
    found: set[str] = set()
    stack = [OmegaConf.to_container(cfg, resolve=False)] if cfg is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            found.update(_EXPERIMENT_READ.findall(node))
    return found


def check_read_keys(cfg, ovs, experiment: dict) -> None:
    """Refuse a key of the command line, or of the scaled experiment, that nothing reads.

    ``cfg`` is the composed config, ``ovs`` the parsed overrides
    (:func:`ccexp.runner.overrides.parse_overrides`), ``experiment`` the scaled
    experiment.  Keys of ``dataset``, ``oracle`` and ``algorithm`` are the
    factories' parameters, checked by :func:`ccexp.runner.config.check_params`.
    """
    allowed_exp = set(EXPERIMENT_KEYS) | _interpolated_keys(cfg)
    for o in ovs:
        root, _, rest = o.key.partition(".")
        if root == GROUPS_KEY:
            raise ConfigError(f"{o.text}: {GROUPS_KEY} holds the configs the experiment builds, as their yaml gives "
                              f"them; set a parameter with experiment.algorithm_params.<name>.<param>=VALUE or "
                              f"dataset.<param> / oracle.<param>")
        if o.kind == "delete" and root not in ROOT_KEYS:
            continue  # Hydra refuses deleting a key that is not there
        if root not in ROOT_KEYS:
            raise ConfigError(f"{o.text}: nothing in ccexp reads {root!r}; the config's keys are "
                              f"{', '.join(ROOT_KEYS)} (python -m ccexp --help lists the main overrides)")
        leaf = rest.split(".", 1)[0]
        if not leaf:
            continue
        if root == "experiment" and leaf not in allowed_exp:
            raise ConfigError(f"{o.text}: no part of ccexp reads experiment.{leaf}; an experiment's keys are "
                              f"{', '.join(sorted(allowed_exp))}")
        if root == "runner" and leaf not in runner_keys():
            raise ConfigError(f"{o.text}: no part of ccexp reads runner.{leaf}; the runner's keys are "
                              f"{', '.join(runner_keys())}")
        if root in ("tracking", "paths"):
            keys = TRACKING_KEYS if root == "tracking" else PATHS_KEYS
            if leaf not in keys:
                raise ConfigError(f"{o.text}: no part of ccexp reads {root}.{leaf}; valid keys are "
                                  f"{', '.join(f'{root}.{k}' for k in keys)}")
    stray = sorted(set(experiment) - allowed_exp)
    if stray:  # e.g. a key merged in from a preset
        raise ConfigError(f"experiment {experiment.get('name')!r}: no part of ccexp reads experiment.{stray[0]}; "
                          f"an experiment's keys are {', '.join(sorted(allowed_exp))}")
    unknown = sorted(set(cfg.runner) - set(runner_keys())) if "runner" in cfg else []
    if unknown:
        raise ConfigError(f"runner.{unknown[0]}: no part of ccexp reads it; the runner's keys are "
                          f"{', '.join(runner_keys())}")


def check_name(ovs) -> None:
    """Refuse ``experiment.name=...``: the name is the experiment's (its records, report and reference rows)."""
    for o in ovs:
        if o.key == "experiment.name":
            raise ConfigError(f"{o.text}: experiment.name cannot be set (it names the experiment's records, report "
                              f"and reference rows); choose an experiment with experiment=NAME")


def check_sweep(experiment: dict) -> None:
    """Refuse a swept key whose value is not a non-empty list (a scalar, ``[]``)."""
    try:
        grids = sweep_grids(experiment)
    except ValueError as err:
        raise ConfigError(str(err)) from None
    for prefix, grid in grids:
        for key, values in flatten({k: v for k, v in grid.items() if k != "algorithms"}).items():
            if not isinstance(values, (list, tuple)):
                raise ConfigError(f"{prefix}{key}={values}: a swept key takes a list of values "
                                  f"(write {prefix}{key}=[{values}])")
            if not values:
                raise ConfigError(f"{prefix}{key}=[] sweeps no value, so the grid would run no case; "
                                  f"give at least one ({prefix}{key}=[VALUE])")


def available_memory() -> int:
    """Bytes of memory available to a new process (``MemAvailable`` of /proc/meminfo, else the physical memory)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 2**62


def fmt_bytes(n: float) -> str:
    """``1.5 GiB``, ``155 GiB``, ``3.2 PiB``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if abs(n) < 1024 or unit == "EiB":
            return f"{n:.0f} {unit}" if n >= 100 or unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.0f} EiB"


def check_grid_size(experiment: dict, available: int | None = None) -> int:
    """The grid's number of cases (:func:`count_cases`); refused when holding it would not fit in memory."""
    n = count_cases(experiment)
    need = n * BYTES_PER_CASE
    available = available_memory() if available is None else available
    if need > available:
        raise ConfigError(f"{experiment.get('name')}: the grid has {n:,} cases (trials={experiment.get('trials', 1)}); "
                          f"holding them alone takes about {fmt_bytes(need)} of memory, more than the "
                          f"{fmt_bytes(available)} this machine has available; make the grid smaller")
    return n
