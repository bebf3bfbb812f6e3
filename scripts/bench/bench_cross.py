"""Per-case times of the cross-supervision study, to size its paper grid (issue 15: <= 60 min on 2 cores).

For each dataset and budget, one instance per kind (eps = 0.1) and every
reader of that kind, timed after a warm-up (numba kernels compiled or
loaded first); the active readers run to the largest budget.  Prints one
line per (dataset, kind, budget, reader) and writes a csv:

    python scripts/bench/bench_cross.py --datasets iris mnist_embedding --budgets 1 20 --out /tmp/bench_cross.csv

Besides wall time, each line has the reader's CPU time (``time.process_time``,
one thread: BLAS and numba are held to one thread as in the runner's joblib
workers), which a loaded shared machine inflates far less than wall time;
the load average is printed with the results.
"""

from __future__ import annotations

import argparse
import os
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pandas as pd

from ccexp import load_dataset, make_algorithm
from ccexp.oracles import make_problem
from ccexp.registry import ALGORITHMS

READERS = {
    "cross_triplets": ["ls_ad_vc", "triplet_approx", "tste_dpmm", "recon_triplets"],
    "cross_pairwise": ["cop_kmeans", "cop_rf", "e2cp", "spectral_learning"],
    "cross_active_pairs": ["cop_kmeans", "cop_rf", "e2cp", "spectral_learning"],
    "cross_features": ["kmeans", "spectral"],
    "cross_similarity": ["acc_maxmin", "acc_maxexp", "acc_uniform"],
}
PARAMS = {"cop_rf": {"n_trees": 100, "n_filter": 50}}  # the paper preset's


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["iris", "mnist_embedding"])
    parser.add_argument("--budgets", nargs="+", type=float, default=[1.0, 20.0])
    parser.add_argument("--eps", type=float, default=0.1)
    parser.add_argument("--out", default="bench_cross.csv")
    parser.add_argument("--skip", nargs="*", default=[], help="readers not to run")
    args = parser.parse_args(argv)
    for a in {a for v in READERS.values() for a in v}:
        ALGORITHMS.get(a).warmup()
    rows = []
    for name in args.datasets:
        ds = load_dataset(name, random_state=0)
        n = ds.n_items
        for oracle, readers in READERS.items():
            budgets = [None] if oracle in ("cross_features", "cross_similarity") else args.budgets
            for b in budgets:
                kw = {} if oracle == "cross_features" else {"eps": args.eps}
                if b is not None:
                    kw["budget"] = b
                t0, c0 = time.perf_counter(), time.process_time()
                problem = make_problem(oracle, ds, random_state=1, **kw)
                t_oracle, c_oracle = time.perf_counter() - t0, time.process_time() - c0
                for a in (a for a in readers if a not in args.skip):
                    params = dict(PARAMS.get(a, {}))
                    if a.startswith("acc_"):
                        params["max_queries"] = int(round(max(args.budgets) * n))
                    t0, c0 = time.perf_counter(), time.process_time()
                    make_algorithm(a, random_state=0, **params).fit_problem(problem)
                    row = {"dataset": name, "n": n, "oracle": oracle, "budget": b, "algorithm": a,
                           "oracle_seconds": t_oracle, "oracle_cpu": c_oracle, "fit_seconds": time.perf_counter() - t0,
                           "fit_cpu": time.process_time() - c0,
                           "load1": os.getloadavg()[0]}
                    rows.append(row)
                    print(row, flush=True)
                    pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
