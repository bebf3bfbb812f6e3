"""Estimate the wall time of a cross_supervision grid from bench_cross.py's CPU times.

    python scripts/bench/estimate_cross.py /tmp/bench_cross.csv [--scale paper] [--workers 2]

Model: each case costs its reader's measured CPU time (plus its instance's
oracle CPU time once), interpolated linearly in the budget between the two
benchmarked budgets (the smaller one's time below it) and linearly in n
between the benchmarked datasets; beyond the largest benchmarked n the time
grows as n^2 (conservative for the readers measured only on small data).  The
total is divided by the workers; CPU time, not wall time, so the estimate
is that of an idle machine.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from ccexp.runner.config import experiment_cases


def _interp(x, xs, ys, power=0.0):
    xs, ys = np.asarray(xs, float), np.asarray(ys, float)
    order = np.argsort(xs)
    xs, ys = xs[order], ys[order]
    if power and x > xs[-1]:
        return float(ys[-1] * (x / xs[-1]) ** power)
    return float(np.interp(x, xs, ys))


def estimate(bench: pd.DataFrame, scale: str = "paper") -> pd.DataFrame:
    _, cases = experiment_cases("cross_supervision", scale)
    sizes = {"iris": 150, "wine": 178, "ecoli": 336, "glass": 214, "segmentation": 210, "synthetic_blobs": 500,
             "mnist_embedding": 1000, "cifar10_embedding": 1000}

    def cost(oracle, algorithm, n, budget, column):
        b = bench[(bench["oracle"] == oracle) & (bench["algorithm"] == algorithm)] if algorithm else \
            bench[bench["oracle"] == oracle].drop_duplicates(["n", "budget"])
        per_n = []
        for nn, g in b.groupby("n"):
            if budget is None or g["budget"].isna().all():
                per_n.append((nn, float(g[column].mean())))
            else:
                per_n.append((nn, _interp(budget, g["budget"], g[column])))
        return _interp(n, [p[0] for p in per_n], [p[1] for p in per_n], power=2.0)

    rows, seen = [], set()
    for c in cases:
        o, d = c.instance.oracle, c.instance.dataset["name"]
        n, budget = sizes[d], o.get("budget")
        rows.append({"dataset": d, "oracle": o["name"], "algorithm": c.algorithm,
                     "cpu": cost(o["name"], c.algorithm, n, budget, "fit_cpu")})
        if c.instance.instance_id not in seen:
            seen.add(c.instance.instance_id)
            rows.append({"dataset": d, "oracle": o["name"], "algorithm": "(oracle)",
                         "cpu": cost(o["name"], None, n, budget, "oracle_cpu")})
    return pd.DataFrame(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench")
    parser.add_argument("--scale", default="paper")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    est = estimate(pd.read_csv(args.bench), args.scale)
    by = est.groupby(["oracle", "algorithm"])["cpu"].sum().sort_values(ascending=False)
    print(by.round(0).to_string())
    print(est.groupby("dataset")["cpu"].sum().round(0).to_string())
    total = est["cpu"].sum()
    print(f"{args.scale}: {len(est)} rows, {total:.0f} CPU s, {total / args.workers / 60:.1f} min on {args.workers} workers")


if __name__ == "__main__":
    main()
