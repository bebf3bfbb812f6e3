"""The resolved run spec: what a sweep runs, and what its ``run.json`` records (issue 30, item 2).

:func:`ccexp.runner.config.resolve_run` turns the composed config into a
:class:`~ccexp.runner.config.RunSpec`; :meth:`SweepSpec.of` takes from it
what the sweep runs and nothing else: the experiment's identity, the grid as
expanded (every case, in grid order, with its instance, algorithm and the
parameters it runs with; every instance with its dataset and oracle configs,
trial and seed), the ``_target_`` that builds each name, and what the records
keep.  :func:`ccexp.runner.sweep.run_sweep` takes a :class:`SweepSpec` and
the runner's options; ``run.json`` holds :meth:`SweepSpec.to_json` beside
the run's bookkeeping, and the reports read it back with
:func:`read_spec`, never the config.

``run.json``'s spec (``schema`` 2), every key at its top level:

- ``experiment``, ``paper``, ``scale``, ``variant``, ``label`` (the results
  folder under ``<results>/<experiment>/``), ``trials``, ``algorithms`` (the
  names, in the experiment's order), ``config_hash`` (the hash of the scaled
  experiment config, which every record carries), ``record``,
  ``early_stop``, ``trace_metrics`` (what the records keep besides the
  metrics), ``targets`` (group -> name -> the ``_target_`` that built it);
- ``grid``: the expansion, as tables, so that a grid of thousands of cases
  stays a file of one line per case:

  - ``datasets``, ``oracles``, ``settings``: the distinct dataset configs,
    oracle configs and swept settings (flattened keys, ``"oracle.noise"``);
  - ``params``: algorithm name -> the distinct parameter sets it ran with;
  - ``instances``: rows ``[instance_id, dataset, oracle, setting, trial,
    seed]`` (the middle three index the tables above);
  - ``cases``: rows ``[case_id, instance, algorithm, params]`` in grid order
    (``instance`` indexes ``instances``, ``params`` the algorithm's list).

Nothing else of the composed config is recorded: the ``algorithm`` group's
default, a base dataset or oracle that a swept name replaced, and the
scale presets did not run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .grid import Case, Instance
from .seeding import stable_hash

#: the version of run.json's layout: 2 holds the spec above (1, before issue 30: the composed config)
SCHEMA = 2
#: the experiment-level keys a spec carries (besides ``grid`` and ``targets``)
IDENTITY = ("experiment", "paper", "scale", "variant", "label", "trials", "algorithms", "config_hash", "record",
            "early_stop", "trace_metrics")


@dataclass
class SweepSpec:
    """What one sweep runs: the experiment's identity, the expanded grid and what the records keep.

    Parameters
    ----------
    experiment : str
        The experiment's name (the records' ``experiment``).
    label : str
        The results folder under ``<results>/<experiment>/``: the scale, or
        ``<scale>+<variant>``, or ``<scale>+custom-<hash>``.
    cases : list of Case
        The grid, in grid order.
    config_hash : str
        :func:`~ccexp.runner.seeding.stable_hash` of the scaled experiment
        config (every record carries it).
    paper, scale, variant, trials, record, early_stop, trace_metrics
        As the experiment config sets them.
    algorithms : list of str
        The experiment's algorithms, in its order.
    targets : dict
        ``{group: {name: _target_}}`` of every name the cases use
        (:func:`ccexp.runner.objects.run_targets`); empty: the registered objects.
    case_ids : list of str, optional
        ``[c.case_id for c in cases]``, computed when not given.
    """

    experiment: str
    label: str
    cases: list[Case] = field(repr=False)
    config_hash: str
    paper: str | None = None
    scale: str | None = None
    variant: str | None = None
    trials: int | None = None
    algorithms: list[str] = field(default_factory=list)
    record: list | None = None
    early_stop: dict | None = None
    trace_metrics: list | None = None
    targets: dict = field(default_factory=dict)
    case_ids: list[str] | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.case_ids is None:
            self.case_ids = [c.case_id for c in self.cases]
        if len(self.case_ids) != len(self.cases):
            raise ValueError(f"case_ids has {len(self.case_ids)} entries for {len(self.cases)} cases")

    @classmethod
    def of(cls, experiment: dict, cases: list[Case], label: str | None = None, targets: dict | None = None,
           case_ids: list[str] | None = None) -> SweepSpec:
        """The spec of ``cases``, the expansion of the scaled (and placed) ``experiment`` config."""
        return cls(experiment=experiment["name"], label=label or experiment.get("scale") or "paper", cases=list(cases),
                   config_hash=stable_hash(experiment), paper=experiment.get("paper"), scale=experiment.get("scale"),
                   variant=experiment.get("variant") or None, trials=experiment.get("trials"),
                   algorithms=list(experiment.get("algorithms") or dict.fromkeys(c.algorithm for c in cases)),
                   record=experiment.get("record"), early_stop=experiment.get("early_stop"),
                   trace_metrics=experiment.get("trace_metrics"), targets=dict(targets or {}), case_ids=case_ids)

    @property
    def n_cases(self) -> int:
        """The number of cases of the grid."""
        return len(self.cases)

    @property
    def instance_ids(self) -> list[str]:
        """The grid's instances, in the order of their first case."""
        return list(dict.fromkeys(self.case_instance_ids()))

    def case_instance_ids(self) -> list[str]:
        """The ``instance_id`` of each case, in grid order (hashed once per instance, or as run.json stores them)."""
        ids = getattr(self, "_iids", None)
        if ids is None:
            by_object: dict[int, str] = {}  # one hash per Instance object (expand shares them among its cases)
            ids = [by_object.setdefault(id(c.instance), c.instance.instance_id) for c in self.cases]
            self._iids = ids
        return ids

    def worker_context(self) -> dict:
        """What every task needs besides its cases (:func:`ccexp.runner.execute.run_instance`'s ``context``)."""
        return {"paper": self.paper, "scale": self.scale, "config_hash": self.config_hash,
                "early_stop": self.early_stop, "trace_metrics": self.trace_metrics, "record": self.record,
                "targets": self.targets or None}

    def to_json(self) -> dict:
        """The spec as ``run.json`` holds it (the layout of this module's docstring)."""
        # each table: canonical JSON -> (index, the value as first seen, its key order kept)
        tables: dict[str, dict[str, tuple]] = {"datasets": {}, "oracles": {}, "settings": {}}
        params: dict[str, dict[str, tuple]] = {}
        instances: dict[str, int] = {}
        inst_rows, case_rows = [], []

        def index(table: dict, value) -> int:
            return table.setdefault(json.dumps(value, sort_keys=True, default=str), (len(table), value))[0]

        for case, case_id, inst_id in zip(self.cases, self.case_ids, self.case_instance_ids()):
            inst = case.instance
            if inst_id not in instances:
                instances[inst_id] = len(instances)
                inst_rows.append([inst_id, index(tables["datasets"], inst.dataset), index(tables["oracles"], inst.oracle),
                                  index(tables["settings"], inst.setting), inst.trial, inst.seed])
            own = params.setdefault(case.algorithm, {})
            case_rows.append([case_id, instances[inst_id], case.algorithm, index(own, case.params)])
        grid = {name: [v for _, v in table.values()] for name, table in tables.items()}
        grid["params"] = {a: [v for _, v in table.values()] for a, table in params.items()}
        grid["instances"], grid["cases"] = inst_rows, case_rows
        # a _target_ without an import path (a class made in a function) builds, but is not a record
        # and only the names the cases use (not a base dataset or oracle that a swept name replaced)
        used = {"algorithm": set(params), "dataset": {d["name"] for _, d in tables["datasets"].values()},
                "oracle": {o["name"] for _, o in tables["oracles"].values()}}
        targets = {g: {n: t for n, t in names.items() if isinstance(t, str) and n in used.get(g, ())}
                   for g, names in self.targets.items()}
        return {"schema": SCHEMA, **{k: getattr(self, k) for k in IDENTITY}, "targets": targets, "grid": grid}

    @classmethod
    def from_json(cls, info: dict) -> SweepSpec:
        """The spec that ``run.json`` (``info``, schema 2) holds; ``ValueError`` if it holds none."""
        grid = info.get("grid") if isinstance(info, dict) else None
        if info.get("schema") != SCHEMA or not isinstance(grid, dict):
            raise ValueError(f"run.json of schema {info.get('schema', 1)!r} holds no run spec (schema {SCHEMA}); "
                             f"rewrite it with scripts/respec_run_json.py")
        instances = [Instance(dataset=grid["datasets"][d], oracle=grid["oracles"][o], trial=trial,
                              setting=grid["settings"][s]) for _, d, o, s, trial, _ in grid["instances"]]
        cases = [Case(info["experiment"], instances[i], a, grid["params"][a][p]) for _, i, a, p in grid["cases"]]
        spec = cls(**{k: info.get(k) for k in IDENTITY if k not in ("algorithms",)},
                   algorithms=list(info.get("algorithms") or []), cases=cases, targets=info.get("targets") or {},
                   case_ids=[row[0] for row in grid["cases"]])
        spec._iids = [grid["instances"][row[1]][0] for row in grid["cases"]]
        return spec

    def verify(self) -> None:
        """Check that every stored case and instance id is the hash of what the spec says it is.

        ``ValueError`` naming the first that is not (a spec edited by hand, or
        ids made by another hashing).  Costs a hash per case (~0.3 ms).
        """
        for case, case_id, inst_id in zip(self.cases, self.case_ids, self.case_instance_ids()):
            if case.instance.instance_id != inst_id or case.case_id != case_id:
                raise ValueError(f"{self.experiment}: case {case_id} (instance {inst_id}, {case.algorithm}) is not "
                                 f"the hash of its spec ({case.case_id}, instance {case.instance.instance_id})")


def read_spec(info: dict | None) -> SweepSpec | None:
    """The spec that a ``run.json``'s content holds, or None (no run.json, or one of schema 1)."""
    if not isinstance(info, dict) or info.get("schema") != SCHEMA or "grid" not in info:
        return None
    return SweepSpec.from_json(info)


def dumps_run_info(info: dict) -> str:
    """``run.json``'s text: indented JSON, with every row, flat list and flat mapping on one line.

    A grid of 10,000 cases is then 10,000 short lines, not 50,000.
    """
    return _dump(info, "") + "\n"


def _flat(value) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return not any(isinstance(v, (dict, list, tuple)) for v in items)


def _dump(value, pad: str) -> str:
    if isinstance(value, (dict, list, tuple)) and value and not _flat(value):
        inner = pad + "  "
        if isinstance(value, dict):
            body = ",\n".join(f"{inner}{json.dumps(str(k))}: {_dump(v, inner)}" for k, v in value.items())
            return "{\n" + body + "\n" + pad + "}"
        return "[\n" + ",\n".join(inner + _dump(v, inner) for v in value) + "\n" + pad + "]"
    return json.dumps(value, default=str)
