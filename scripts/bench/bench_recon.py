"""Speed of ReCon (Liu, Zhang and Wang 2011) and of its baselines.

    CCEXP_DATA_DIR=/path/to/datasets python scripts/bench/bench_recon.py [--repeats 5] [--out DIR] [--part fit]

1. ReCon + Euclidean ``fit_problem`` on Letters-IJLT (3,059 points) with
   3,000 random relative constraints (``relative_random``, seed 0):
   target <= 10 s (the paper: "within a few minutes").  Reports the number
   of TestCompatibility calls and the work inside them, from the
   estimator's ``counters_``.
2. The same on Letters-3000 (most of recon_runtime's time) and Digits-389
   with 3,000 constraints, and on Transfusion with
   |D| = 748 constraints (two classes: most nearest partners of a grown
   cluster are incompatible, so many TestCompatibility calls fail deep in
   the recursion): no target, for the paper-scale budget.
3. Every algorithm of ``recon_random`` on Letters-IJLT with 3,000
   constraints: no target, for comparison.
4. The agglomeration alone (``constrained_linkage``) on the Letters-IJLT,
   Letters-3000 and Transfusion cases with each TestCompatibility: peeling (the
   default, with its certificates) and the level-by-level recursion (the
   reference, and the implementation before peeling); same merges and
   calls, different work.

Medians of ``--repeats`` timed calls after one untimed warm-up (numba
compilation or cache load stays out).  Writes ``results/bench/bench_recon.json``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ccexp  # noqa: E402
from _harness import fmt_seconds, markdown_table, measure, verdict, write_results  # noqa: E402

TARGET_S = 10.0


def _case(dataset: str, n_constraints: int):
    ds = ccexp.load_dataset(dataset)
    return ds, ccexp.make_problem("relative_random", ds, n_constraints=n_constraints, random_state=0)


def _row(name, dataset, m, algorithm, repeats, target=None):
    ds, prob = _case(dataset, m)
    res = measure(lambda: ccexp.make_algorithm(algorithm, random_state=0).fit_problem(prob), repeats=repeats)
    est = res["values"][-1]
    c = getattr(est, "counters_", {})
    return {
        "what": name,
        "dataset": dataset,
        "constraints": m,
        "algorithm": algorithm,
        "median_s": res["median"],
        "min_s": res["min"],
        "max_s": res["max"],
        "target_s": target,
        "pass": None if target is None else res["median"] <= target,
        "compatibility_tests": c.get("compatibility_tests"),
        "incompatible": c.get("incompatible"),
        "forbidden": c.get("forbidden"),
        "test_levels": c.get("test_levels"),
        "test_constraint_visits": c.get("test_constraint_visits"),
        "certified": c.get("certified"),
        "f_measure": ccexp.score(est.labels_, ds.y)["f_measure"],
    }


def _kernel_row(dataset, m, compatibility_test, repeats):
    from ccexp.algorithms.relative import constrained_linkage

    _, prob = _case(dataset, m)
    X, R = prob.X, prob.relative
    res = measure(lambda: constrained_linkage(X, R, compatibility_test=compatibility_test), repeats=repeats)
    c = res["values"][-1][2]
    return {
        "dataset": dataset,
        "constraints": m,
        "compatibility_test": compatibility_test,
        "median_s": res["median"],
        "min_s": res["min"],
        "max_s": res["max"],
        "target_s": None,
        **{k: c[k] for k in ("compatibility_tests", "incompatible", "certified", "test_levels",
                             "test_constraint_visits")},
    }


def _display(rows):
    return [
        {
            **r,
            "median": fmt_seconds(r["median_s"]),
            "min–max": f"{fmt_seconds(r['min_s'])} – {fmt_seconds(r['max_s'])}",
            "target": "—" if r["target_s"] is None else f"<= {fmt_seconds(r['target_s'])}",
            "result": verdict(r["median_s"], r["target_s"]),
        }
        for r in rows
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--part", choices=("all", "fit"), default="all",
                    help="fit: rows 1-3 only (the reference recursion of row 4 takes minutes)")
    args = ap.parse_args(argv)

    t1 = [_row("target", "letters_ijlt", 3000, "recon", args.repeats, TARGET_S)]
    t2 = [_row("other data", "letters3000", 3000, "recon", args.repeats),
          _row("other data", "digits389", 3000, "recon", args.repeats),
          _row("other data", "transfusion", 748, "recon", args.repeats)]
    t3 = [_row("all schemes", "letters_ijlt", 3000, a, max(1, args.repeats // 2))
          for a in ("recon", "recon_svm", "kmeans_svm", "hierarchical", "kmeans")]
    t4 = [_kernel_row(d, m, how, args.repeats)
          for d, m in (("letters_ijlt", 3000), ("letters3000", 3000), ("transfusion", 748))
          for how in ("peel", "reference")] if args.part == "all" else []
    cols = ["dataset", "constraints", "algorithm", "median", "min–max", "target", "result", "compatibility_tests",
            "incompatible", "certified", "forbidden", "test_levels", "test_constraint_visits", "f_measure"]
    print("## 1. ReCon + Euclidean, Letters-IJLT, 3,000 random constraints\n")
    print(markdown_table(_display(t1), cols))
    print("\n## 2. ReCon + Euclidean on other data (no target)\n")
    print(markdown_table(_display(t2), cols))
    print("\n## 3. Every scheme of recon_random, Letters-IJLT, 3,000 constraints (no target)\n")
    print(markdown_table(_display(t3), ["algorithm", "median", "min–max", "f_measure"]))
    print("\n## 4. The agglomeration alone: TestCompatibility by peeling vs the level-by-level recursion\n")
    print(markdown_table(_display(t4), ["dataset", "constraints", "compatibility_test", "median", "min–max",
                                        "compatibility_tests", "incompatible", "certified", "test_levels",
                                        "test_constraint_visits"]))
    path = write_results("bench_recon", {"target": t1, "other_data": t2, "all_schemes": t3, "kernel": t4},
                         extra={"repeats": args.repeats, "warmup": 1}, out_dir=args.out)
    failed = [r for r in t1 if r["pass"] is False]
    print(f"\n{len(failed)} target(s) missed; JSON: {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
