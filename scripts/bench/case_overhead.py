"""Where a sweep task's CPU goes outside the fits, without a profiler (issue 31, item 2).

    python scripts/bench/case_overhead.py [--experiment exp1_triplets] [--tasks 40] [--trial 0]

Runs the first ``--tasks`` tasks (an instance's cases, as ``run_sweep`` hands
them to joblib) of a paper-scale experiment in this process through
``ccexp.runner.execute.run_instance``, after one untimed task (JIT
compilation, numba's cache, imports).  Each call of ``build`` (the estimator,
dataset and oracle objects through Hydra's ``instantiate``; an oracle's build
draws its supervision) and of ``score`` (ARI, AMI, pairwise F, the
supervision's own objective) is wrapped by a CPU counter
(``time.process_time``), split by what it builds; the fits' CPU is the
records' ``fit_cpu_seconds``.  Prints the share of the tasks' CPU of each
part and its milliseconds per case.

Why not cProfile: its per-call hook weighs on many small Python calls
(Hydra's and OmegaConf's) far more than on a few long kernel calls, so it
overstates the overhead; these are plain counters.  The machine may be
loaded: CPU time, not wall time.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ccexp.runner.execute as X  # noqa: E402
from ccexp.runner.compose import compose_config  # noqa: E402
from ccexp.runner.config import resolve_run, with_algorithm_choice  # noqa: E402
from ccexp.runner.spec import SweepSpec  # noqa: E402
from _harness import write_results  # noqa: E402

CPU: dict[str, float] = {}


def _counted(fn, key_of):
    def timed(*args, **kwargs):
        t0 = time.process_time()
        out = fn(*args, **kwargs)
        key = key_of(*args, **kwargs)
        CPU[key] = CPU.get(key, 0.0) + time.process_time() - t0
        return out
    return timed


def _build_key(target, params, *args, **runtime):
    """What a ``build`` call makes: an oracle gets its dataset as an argument; a dataset's config carries its
    ``name`` (an instance's dict), an estimator's parameters do not (a case's ``params``)."""
    if args:
        return "build: oracle (draws the supervision)"
    return "build: dataset" if "name" in params else "build: estimator"


@contextlib.contextmanager
def counted():
    """``run_instance``'s ``build`` and ``score`` counted into :data:`CPU` (cleared) inside the block, restored after."""
    build, score = X.build, X.score
    CPU.clear()
    X.build = _counted(build, _build_key)
    X.score = _counted(score, lambda *a, **k: "score (metrics and objective)")
    try:
        yield CPU
    finally:
        X.build, X.score = build, score


def tasks_of(experiment: str, trial: int, n_tasks: int):
    ov = with_algorithm_choice([f"experiment={experiment}", f"experiment.trials={trial + 1}"])
    spec = resolve_run(compose_config(ov), ov)
    cases = [c for c in spec.cases() if c.instance.trial == trial]
    context = SweepSpec.of(spec.placed_experiment(), cases, targets=spec.targets).worker_context()
    groups = [list(g) for _, g in itertools.groupby(cases, key=lambda c: c.instance.instance_id)]
    return groups[: n_tasks + 1], context


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experiment", default="exp1_triplets")
    ap.add_argument("--tasks", type=int, default=40, help="timed tasks (one more runs untimed first)")
    ap.add_argument("--trial", type=int, default=0)
    ap.add_argument("--out-dir", default=None, help="where the JSON goes (default results/bench/)")
    a = ap.parse_args(argv)
    if a.tasks < 1:
        raise ValueError(f"--tasks must be >= 1, got {a.tasks}")
    groups, context = tasks_of(a.experiment, a.trial, a.tasks)
    X.warm_up({c.algorithm for g in groups for c in g})
    X.run_instance(groups[0], context)  # untimed
    fits = 0.0
    with counted():
        t0 = time.process_time()
        for g in groups[1:]:
            recs = X.run_instance(g, context)
            fits += sum(r.get("fit_cpu_seconds") or 0.0 for r in recs)
        total = time.process_time() - t0
    n_cases = sum(len(g) for g in groups[1:])
    parts = {"fits (fit_problem)": fits, **CPU}
    parts["rest (records, callbacks, signature checks, ...)"] = total - sum(parts.values())
    rows = [{"part": k, "cpu_s": round(v, 3), "share_pct": round(100 * v / total, 1),
             "ms_per_case": round(1e3 * v / n_cases, 2)} for k, v in parts.items()]
    print(f"{a.experiment}, trial {a.trial}: {len(groups) - 1} tasks, {n_cases} cases, {total:.2f} s CPU\n")
    print("| part | CPU (s) | share | ms per case |\n|---|--:|--:|--:|")
    for r in rows:
        print(f"| {r['part']} | {r['cpu_s']:.2f} | {r['share_pct']:.1f} % | {r['ms_per_case']:.2f} |")
    path = write_results("case_overhead", {"parts": rows},
                         extra={"experiment": a.experiment, "tasks": len(groups) - 1, "cases": n_cases,
                                "cpu_seconds": total}, out_dir=a.out_dir)
    print(f"\nwritten {path}")


if __name__ == "__main__":
    main()
