"""Per-run time split of acc_random_init cases, as the runner runs them (issue 14, item 6).

    python scripts/bench/profile_active.py [--datasets labels_yeast labels_ecoli] [--gamma 0.2]
        [--algorithms acc_maxexp acc_uniform ...] [--max-queries 0.5] [--trials 1] [--sklearn-metrics]

For each (dataset, algorithm, trial): the fit with the runner's convergence
callback (early_stop threshold 1.0, patience 20, as the experiment), then the
per-step trace (ARI + AMI).  Reports local search, selection, oracle and
bookkeeping (the rest of the fit), convergence-callback metrics and trace
metrics, in seconds.  ``--sklearn-metrics`` times the metrics path of
before this change (scikit-learn ARI in the callback, ARI + AMI again in
the trace) for comparison.

Every case also records its process CPU time (``cpu``: fit, callback and
trace), which a shared, loaded machine inflates far less than wall time.

Then an estimate of the wall time of ``acc_random_init`` at ``scale=paper``:
every case of the grid (9 datasets x 2 gammas x 15 trials x 6 algorithms)
priced by the measured case of the same algorithm on the measured dataset
of the nearest size, scaled by (N / N_measured)^2 (one iteration is O(N^2)
and every dataset runs 500 iterations of B = |E|/1000), divided by 2 cores;
once from the wall times (``total``) and once from the CPU times (``cpu``).
Writes ``results/bench/profile_active.json``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ccexp import load_dataset  # noqa: E402
from ccexp.oracles import make_problem  # noqa: E402
from ccexp.registry import ALGORITHMS  # noqa: E402
from ccexp.runner.execute import convergence_stop, history_trace, warm_up  # noqa: E402
from _harness import markdown_table, write_results  # noqa: E402

#: the paper's datasets of acc_random_init and their sizes (Appendix B)
PAPER_SIZES = {"labels_20newsgroups": 1000, "labels_cardiotocography": 1000, "labels_cifar10": 1000,
               "labels_ecoli": 336, "labels_forest_type_mapping": 523, "labels_mnist": 1000,
               "labels_mushrooms": 1000, "labels_user_knowledge": 403, "labels_yeast": 1000}
ALGS = ["acc_maxexp", "acc_maxmin", "acc_uncertainty", "acc_frequency", "acc_uniform", "qecc"]


def sklearn_metrics_path(est, y, rule):
    """The metrics of before: scikit-learn ARI per callback, then ARI + AMI per trace step."""
    from ccexp.metrics import adjusted_mutual_info, adjusted_rand

    t0 = time.perf_counter()
    for h in est.history_:
        adjusted_rand(y, h["labels"])
    t_cb = time.perf_counter() - t0
    t0 = time.perf_counter()
    for h in est.history_:
        adjusted_rand(y, h["labels"])
        adjusted_mutual_info(y, h["labels"])
    return t_cb, time.perf_counter() - t0


def run_case(dataset, algorithm, gamma, max_queries, seed, sklearn_metrics):
    ds = load_dataset(dataset, random_state=np.random.default_rng(seed))
    problem = make_problem("pairwise_similarity", ds, gamma=gamma, random_state=np.random.default_rng(seed + 1))
    rule = {"threshold": 1.0, "patience": 20}
    est = ALGORITHMS.get(algorithm)(random_state=seed, max_queries=max_queries)
    cb = convergence_stop(ds.y, rule)
    cb_time = [0.0]

    def timed(n_queries, labels):
        t = time.perf_counter()
        out = cb(n_queries, labels)
        cb_time[0] += time.perf_counter() - t
        return out

    c0 = time.process_time()
    t0 = time.perf_counter()
    est.fit_problem(problem, callback=timed)
    fit = time.perf_counter() - t0 - cb_time[0]
    t0 = time.perf_counter()
    history_trace(est.history_, ds.y, ("ari", "ami"), ari=cb.ari)
    t_trace = time.perf_counter() - t0
    cpu = time.process_time() - c0
    t_cb = cb_time[0]
    tm = getattr(est, "timings_", {}) or {}
    cluster = tm.get("cluster", 0.0)
    select = tm.get("select", 0.0)
    row = {"dataset": dataset, "N": int(ds.y.shape[0]), "algorithm": algorithm, "seed": seed,
           "iterations": len(getattr(est, "history_", []) or []), "local search": cluster, "selection": select,
           "oracle+bookkeeping": fit - cluster - select, "callback ARI": t_cb, "trace ARI+AMI": t_trace,
           "total": fit + t_cb + t_trace, "cpu": cpu}
    if sklearn_metrics:
        # the same clusterings scored the way of before (scikit-learn, ARI twice)
        s_cb, s_trace = sklearn_metrics_path(est, ds.y, rule)
        row.update({"sklearn callback ARI": s_cb, "sklearn trace ARI+AMI": s_trace, "total before": fit + s_cb + s_trace})
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["labels_yeast", "labels_ecoli"])
    ap.add_argument("--algorithms", nargs="+", default=ALGS)
    ap.add_argument("--gamma", type=float, default=0.2)
    ap.add_argument("--max-queries", type=float, default=0.5)
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("--sklearn-metrics", action="store_true")
    ap.add_argument("--tag", default="")
    args = ap.parse_args(argv)
    warm_up(set(args.algorithms))
    rows = [run_case(d, a, args.gamma, args.max_queries, 1000 + t, args.sklearn_metrics)
            for d in args.datasets for a in args.algorithms for t in range(args.trials)]
    cols = ["local search", "selection", "oracle+bookkeeping", "callback ARI", "trace ARI+AMI", "total", "cpu"]
    if args.sklearn_metrics:
        cols += ["sklearn callback ARI", "sklearn trace ARI+AMI", "total before"]
    shown = [{**r, **{c: f"{r[c]:.2f}" for c in cols}} for r in rows]
    print(markdown_table(shown, ["dataset", "N", "algorithm", "seed", "iterations", *cols]))

    # paper-scale estimate: median measured total per (algorithm, measured dataset)
    for key in ["total", "cpu"] + (["total before"] if args.sklearn_metrics else []):
        estimate(rows, key, args)


def estimate(rows, key, args):
    measured = {}
    for r in rows:
        measured.setdefault((r["algorithm"], r["dataset"], r["N"]), []).append(r[key])
    est_core_s = 0.0
    for alg in ALGS:
        options = [(n, statistics.median(v)) for (a, d, n), v in measured.items() if a == alg]
        if not options:
            continue
        for name, n in PAPER_SIZES.items():
            n_ref, t_ref = min(options, key=lambda o: abs(o[0] - n))
            est_core_s += 2 * 15 * t_ref * (n / n_ref) ** 2
    missing = [a for a in ALGS if not any(k[0] == a for k in measured)]
    wall = est_core_s / 2
    print(f"\n[{key}] estimated acc_random_init scale=paper: {est_core_s / 3600:.2f} core-hours, {wall / 60:.0f} min wall "
          f"on 2 cores (gamma {args.gamma} costs used for both gammas; not measured: {missing or 'none'})")
    estimates = getattr(args, "_estimates", {})
    estimates[key] = {"core_seconds": est_core_s, "wall_minutes_2_cores": wall / 60}
    args._estimates = estimates
    if key == "cpu":
        import os

        write_results("profile_active" + (f"_{args.tag}" if args.tag else ""), {"cases": rows},
                      extra={"estimate_core_seconds": estimates["total"]["core_seconds"],
                             "estimate_wall_minutes_2_cores": estimates["total"]["wall_minutes_2_cores"],
                             "estimate_from_cpu_time": estimates["cpu"], "load_average": os.getloadavg(),
                             "not_measured": missing})


if __name__ == "__main__":
    main()
