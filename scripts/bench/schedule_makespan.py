"""What the order of a sweep's tasks costs: grid order against longest first, from runs already made (issue 31).

Issue 31 names "scheduling: the longest cases first, so that two workers
finish together" as a lever.  This script measures what that lever could
give before anything is changed: it replays finished results folders.

A sweep's tasks are its cases grouped by instance, in the grid's order
(:func:`ccexp.runner.sweep._by_instance`); joblib hands each free worker the
next task.  With each task's measured cost (the sum of its cases'
``fit_seconds`` and the instance's ``oracle_seconds``), that is greedy list
scheduling, whose makespan is replayed here for

- the grid's order (what ran),
- longest first (LPT, Graham 1969: within 4/3 of the optimum),

and set beside the lower bound ``max(sum / workers, longest task)`` and the
folder's measured ``wall_seconds``.  The gap between the measured wall and
the replayed makespan is what the tasks' costs leave out (loading data,
pickling, the driver's writes, other load on the machine)::

    python scripts/bench/schedule_makespan.py results/acc_parameters/paper+custom-XXXX [...] [--workers 2]

Only folders whose ``run.json`` lists its grid (``grid.instances``) and whose
records carry ``fit_seconds`` are read.
"""

from __future__ import annotations

import argparse
import heapq
import sys
from pathlib import Path

import pandas as pd

from ccexp.runner.provenance import read_run_info


def makespan(costs, workers: int) -> float:
    """Greedy list scheduling: each task, in the given order, goes to the worker that is free first.

    Returns the time at which the last worker finishes.

    >>> makespan([3, 3, 2, 2, 2], 2)
    7.0
    >>> makespan(sorted([3, 3, 2, 2, 2], reverse=True), 2)
    7.0
    >>> makespan([1, 1, 2], 2)
    3.0
    >>> makespan([2, 1, 1], 2)
    2.0
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers!r}")
    free = [0.0] * workers
    for c in costs:
        heapq.heappush(free, heapq.heappop(free) + float(c))
    return max(free)


def task_costs(folder: Path) -> tuple[pd.Series, dict]:
    """Each task's measured cost, in grid order, and the folder's ``run.json``."""
    run = read_run_info(folder / "run.json") or {}  # the runner's own reader: None when absent or unreadable
    order = [inst[0] for inst in run.get("grid", {}).get("instances", [])]
    if not order:
        raise ValueError(f"folder: {folder}/run.json is absent, unreadable or lists no grid instances")
    rec = pd.read_parquet(folder / "records.parquet", columns=["instance_id", "fit_seconds", "oracle_seconds"])
    per = rec.groupby("instance_id").agg(fit=("fit_seconds", "sum"), oracle=("oracle_seconds", "first"))
    cost = per["fit"] + per["oracle"].fillna(0.0)
    missing = set(order) - set(cost.index)
    if missing:
        raise ValueError(f"folder: {folder} has no records for {len(missing)} of the grid's {len(order)} instances")
    return cost.reindex(order), run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+", type=Path, help="finished results folders (records.parquet + run.json)")
    ap.add_argument("--workers", type=int, default=2, help="workers to replay (default 2, this machine's cores)")
    args = ap.parse_args(argv)
    print("| experiment | tasks | summed cost (s) | longest task (s) | lower bound (s) | grid order (s) "
          "| longest first (s) | gain | measured wall (s), its workers |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for folder in args.folders:
        cost, run = task_costs(folder)
        bound = max(cost.sum() / args.workers, cost.max())
        grid = makespan(cost.to_numpy(), args.workers)
        lpt = makespan(sorted(cost.to_numpy(), reverse=True), args.workers)
        jobs = run.get("runner", {}).get("n_jobs")
        print(f"| {run['experiment']} | {len(cost)} | {cost.sum():.0f} | {cost.max():.1f} | {bound:.0f} | {grid:.0f} "
              f"| {lpt:.0f} | {100 * (grid - lpt) / grid:.1f} % | {run.get('wall_seconds', float('nan')):.0f}, {jobs} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
