"""Rerun cells of acc_random_init (or acc_kmeans_init) with fresh seeds: ARI after 0.1 / 0.3 |E| per run.

A *cell* is one strategy x dataset x gamma.  The runner seeds a repetition
from (dataset, oracle, trial) and the algorithm from that and its name
(:mod:`ccexp.runner.seeding`), so trial ``t`` always draws the same sigma_0,
noise and choices; this script runs the same cases as ``python -m ccexp``
(:func:`ccexp.runner.execute.run_instance`, the same configs and variant)
with the trial numbers shifted by ``--offset``: fresh draws of everything,
nothing else changed.  ``--offset 0`` reruns the committed repetitions (a
check that the script is the runner).  One CSV row per run, appended as runs
finish, so an interrupted run keeps what it did.

``--kmeans-n-init N`` (acc_kmeans_init's ``authors`` variant only) changes one
setting in memory for this process: the number of initialisations of the
variant's once-per-dataset k-means on every dataset (each dataset's
``stored_kmeans_n_init`` of :mod:`ccexp.data.aronsson_arrays` by default: 1,
mushrooms 10, since 2026-11-27; 10 everywhere before, when the README's runs
with this flag were made).  Written in the CSV's ``overrides`` column.

Used for experiments/aronsson2024/README.md, "Fresh seeds on the seven
differing stored-curve cells".  Example::

    nice -n 10 python scripts/acc_fresh_seeds.py --variant authors --offset 1000 --trials 15 \\
        --cell acc_maxmin:labels_ecoli:0.2 --cell acc_maxexp:labels_mushrooms:0.4 --out /tmp/fresh.csv
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import os
import time

import numpy as np

from ccexp.runner.compose import compose_config
from ccexp.runner.config import resolve_run, with_algorithm_choice
from ccexp.runner.execute import run_instance
from ccexp.runner.spec import SweepSpec

FRACTIONS = (0.1, 0.3)


def value_at(trace: list[dict], n_edges: int, fraction: float) -> float:
    """ARI at the last trace point with at most ``fraction`` |E| queries (a run stopped earlier holds its value)."""
    best = np.nan
    for row in trace:
        if row["n_queries"] <= fraction * n_edges + 1e-9:
            best = row.get("ari", np.nan)
    return float(best)


def cell_cases(experiment: str, variant: str | None, algorithm: str, dataset: str, gamma: float,
               trials: int, max_queries: float | None, extra: list[str]):
    """The spec and cases of one cell as ``python -m ccexp`` resolves them."""
    ov = [f"experiment={experiment}", f"experiment.algorithms=[{algorithm}]",
          f"experiment.sweep.dataset.name=[{dataset}]", f"experiment.sweep.oracle.gamma=[{gamma}]",
          f"experiment.trials={trials}", *extra]
    if variant:
        ov.append(f"experiment.variant={variant}")
    if max_queries is not None:
        ov.append(f"experiment.algorithm_params.{algorithm}.max_queries={max_queries}")
    ov = with_algorithm_choice(ov)
    spec = resolve_run(compose_config(ov), ov)
    return spec, spec.cases()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experiment", default="acc_random_init")
    ap.add_argument("--variant", default="authors")
    ap.add_argument("--cell", action="append", required=True, help="algorithm:dataset:gamma (repeatable)")
    ap.add_argument("--trials", type=int, default=15)
    ap.add_argument("--offset", type=int, default=1000, help="added to every trial number (0: the committed runs)")
    ap.add_argument("--max-queries", type=float, default=None,
                    help="budget as a fraction of |E| (default: the experiment's; the curve up to it is unchanged)")
    ap.add_argument("--skip", type=int, default=0, help="leave out each cell's first SKIP repetitions (split a cell "
                    "between processes)")
    ap.add_argument("--override", action="append", default=[], help="one more runner override (repeatable)")
    ap.add_argument("--kmeans-n-init", type=int, default=None,
                    help="initialisations of the authors variant's once-per-dataset k-means, on every dataset "
                         "(default: the code's: each dataset's stored_kmeans_n_init, 1 but mushrooms' 10)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    if a.kmeans_n_init is not None:
        if a.kmeans_n_init < 1:
            ap.error(f"--kmeans-n-init must be >= 1, got {a.kmeans_n_init}")
        from dataclasses import replace

        from ccexp.algorithms.active import estimator
        from ccexp.data import aronsson_arrays

        # read at each fit and each load; this process only: the default, and every dataset's own
        estimator.AUTHORS_KMEANS["n_init"] = a.kmeans_n_init
        for name, spec in aronsson_arrays.ARRAY_SPECS.items():
            aronsson_arrays.ARRAY_SPECS[name] = replace(spec, stored_kmeans_n_init=a.kmeans_n_init)
    tag = " ".join([*a.override, *([f"kmeans_n_init={a.kmeans_n_init}"] if a.kmeans_n_init is not None else [])])
    new = not os.path.exists(a.out)
    with open(a.out, "a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(["algorithm", "dataset", "gamma", "trial", "offset", "overrides", "status", "n_queries",
                        "stop_reason", "fit_seconds", *[f"ari_at_{f:g}E" for f in FRACTIONS], "final_ari"])
        for cell in a.cell:
            algorithm, dataset, gamma = cell.split(":")
            spec, cases = cell_cases(a.experiment, a.variant, algorithm, dataset, float(gamma), a.trials,
                                     a.max_queries, a.override)
            context = {**SweepSpec.of(spec.placed_experiment(), cases, targets=spec.targets).worker_context(), "trace_metrics": ["ari"], "code_version": "acc_fresh_seeds"}
            for case in cases[a.skip:]:
                inst = dataclasses.replace(case.instance, trial=case.instance.trial + a.offset)
                shifted = dataclasses.replace(case, instance=inst)
                t0 = time.perf_counter()
                (rec,) = run_instance([shifted], context)
                trace = rec.get("_trace") or []
                n_edges = int(rec.get("problem.n_edges", 0) or 0)
                w.writerow([algorithm, dataset, gamma, inst.trial, a.offset, tag, rec.get("status"),
                            rec.get("n_queries"), rec.get("stop_reason"), round(time.perf_counter() - t0, 2),
                            *[value_at(trace, n_edges, f) if n_edges else np.nan for f in FRACTIONS],
                            rec.get("ari")])
                fh.flush()


if __name__ == "__main__":
    main()
