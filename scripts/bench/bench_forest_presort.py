"""The clustering forest with and without its per-tree sorts (issue 31: COP-RF and Forest+E2CP, same results).

    CCEXP_DATA_DIR=/path/to/datasets python scripts/bench/bench_forest_presort.py [--repeats 5] [--dataset ionosphere]

Since 2026-11-30 each tree sample's rows are ordered along every feature by
``sample_order`` (the data sorted once per forest, the pseudo points bucket
sorted, the two merged), and the root filter and the larger nodes of a tree
read their orders off it instead of sorting.  This alternates, fit by fit on
the same problem (Ionosphere by default, 100 constraints, perfect oracle),

- ``sorting``: the forest's kernels as they were (``filter_root_constraints``
  and ``grow_tree`` called without the order: every feature of every sample
  and node sorted with ``np.argsort``), and
- ``read off``: the forest as it runs now,

for COP-RF (1000 trees, f = 500, alpha = 0.5) and Forest+E2CP (1000 trees),
checks that both sides give the same labels (and COP-RF the same affinity,
bit for bit), and reports the median CPU time (``time.process_time``) per
side and COP-RF's parts (``timings_``: ``filter`` includes drawing the tree
samples and ordering them).  One warm-up fit per side first (JIT).  Writes
``results/bench/bench_forest_presort.json``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from types import SimpleNamespace

import numpy as np
from _harness import markdown_table, write_results

import ccexp
from ccexp.algorithms.constrained import _forest_kernels as K
from ccexp.algorithms.constrained import forest

#: the kernels as they were before the read-off orders: each call drops the order (its last argument)
SORTING = SimpleNamespace(**{**vars(K),
                             "filter_root_constraints": lambda *args: K.filter_root_constraints(*args[:-1]),
                             "grow_tree": lambda *args: K.grow_tree(*args[:-1])})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dataset", default="ionosphere")
    parser.add_argument("--trees", type=int, default=1000)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    ds = ccexp.load_dataset(args.dataset)
    prob = ccexp.make_problem("pairwise", ds, n_constraints=100, invalid_fraction=0.0, random_state=0)
    makers = {
        "cop_rf": lambda: ccexp.make_algorithm("cop_rf", n_trees=args.trees, n_filter=500, alpha=0.5, random_state=0),
        "forest_e2cp": lambda: ccexp.make_algorithm("forest_e2cp", n_trees=args.trees, random_state=0),
    }
    sides = {"sorting": SORTING, "read off": K}
    rows, out = [], {}
    for name, make in makers.items():
        cpu = {side: [] for side in sides}
        parts = {side: [] for side in sides}
        fits = {}
        for r in range(args.repeats + 1):  # round 0 warms both sides up; the order alternates by round
            for side in (list(sides) if r % 2 else list(sides)[::-1]):
                forest.K = sides[side]
                t0 = time.process_time()
                est = make().fit_problem(prob)
                t = time.process_time() - t0
                forest.K = K
                if r:
                    cpu[side].append(t)
                    parts[side].append(dict(getattr(est, "timings_", {})))
                fits.setdefault(side, est)
        a, b = fits["sorting"], fits["read off"]
        same = bool(np.array_equal(a.labels_, b.labels_)
                    and (not hasattr(a, "affinity_") or np.array_equal(a.affinity_, b.affinity_)))
        med = {side: statistics.median(v) for side, v in cpu.items()}
        rows.append({"method": name, "sorting (s)": f"{med['sorting']:.3f}", "read off (s)": f"{med['read off']:.3f}",
                     "ratio": f"{med['sorting'] / med['read off']:.2f}", "same result": "yes" if same else "NO"})
        out[name] = {"cpu": cpu, "median": med, "same": same,
                     "parts": {side: {k: statistics.median(p[k] for p in v) for k in v[0]} for side, v in parts.items()
                               if v and v[0]}}
        if not same:
            print(f"{name}: the two sides differ", file=sys.stderr)
    print(f"{args.dataset}, 100 constraints, {args.trees} trees; median CPU of {args.repeats} fits per side, alternated")
    print(markdown_table(rows, ["method", "sorting (s)", "read off (s)", "ratio", "same result"]))
    for side, p in out["cop_rf"]["parts"].items():
        print(f"cop_rf parts, {side}: " + ", ".join(f"{k} {v:.3f} s" for k, v in p.items()))
    write_results("bench_forest_presort", out, out_dir=args.out)
    return 0 if all(v["same"] for v in out.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
