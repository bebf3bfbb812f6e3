"""Expand an experiment config into cases.

A *setting* is one combination of the sweep; an *instance* is a setting and
a trial (one draw of dataset and oracle); a *case* is an instance and an
algorithm.  Work is dispatched per instance so the noisy supervision is
generated once and shared by all algorithms of the case.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from tqdm.auto import tqdm

from .compose import group_config, list_options, load_group_configs
from .seeding import seed_int, stable_hash


@dataclass(frozen=True)
class Instance:
    """One draw of supervision: dataset config, oracle config, trial."""

    dataset: dict
    oracle: dict
    trial: int
    setting: dict  # the swept values only, flattened ("oracle.noise": 0.2)

    @property
    def key(self) -> dict:
        """What identifies the instance: dataset, oracle and trial."""
        return {"dataset": self.dataset, "oracle": self.oracle, "trial": self.trial}

    @property
    def instance_id(self) -> str:
        """A stable hash of :attr:`key`."""
        return stable_hash(self.key)

    @property
    def seed(self) -> int:
        """The seed of the instance (data draw and oracle), a function of :attr:`key` only."""
        return seed_int(self.key)


@dataclass(frozen=True)
class Case:
    """An instance and one algorithm with its parameters."""

    experiment: str
    instance: Instance
    algorithm: str
    params: dict = field(default_factory=dict)

    @property
    def case_id(self) -> str:
        """A stable hash of the experiment, the instance, the algorithm and its parameters."""
        return stable_hash(
            {"experiment": self.experiment, **self.instance.key, "algorithm": self.algorithm, "params": self.params}
        )

    @property
    def algorithm_seed(self) -> int:
        """The seed of the algorithm: a function of the instance and the algorithm name, not of its parameters."""
        return seed_int({**self.instance.key, "algorithm": self.algorithm})


#: a grid of at least this many cases shows a progress bar while it expands (about 0.35 ms a case)
LARGE_GRID = 20_000


def flatten(d: dict, prefix: str = "") -> dict:
    """``{"a": {"b": 1}} -> {"a.b": 1}``."""
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def expand(experiment: dict, dataset: dict, oracle: dict, algorithms: dict[str, dict] | None = None,
           progress: int | None = None) -> list[Case]:
    """All cases of an experiment (already scaled with :func:`ccexp.runner.config.apply_scale`).

    Parameters
    ----------
    experiment : dict
        With ``name``, ``algorithms``, ``trials``, ``sweep`` (nested lists
        under ``dataset`` / ``oracle`` / ``algorithm``; an ``algorithm.<p>``
        list sets parameter ``p`` of every algorithm of the experiment,
        an ``algorithm.<name>.<p>`` list only that of algorithm ``<name>``;
        ``sweep`` may also be a list of such grids, whose cases are united
        as in scikit-learn's ``ParameterGrid``, duplicates dropped; a grid's
        optional ``algorithms`` list restricts it to those of the
        experiment's algorithms),
        optional ``single_trial`` (list of flat settings run once),
        optional ``setting_trials`` (list of flat settings, each with a
        ``trials`` count that replaces the experiment's for the matching
        settings: a procedure too slow for every trial still runs the
        :data:`~ccexp.report.reproduction.MIN_TRIALS` its spread needs) and
        ``algorithm_params``, and ``first_trial`` (default 0: the trials of a
        setting are numbered ``first_trial, first_trial + 1, ...``; every seed
        is drawn from the trial's number, so ``first_trial=1000`` draws a
        fresh batch of the same runs, the cause ``chance`` of
        :mod:`ccexp.report.chance`).  A setting matches an entry when it has every
        key of the entry with that value; ``single_trial`` is read first.
    dataset, oracle : dict
        Base configs (with ``name``) that the sweep values override.  When
        the sweep sets ``dataset.name`` (or ``oracle.name``), that value's own
        ``conf/dataset/<name>.yaml`` replaces the base config, and the other
        swept values apply on top.  Those configs are composed by Hydra
        (:func:`ccexp.runner.compose.group_config`), never read by hand.
    algorithms : dict, optional
        Each algorithm's parameters (name -> dict), as
        :func:`ccexp.runner.config.resolve_run` builds them from the composed
        config; default: each algorithm's composed config with the
        experiment's ``algorithm_params`` on top.
    progress : int, optional
        Show a progress bar over this many cases (the grid's count, a large
        grid takes minutes to expand); default none.
    """
    grids = experiment.get("sweep") or {}
    grids = [dict(g or {}) for g in (grids if isinstance(grids, list) else [grids])]
    algorithms_params = algorithms
    algorithms = list(experiment["algorithms"])
    # A grid's optional ``algorithms`` list restricts that grid to those
    # algorithms (e.g. constraint-free baselines at one supervision level only).
    grid_algorithms = [list(g.pop("algorithms", None) or algorithms) for g in grids]
    for own in grid_algorithms:
        unknown = [a for a in own if a not in algorithms]
        if unknown:
            raise ValueError(f"sweep grid algorithms {unknown} are not in the experiment's algorithms ({', '.join(algorithms)})")
    grids = [flatten(g) for g in grids]
    for key in (k for g in grids for k in g):
        group = key.split(".", 1)[0]
        if group not in ("dataset", "oracle", "algorithm"):
            raise ValueError(f"sweep key {key!r} must start with 'dataset.', 'oracle.' or 'algorithm.'")
    trials = int(experiment.get("trials", 1))
    first = int(experiment.get("first_trial", 0) or 0)
    single = [dict(s) for s in experiment.get("single_trial") or []]
    counted = [dict(s) for s in experiment.get("setting_trials") or []]
    for s in counted:
        t = s.pop("trials", None)
        if not isinstance(t, int) or isinstance(t, bool) or t < 1:
            raise ValueError(f"setting_trials entry {s!r} needs 'trials', a positive int; got {t!r}")
        s["trials"] = t
    algo_overrides = experiment.get("algorithm_params") or {}
    for key in (k for g in grids for k in g if k.count(".") > 1 and k.startswith("algorithm.")):
        if key.split(".")[1] not in algorithms:
            raise ValueError(f"sweep key {key!r} names no algorithm of the experiment ({', '.join(algorithms)})")
    for group in ("dataset", "oracle"):  # the swept names' configs, in one composition per group
        load_group_configs(group, [n for g in grids for n in g.get(f"{group}.name", []) if n in list_options(group)])
    if algorithms_params is None:
        algorithms_params = {a: {**{k: v for k, v in group_config("algorithm", a).items() if k != "name"},
                                 **(algo_overrides.get(a) or {})} for a in algorithms}
    params = algorithms_params
    cases, seen = [], set()
    bar = tqdm(total=progress, desc=f"{experiment['name']}: expanding the grid", unit="case", disable=not progress,
               smoothing=0.05, leave=False)
    settings = (
        (dict(zip(g, values)), own) for g, own in zip(grids, grid_algorithms) for values in itertools.product(*g.values())
    )
    for setting, grid_algos in settings:
        # A swept name starts from that dataset's / oracle's own config, so
        # the base config's parameters never leak into another loader.
        ds = group_config("dataset", setting["dataset.name"]) if "dataset.name" in setting else dict(dataset)
        orc = group_config("oracle", setting["oracle.name"]) if "oracle.name" in setting else dict(oracle)
        algo_setting = {}
        for k, v in setting.items():
            group, name = k.split(".", 1)
            if group == "algorithm":
                algo_setting[name] = v
            else:
                (ds if group == "dataset" else orc)[name] = v
        n_trials = _n_trials(setting, single, counted, trials)
        for trial in range(first, first + n_trials):
            # algorithm parameters never enter the instance: every value of a
            # swept algorithm parameter sees the same noisy supervision
            inst_setting = {k: v for k, v in setting.items() if not k.startswith("algorithm.")}
            inst = Instance(dataset=ds, oracle=orc, trial=trial, setting=inst_setting)
            for a in (a for a in algorithms if a in grid_algos):  # the experiment's order
                own = {k: v for k, v in algo_setting.items() if "." not in k}
                own.update({k.split(".", 1)[1]: v for k, v in algo_setting.items() if k.startswith(f"{a}.")})
                case = Case(experiment["name"], inst, a, {**params[a], **own})
                if case.case_id not in seen:  # scoped keys and overlapping grids repeat cases
                    seen.add(case.case_id)
                    cases.append(case)
                bar.update()
    bar.close()
    return cases


def sweep_grids(experiment: dict) -> list[tuple[str, dict]]:
    """The grids of ``experiment.sweep`` (one mapping, or a list of them), each with the prefix a user types."""
    sweep = experiment.get("sweep") or {}
    if isinstance(sweep, list):
        return [(f"experiment.sweep.{i}.", dict(g or {})) for i, g in enumerate(sweep)]
    if not isinstance(sweep, dict):
        raise ValueError(f"experiment.sweep must be a mapping of keys to lists of values (or a list of such "
                          f"grids), got {sweep!r}")
    return [("experiment.sweep.", sweep)]


def count_cases(experiment: dict) -> int:
    """How many cases the grid expands to, at most (before ``single_trial`` and duplicates), without expanding it.

    Every setting is counted at the largest trials count it may get (``trials`` or a ``setting_trials`` entry's).
    """
    names = list(experiment.get("algorithms") or [])
    trials = experiment.get("trials", 1)
    trials = trials if isinstance(trials, int) and not isinstance(trials, bool) else 1
    trials = max([trials, *(s.get("trials") for s in experiment.get("setting_trials") or []
                            if isinstance(s, dict) and isinstance(s.get("trials"), int))])
    total = 0
    for _, grid in sweep_grids(experiment):
        own = grid.get("algorithms") or names
        settings = math.prod(len(v) if isinstance(v, (list, tuple)) else 1
                             for k, v in flatten({k: v for k, v in grid.items() if k != "algorithms"}).items())
        total += settings * trials * len([a for a in own if a in names])
    return total


def _n_trials(setting: dict, single: list[dict], counted: list[dict], trials: int) -> int:
    """Trials of one flat ``setting``: 1 if it matches a ``single_trial`` entry, else the first matching
    ``setting_trials`` entry's ``trials``, else the experiment's ``trials``."""
    if any(all(setting.get(k) == v for k, v in s.items()) for s in single):
        return 1
    for s in counted:
        if all(setting.get(k) == v for k, v in s.items() if k != "trials"):
            return s["trials"]
    return trials
