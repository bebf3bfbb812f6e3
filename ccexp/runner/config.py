"""From the composed Hydra config to what runs: the single source of configuration.

``python -m ccexp`` composes ``conf/`` (installed as ``ccexp.conf``) with the
command line; :func:`resolve_run` turns that composed config into the run's
specification (:class:`RunSpec`): the experiment with its scale preset merged
in, the base dataset and oracle configs, each algorithm's parameters and the
results folder label.  Nothing here reads a yaml file by hand or parses an
override's value again: values come from the composed config, the configs of
swept dataset / oracle names and of the experiment's algorithms are composed
by Hydra (:func:`group_config`), and Hydra's own override parser only says
*which* keys the user touched, so that an override the experiment would undo
(a swept key, a parameter of an algorithm it does not run) is refused with
one line that says what to write instead (:class:`ConfigError`).

Parameter defaults live in one place: the factory's signature (the estimator's
``__init__``, the loader's or oracle's function).  The yaml files list the
parameters a run may change, so that ``algorithm.tie_break=stay`` is a plain
override and the run's records list every parameter, and write each value
``${default:}``, which :func:`~ccexp.runner.compose.signature_default` reads
from the signature when the config is resolved; ``tests/test_config.py``
refuses a yaml value that copies a default, and :func:`check_params` refuses a
key the factory does not take.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
from dataclasses import dataclass, field
from pathlib import Path

from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from ..capabilities import algorithm_reads, can_read, oracle_produces, pairing_error
from ..registry import ALGORITHMS, DATASETS, ORACLES
from .compose import (ConfigError, compose_config, config_header, config_text, group_config, list_options,
                      load_group_configs, normalize_overrides, omegaconf_message, take_group_configs)
from .execute import RECORD_OPTIONS
from .grid import LARGE_GRID, Case, count_cases, expand, flatten
from .guards import check_grid_size, check_name, check_read_keys, check_sweep
from .layout import scale_label
from .objects import run_targets
from .overrides import UserOverride, parse_overrides, user_keys
from .seeding import stable_hash
from .variants import not_overridden, variant_of, with_variant


def with_algorithm_choice(overrides) -> list[str]:
    """``overrides`` plus ``algorithm=A`` when the experiment runs the single algorithm ``A``.

    So that ``experiment.algorithms=[acc_maxexp] algorithm.tau=3`` composes
    ``tau`` on ``acc_maxexp``'s config (not on the root default's).  An
    explicit ``algorithm=NAME`` is kept.  The experiment is composed once
    without the ``algorithm.*`` keys to learn its list.
    """
    overrides = normalize_overrides(overrides)
    ovs = parse_overrides(overrides)
    if any(o.key == "algorithm" for o in ovs) or not any(o.group == "algorithm" for o in ovs):
        return overrides
    plain = [o.text for o in ovs if o.group != "algorithm"]
    cfg = compose_config(plain)
    if cfg.get("experiment") is None:
        return overrides
    names = OmegaConf.select(cfg, "experiment.algorithms")
    try:
        scaled = apply_scale(cfg.experiment, plain)
        names = scaled.get("algorithms", names)
    except ConfigError:
        pass
    if isinstance(names, (list, ListConfig)) and len(names) == 1 and isinstance(names[0], str):
        return [*overrides, f"algorithm={names[0]}"]
    return overrides


def experiment_description(name: str, width: int = 100) -> str:
    """One line about an experiment: the header comment of ``conf/experiment/<name>.yaml``, cut at ``width``."""
    return config_header("experiment", name, width=width)


def _registry(group: str):
    return {"dataset": DATASETS, "oracle": ORACLES, "algorithm": ALGORITHMS}[group]


def factory_parameters(group: str, name: str) -> dict[str, object]:
    """The parameters a registered factory takes, with their defaults (``inspect.Parameter.empty`` if none).

    ``random_state`` (set by the runner from the case's seed) and an oracle's
    ``dataset`` argument are left out.  Returns None for a factory with
    ``**kwargs`` (then any key is accepted).
    """
    factory = _registry(group).get(name)
    params = inspect.signature(factory).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return None
    skip = {"self", "random_state"} | ({"dataset"} if group == "oracle" else set())
    return {k: p.default for k, p in params.items() if k not in skip and p.kind is not p.VAR_POSITIONAL}


def check_params(group: str, name: str, params, where: str | None = None) -> None:
    """Refuse keys that the factory registered as ``name`` does not take (one line, listing the valid ones)."""
    valid = factory_parameters(group, name)
    if valid is None:
        return
    unknown = sorted(set(params) - set(valid) - {"name"})
    if unknown:
        raise ConfigError(
            f"unknown parameter{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} of {group} {name!r}"
            f"{f' ({where})' if where else ''}; valid parameters are: {', '.join(sorted(valid)) or '(none)'}"
        )


# ----------------------------------------------------------------------------- scale


def apply_scale(experiment: DictConfig, overrides: list[str] | None = None) -> dict:
    """The experiment config with its ``presets[scale]`` merged in, then the user's ``experiment.*`` overrides.

    Hydra has already applied the command line to ``experiment``; the preset
    is merged on top of the experiment's own values, so the keys the user
    overrode (read with Hydra's parser from ``overrides``) are taken back
    from ``experiment`` as Hydra composed them, and a deleted key
    (``~experiment.single_trial``) stays deleted.  So ``experiment.scale=ci
    experiment.trials=3`` means three trials.
    """
    try:
        return _apply_scale(experiment, overrides)
    except OmegaConfBaseException as err:  # an interpolation to a missing key, ...
        raise ConfigError(omegaconf_message(err)) from None


def _apply_scale(experiment, overrides) -> dict:
    overrides = parse_overrides(overrides)
    if not isinstance(experiment, DictConfig):
        experiment = OmegaConf.create(experiment)
    name = experiment.get("name")
    scale = experiment.get("scale", "paper")
    presets = experiment.get("presets") or {}
    if not isinstance(scale, str) or scale not in presets:
        raise ConfigError(f"unknown scale {scale!r} for experiment {name!r}; valid scales: {', '.join(sorted(presets))}"
                          f" (write experiment.scale={'|'.join(sorted(presets))})")
    base = OmegaConf.create(OmegaConf.to_container(experiment, resolve=True))
    preset = presets[scale] or {}
    if isinstance(preset, DictConfig):  # resolved where it stands, so ${experiment.preset} finds the root
        preset = OmegaConf.to_container(preset, resolve=True)
    with_preset = OmegaConf.merge(base, preset)
    with_preset.pop("presets", None)
    variant, declared = variant_of(experiment, name)
    if variant is not None and scale in (declared.get("presets") or {}):
        # the variant's own grid at this scale (a smaller dataset list of its datasets), after the scale's
        scaled = OmegaConf.select(experiment, f"variants.{variant}.presets.{scale}")
        scaled = OmegaConf.to_container(scaled, resolve=True) if isinstance(scaled, DictConfig) else (scaled or {})
        with_preset = OmegaConf.merge(with_preset, not_overridden(scaled, user_keys(overrides)))
    with_preset.pop("variants", None)
    for o in overrides:
        if o.group != "experiment" or not o.rest or o.rest == "scale" or o.rest.startswith("presets"):
            continue
        if o.kind == "delete":
            parent, _, leaf = o.rest.rpartition(".")
            node = OmegaConf.select(with_preset, parent) if parent else with_preset
            if isinstance(node, DictConfig) and leaf in node:
                node.pop(leaf)
            continue
        value = OmegaConf.select(experiment, o.rest, throw_on_missing=False)
        if isinstance(value, (DictConfig, ListConfig)):
            value = OmegaConf.to_container(value, resolve=True)
        OmegaConf.update(with_preset, o.rest, value, merge=False, force_add=True)
    return OmegaConf.to_container(with_preset, resolve=True)


# ----------------------------------------------------------------------------- the run


@dataclass
class RunSpec:
    """What a run of ``python -m ccexp`` will do, resolved from the composed config."""

    experiment: dict  # scaled (see apply_scale)
    dataset: dict  # base configs that the sweep values override
    oracle: dict
    algorithms: dict[str, dict]  # name -> parameters
    scale: str
    label: str  # results folder under <results>/<experiment>/: the scale, or <scale>+custom-<hash>
    fingerprint: str  # hash of everything that decides the records
    options: dict = field(default_factory=dict)  # checked run options (report, runner, tracking, paths)
    expanded: list | None = field(default=None, repr=False, compare=False)  # the cases, as resolve_run expanded them
    #: group -> name -> the ``_target_`` that builds it (:mod:`ccexp.runner.objects`), for every name the cases use
    targets: dict = field(default_factory=dict)

    @property
    def custom(self) -> bool:
        """Whether user overrides changed the records (results go to ``<scale>+custom-<hash>``)."""
        return self.label != self.scale

    def placed_experiment(self) -> dict:
        """The experiment whose grids list their algorithms, with them placed by the declarations.

        What the sweep runs (:func:`place_by_declaration`); the experiment as
        configured otherwise.
        """
        return place_by_declaration(self.experiment, self.oracle)

    def cases(self, progress: bool = False) -> list[Case]:
        """Every case of the sweep: instances (dataset x oracle x trial) times algorithms.

        ``progress``: a progress bar while a large grid expands (minutes for a million cases).
        """
        experiment = self.placed_experiment()
        return expand(experiment, self.dataset, self.oracle, algorithms=self.algorithms,
                      progress=count_cases(experiment) if progress else None)


def _grid_oracles(grid: dict, oracle: dict) -> list[str]:
    names = (grid.get("oracle") or {}).get("name")
    return list(names) if names is not None else [oracle["name"]]


def place_by_declaration(experiment: dict, oracle: dict) -> dict:
    """The experiment with its grids' ``algorithms`` lists fitted to ``experiment.algorithms``, by the declarations.

    Only for a sweep made of grids that each list their algorithms (the way
    an experiment pairs several kinds of supervision with their readers):

    - a grid keeps the listed algorithms that the experiment runs, and a
      grid left with none is dropped, so ``experiment.algorithms=[a]`` runs
      ``a`` where the experiment runs it;
    - an algorithm of the experiment that no grid lists (a plugin's, say)
      joins every grid whose oracles give a kind it reads
      (:mod:`ccexp.capabilities`), except grids that sweep algorithm
      parameters (chosen for their own algorithms); an algorithm reading
      ``"none"`` joins the grids of oracles that give ``"none"`` when there
      are any, else every grid.  One that fits no grid is refused.

    Any other sweep is returned as it is.
    """
    sweep = experiment.get("sweep")
    if not isinstance(sweep, list) or not sweep or not all(isinstance(g, dict) and g.get("algorithms") for g in sweep):
        return experiment
    names = list(experiment["algorithms"])
    # an unregistered name is left for expand() to refuse
    grids = [dict(g, algorithms=[a for a in g["algorithms"] if a in names or a not in ALGORITHMS]) for g in sweep]
    placed = {a for g in grids for a in g["algorithms"]}
    unplaced = [a for a in names if a not in placed]
    if not unplaced:
        return dict(experiment, sweep=[g for g in grids if g["algorithms"]])
    try:
        kinds = [[oracle_produces(o) for o in _grid_oracles(g, oracle)] for g in grids]
    except ValueError as err:  # an oracle without its declaration
        raise ConfigError(str(err).splitlines()[0]) from None
    for a in unplaced:
        reads = algorithm_reads(a)
        fits = [i for i, g in enumerate(grids) if all(can_read(reads, k) for k in kinds[i])
                and not any(k == "algorithm" or k.startswith("algorithm.") for k in flatten(g))]
        if reads == ("none",) and any(all(k == "none" for k in kinds[i]) for i in fits):
            fits = [i for i in fits if all(k == "none" for k in kinds[i])]
        if not fits:
            given = sorted({k for ks in kinds for k in ks})
            raise ConfigError(f"{experiment['name']}: algorithm {a!r} reads {', '.join(reads)}, and no grid of the "
                              f"experiment gives that (its grids give {', '.join(given)}, or sweep algorithm parameters)")
        for i in fits:
            grids[i] = dict(grids[i], algorithms=[*grids[i]["algorithms"], a])
    return dict(experiment, sweep=[g for g in grids if g["algorithms"]])


def _grids(experiment: dict) -> list[dict]:
    sweep = experiment.get("sweep") or {}
    return [flatten(dict(g or {})) for g in (sweep if isinstance(sweep, list) else [sweep])]


def _swept_values(experiment: dict, key: str) -> list | None:
    values, found = [], False
    for g in _grids(experiment):
        if key in g:
            found = True
            values += [v for v in g[key] if v not in values]
    return values if found else None


def _fmt(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, float) and math.isinf(v):
        return ".inf" if v > 0 else "-.inf"
    return str(v)


def _sweep_hint(experiment: dict, key: str, value) -> str:
    if isinstance(experiment.get("sweep"), list):
        return f"experiment.sweep.<i>.{key}=[{_fmt(value)}] in each grid i that sets it"
    return f"experiment.sweep.{key}=[{_fmt(value)}]"


def _with_default(group: str, name: str, params: dict, key: str, typed: str) -> None:
    """A deleted parameter (``~group.key``) takes the factory's own default, recorded like any value."""
    defaults = factory_parameters(group, name) or {}
    if key not in defaults or defaults[key] is inspect.Parameter.empty:
        raise ConfigError(f"{typed}: {group} {name!r} has no default for {key!r} to fall back on; set it instead ({group}.{key}=VALUE)")
    params[key] = defaults[key]


def _check_group_overrides(group: str, cfg: DictConfig, experiment: dict, ovs: list[UserOverride]) -> dict:
    """The base config of ``group`` (dataset / oracle) with the user's overrides checked against the sweep."""
    name_swept = _swept_values(experiment, f"{group}.name")
    base = OmegaConf.to_container(cfg[group], resolve=True)
    base.pop("_target_", None)  # the object it builds, not a parameter (run_targets)
    for o in ovs:
        if o.group != group:
            continue
        value = OmegaConf.select(cfg, o.key, throw_on_missing=False) if o.kind != "delete" else None
        if not o.rest:  # a group choice: dataset=iris
            if name_swept is not None:
                raise ConfigError(f"{group} is swept by {experiment['name']} over {_fmt(name_swept)}; "
                                  f"to fix it write {_sweep_hint(experiment, f'{group}.name', cfg[group].name)}")
            continue
        swept = _swept_values(experiment, o.key)
        if swept is not None:
            raise ConfigError(f"{o.key} is swept by {experiment['name']} over {_fmt(swept)}; "
                              f"to fix it write {_sweep_hint(experiment, o.key, value if value is not None else 'VALUE')}")
        if name_swept is not None:
            raise ConfigError(f"{o.key} would apply to none of the {group}s that {experiment['name']} sweeps "
                              f"({_fmt(name_swept)}); write {_sweep_hint(experiment, o.key, value if value is not None else 'VALUE')}")
        if o.kind == "delete":
            _with_default(group, base["name"], base, o.rest, o.text)
    return base


def _algorithm_params(cfg: DictConfig, experiment: dict, ovs: list[UserOverride]) -> dict[str, dict]:
    """Each algorithm's parameters: its composed config, the experiment's ``algorithm_params``, the user's ``algorithm.*``."""
    names = experiment["algorithms"]
    extra = experiment.get("algorithm_params") or {}
    # a preset may hold parameters of algorithms that a narrower list leaves out; what the user types may not
    for o in ovs:
        if o.group == "experiment" and o.rest.startswith("algorithm_params."):
            a = o.rest.split(".")[1]
            if a not in names:
                raise ConfigError(f"{o.text}: {experiment['name']} does not run {a} ({', '.join(names)}); "
                                  f"add it with experiment.algorithms=[...,{a}]")
    params = {}
    # every algorithm's config in one composition (an unknown name is refused below, in the experiment's order)
    load_group_configs("algorithm", [a for a in names if a in ALGORITHMS and a in list_options("algorithm")])
    for a in names:
        ALGORITHMS.get(a)  # unknown name -> "unknown algorithm ...; valid algorithms are: ..."
        if a not in list_options("algorithm"):
            raise ConfigError(f"algorithm {a!r} is registered but has no conf/algorithm/{a}.yaml")
        own = {k: v for k, v in group_config("algorithm", a).items() if k != "name"}
        own.update(extra.get(a) or {})
        params[a] = own
    chosen = cfg.algorithm.name
    mine = [o for o in ovs if o.group == "algorithm"]
    keys = [o for o in mine if o.rest]
    if not mine:
        return params
    if chosen not in names:
        raise ConfigError(f"{(keys or mine)[0].text}: algorithm {chosen} is not run by {experiment['name']} "
                          f"({', '.join(names)}); choose one with 'experiment.algorithms=[{chosen}]', "
                          f"or set a parameter with experiment.algorithm_params.<name>.<param>=VALUE")
    if len(names) > 1 and not any(not o.rest for o in mine):
        o = keys[0]
        raise ConfigError(f"{o.text}: {experiment['name']} runs {len(names)} algorithms; say which one: "
                          f"experiment.algorithm_params.<name>.{o.rest}=VALUE (e.g. <name>={chosen}), "
                          f"or algorithm={chosen} {o.text}")
    for o in keys:
        if "." in o.rest:
            raise ConfigError(f"{o.text}: algorithm parameters are flat (algorithm.<param>=VALUE)")
        swept = _swept_values(experiment, o.key) or _swept_values(experiment, f"algorithm.{chosen}.{o.rest}")
        if swept is not None:
            raise ConfigError(f"{o.key} is swept by {experiment['name']} over {_fmt(swept)}; to fix it write "
                              f"{_sweep_hint(experiment, o.key, OmegaConf.select(cfg, o.key, default='VALUE'))}")
        if o.kind == "delete":
            params[chosen].pop(o.rest, None)
            _with_default("algorithm", chosen, params[chosen], o.rest, o.text)
        else:
            value = OmegaConf.select(cfg, o.key)
            params[chosen][o.rest] = OmegaConf.to_container(value, resolve=True) if isinstance(value, (DictConfig, ListConfig)) else value
    return params


def _check_bool(value, key: str) -> bool:
    if isinstance(value, bool):
        return value
    raise ConfigError(f"{key} must be true or false, got {_fmt(value)!r} (write {key}=true or {key}=false)")


def _check_int(value, key: str, minimum: int | None = None, allow=()) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{key} must be an integer, got {_fmt(value)!r}")
    if value in allow:
        return value
    if minimum is not None and value < minimum:
        raise ConfigError(f"{key} must be >= {minimum}{' or one of ' + ', '.join(map(str, allow)) if allow else ''}, got {value}")
    return value


def check_options(cfg: DictConfig, experiment: dict) -> dict:
    """Typed checks of the run options (the things a user types besides the grid); returns them as a dict."""
    report = _check_bool(cfg.get("report"), "report")
    _check_int(experiment.get("trials", 1), "experiment.trials", minimum=1)
    _check_int(experiment.get("first_trial", 0), "experiment.first_trial", minimum=0)
    algorithms = experiment.get("algorithms")
    if not isinstance(algorithms, list) or not algorithms:
        raise ConfigError(f"experiment.algorithms must be a non-empty list of algorithm names, got {_fmt(algorithms)} "
                          f"(e.g. experiment.algorithms=[{ALGORITHMS.names()[0]}])")
    for a in algorithms:
        if not isinstance(a, str):
            raise ConfigError(f"experiment.algorithms must hold algorithm names, got {_fmt(a)!r}")
        if a not in ALGORITHMS:
            try:
                ALGORITHMS.get(a)
            except ValueError as err:  # "unknown algorithm 'x'; valid algorithms are: ..."
                raise ConfigError(str(err).splitlines()[0]) from None
    if len(set(algorithms)) != len(algorithms):
        raise ConfigError(f"experiment.algorithms lists an algorithm twice: {_fmt(algorithms)}")
    record = experiment.get("record")
    if record is not None and (not isinstance(record, list) or not set(record) <= set(RECORD_OPTIONS)):
        raise ConfigError(f"experiment.record must be a list of {', '.join(RECORD_OPTIONS)}, got {_fmt(record)}")
    runner = OmegaConf.to_container(cfg.runner, resolve=True)
    n_jobs = runner.get("n_jobs", -1)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ConfigError(f"runner.n_jobs must be a non-zero integer (-1: all cores, 2: two workers), got {_fmt(n_jobs)!r}")
    _check_bool(runner.get("progress", True), "runner.progress")
    _check_bool(runner.get("allow_mixed_code", False), "runner.allow_mixed_code")
    if runner.get("backend") not in ("loky", "dask", "threading", "multiprocessing", "sequential"):
        raise ConfigError(f"runner.backend must be loky or dask (runner=local | runner=dask), got {runner.get('backend')!r}")
    if runner.get("backend") == "dask" and importlib.util.find_spec("distributed") is None:
        # refused before anything runs, in one line (it was an ImportError's traceback from the sweep)
        raise ConfigError("runner=dask needs dask.distributed, which is not installed: pip install 'ccexp[dask]' "
                          "(or pip install 'dask[distributed]'), or run with runner=local")
    mode = cfg.tracking.get("mode")
    if mode not in ("local", "server", "off"):
        raise ConfigError(f"tracking.mode must be local, server or off (write tracking=local|server|off), got {mode!r}")
    for key in ("results", "data"):
        value = cfg.paths.get(key)
        if not isinstance(value, str) or not value:
            raise ConfigError(f"paths.{key} must be a folder, got {_fmt(value)!r}")
    return {"report": report, "runner": runner, "tracking": OmegaConf.to_container(cfg.tracking, resolve=True),
            "paths": OmegaConf.to_container(cfg.paths, resolve=True)}


def _fingerprint(experiment: dict, dataset: dict, oracle: dict, algorithms: dict) -> str:
    exp = {k: v for k, v in experiment.items() if k not in ("scale", "presets", "variants")}
    return stable_hash({"experiment": exp, "dataset": dataset, "oracle": oracle, "algorithms": algorithms}, length=8)


def _resolve(cfg: DictConfig, ovs: list[UserOverride]) -> tuple[dict, dict, dict]:
    """The scaled experiment and the base dataset and oracle of ``cfg``, its named variant merged in already."""
    check_name(ovs)
    experiment = apply_scale(cfg.experiment, ovs)
    check_sweep(experiment)
    dataset = _check_group_overrides("dataset", cfg, experiment, ovs)
    oracle = _check_group_overrides("oracle", cfg, experiment, ovs)
    for o in ovs:
        if o.group == "experiment" and o.rest.startswith("algorithm_params.") and o.kind == "delete":
            raise ConfigError(f"{o.text}: an algorithm parameter cannot be deleted; set it (or write ~algorithm.<param> "
                              f"with a single algorithm to take its default)")
    return experiment, dataset, oracle


def resolve_run(cfg: DictConfig, overrides: list[str] | tuple[str, ...] = ()) -> RunSpec:
    """The run that ``cfg`` (composed with ``overrides``) describes, or :class:`ConfigError`.

    Every override either reaches the run (and so the records) or is refused:
    a dataset / oracle / algorithm key that the experiment sweeps, a
    parameter of an algorithm the experiment does not run, an unknown key,
    a malformed option (``report=flase``, ``experiment.trials=0``, an empty
    algorithm list, an unknown scale).  A run whose configuration differs
    from the scale's preset gets the label ``<scale>+custom-<hash>``, so its
    records never mix with the preset's.  Also refused: a key nothing reads
    (``+foo.bar=1``), ``experiment.name``, a swept key that is not a
    non-empty list, an interpolation to a missing key, a grid too large to
    hold in memory, a grid of no case (:mod:`ccexp.runner.guards`).
    """
    try:
        return _resolve_run(cfg, overrides)
    except OmegaConfBaseException as err:  # an interpolation to a missing key, ...
        raise ConfigError(omegaconf_message(err)) from None


def _resolve_run(cfg: DictConfig, overrides) -> RunSpec:
    if cfg.get("experiment") is None:
        raise ConfigError(f"choose an experiment: python -m ccexp experiment=NAME; available experiments: "
                          f"{', '.join(list_options('experiment'))}")
    overrides = list(overrides or ())
    ovs = parse_overrides(overrides)  # the command line, parsed once
    take_group_configs(cfg)  # the configs the experiment builds, composed with it (issue 30: compose once)
    cfg = with_variant(cfg, user_keys(ovs))
    experiment, dataset, oracle = _resolve(cfg, ovs)
    options = check_options(cfg, experiment)
    check_read_keys(cfg, ovs, experiment)
    names = experiment["algorithms"]
    typed_algorithm = [o for o in ovs if o.group == "algorithm"]
    if (typed_algorithm and len(names) == 1 and cfg.algorithm.name != names[0]
            and not any(not o.rest for o in typed_algorithm)):
        # one algorithm: algorithm.<param>=v is about it; let Hydra compose its config under the same overrides
        # (python -m ccexp has chosen it before composing, with_algorithm_choice; this is for other callers)
        cfg = compose_config([*overrides, f"algorithm={names[0]}"])
    algorithms = _algorithm_params(cfg, experiment, ovs)
    for a, p in algorithms.items():
        check_params("algorithm", a, p, where="experiment.algorithm_params / algorithm.*")
    spec_scale = experiment.get("scale", "paper")
    fingerprint = _fingerprint(experiment, dataset, oracle, algorithms)
    user_grid = [o for o in ovs if o.group in ("experiment", "dataset", "oracle", "algorithm")
                 and o.key not in ("experiment", "experiment.scale", "experiment.variant")]
    variant = experiment.get("variant")
    label = scale_label(spec_scale, variant=variant)
    if user_grid:
        preset = [o.text for o in ovs if o.group == "experiment" and o.rest in ("", "scale", "variant")]
        # the scale's preset as the experiment's yaml gives it: composed without the user's overrides (its
        # _groups are the run's, kept already)
        p_ovs = parse_overrides(preset)
        pcfg = with_variant(compose_config(preset), user_keys(p_ovs))
        p_exp, p_ds, p_orc = _resolve(pcfg, p_ovs)
        p_alg = _algorithm_params(pcfg, p_exp, [])
        if _fingerprint(p_exp, p_ds, p_orc, p_alg) != fingerprint:
            label = scale_label(spec_scale, fingerprint, variant=variant)
    spec = RunSpec(experiment, dataset, oracle, algorithms, spec_scale, label, fingerprint, options)
    # unknown keys of the base configs and of every swept dataset / oracle are refused before any case runs
    checked = set()
    n_cases = check_grid_size(spec.placed_experiment())
    try:
        cases = spec.cases(progress=n_cases >= LARGE_GRID)
    except ConfigError:
        raise
    except ValueError as err:  # a grid the overrides made inconsistent (a swept key of an algorithm left out, ...)
        raise ConfigError(str(err).splitlines()[0]) from err
    if not cases:
        raise ConfigError(f"{experiment['name']}: the grid has no case (no grid lists an algorithm the experiment "
                          f"runs); check experiment.sweep and experiment.algorithms")
    for case in cases:
        for group, conf in (("dataset", case.instance.dataset), ("oracle", case.instance.oracle)):
            sig = (group, conf["name"], tuple(sorted(conf)))
            if sig not in checked:
                checked.add(sig)
                check_params(group, conf["name"], conf)
    check_pairing(experiment["name"], cases)
    spec.expanded = cases
    spec.targets = run_targets(cfg, cases)
    return spec


def check_pairing(experiment: str, cases) -> None:
    """Refuse a case whose algorithm cannot read its oracle's kind of supervision (:mod:`ccexp.capabilities`)."""
    for algorithm, oracle in dict.fromkeys((c.algorithm, c.instance.oracle["name"]) for c in cases):
        try:
            why = pairing_error(algorithm, oracle)
        except ValueError as err:  # a missing or malformed declaration
            raise ConfigError(str(err).splitlines()[0]) from None
        if why is not None:
            raise ConfigError(f"{experiment}: {why}; run it with an oracle of a kind it reads, "
                              f"or leave it out with experiment.algorithms=[...]")


def experiment_cases(name: str, scale: str | None = None, overrides: list[str] | tuple[str, ...] = ()) -> tuple[dict, list[Case]]:
    """The scaled experiment config and its cases, as ``python -m ccexp`` would run them."""
    ov = [f"experiment={name}", *overrides]
    if scale is not None:
        ov.append(f"experiment.scale={scale}")
    ov = with_algorithm_choice(ov)
    spec = resolve_run(compose_config(ov), ov)
    return spec.experiment, spec.cases()
