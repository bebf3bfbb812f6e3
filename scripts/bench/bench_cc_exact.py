"""Exact correlation clustering (ccexp.cc.exact): HiGHS vs CP-SAT, and the reach in n.

Sections (choose with ``--part``):

``solvers``  the same instances through both solvers, lazy and all-triangle
             models: n = 40 items, 2,000 triplets (k = 4, b = 0.1), as the
             Definition-2 graph of all triplets and as s(f, T); Gionis'
             distances of 8 noisy clusterings of 40 items.  Target: proven
             optimal in <= 60 s on the triplet instance.
``reach``    the largest n proven within the time limit (default 600 s), for
             a growing series of instances of one kind (``--kind``): the
             triplet graph at a = 0.1 or s(f, T) with |T| = 2,000 (n / 40)^2.
``lp``       Algorithm 1's LP (triplet_approx_lp) at n = 160, k = 4, a = 0.1,
             b = 0.1.  Target: <= 120 s.

Each timing is one run (a proof takes seconds to minutes; the machine is
shared): the load average is printed with the results.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import fmt_seconds, markdown_table, verdict, write_results  # noqa: E402

import ccexp  # noqa: E402
from ccexp.algorithms.triplets import triplet_cc_instance  # noqa: E402
from ccexp.cc.exact import PairObjective, cc_exact  # noqa: E402


def triplet_problem(n, m=None, a=None, b=0.1, k=4, seed=0):
    ds = ccexp.load_dataset("synthetic_labels", n=n, k=k, random_state=seed)
    frac = a if a is not None else min(1.0, m / (n * (n - 1) * (n - 2) / 6))
    return ds, ccexp.make_problem("triplets", ds, fraction=frac, noise=b, random_state=seed)


def objective_of(kind, prob):
    if kind == "graph":
        return PairObjective.from_graph(triplet_cc_instance(prob.triplets, prob.n_items))
    return PairObjective.from_triplets(prob.triplets, prob.n_items)


def heuristic(prob):
    return ccexp.make_algorithm("ls_ad_vc", random_state=0).fit_problem(prob).labels_


def gionis_objective(n=40, m=8, k=4, flip=0.3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    C = np.array([np.where(rng.random(n) < flip, rng.integers(0, k + 2, size=n), y) for _ in range(m)])
    X = (C[:, :, None] != C[:, None, :]).mean(axis=0)
    return PairObjective.from_distances(X)


def row(name, solver, triangles, res, target=None):
    return {
        "instance": name, "solver": solver, "triangles": triangles,
        "time": fmt_seconds(res.time), "seconds": round(res.time, 3),
        "optimal": res.optimal, "objective": res.objective, "lower_bound": round(res.lower_bound, 4),
        "gap": f"{res.gap:.2%}", "rounds": res.rounds, "model_triangles": res.n_triangles,
        "target": verdict(res.time if res.optimal else None, target) if target else "—",
    }


def part_solvers(limit):
    rows = []
    _, prob = triplet_problem(40, m=2000)
    init = heuristic(prob)
    inst = [
        ("triplets n=40 |T|=2000, Definition-2 graph", objective_of("graph", prob), init, 60.0),
        ("triplets n=40 |T|=2000, s(f,T)", objective_of("s", prob), init, 60.0),
        ("Gionis X_uv n=40, 8 clusterings", gionis_objective(), None, None),
    ]
    for name, obj, labels, target in inst:
        for solver in ("highs", "cpsat"):
            for tri in ("lazy", "all"):
                res = cc_exact(obj, time_limit=limit, solver=solver, triangles=tri, initial_labels=labels)
                rows.append(row(name, solver, tri, res, target))
                print(markdown_table(rows[-1:], list(rows[-1])), flush=True)
    return rows


def part_reach(kind, solver, limit, ns, a=0.1, b=0.1):
    rows = []
    for n in ns:
        if kind == "graph":
            _, prob = triplet_problem(n, a=a, b=b)
        else:
            _, prob = triplet_problem(n, m=int(round(2000 * (n / 40) ** 2)), b=b)
        obj = objective_of(kind, prob)
        res = cc_exact(obj, time_limit=limit, solver=solver, initial_labels=heuristic(prob))
        r = row(f"{kind} n={n} b={b} |T|={len(prob.triplets)}", solver, "lazy", res)
        rows.append(r)
        print(markdown_table([r], list(r)), flush=True)
        if not res.optimal:
            break
    return rows


def part_lp(repeats):
    rows = []
    ds, prob = triplet_problem(160, a=0.1, b=0.1)
    for _ in range(repeats):
        t0 = time.perf_counter()
        est = ccexp.make_algorithm("triplet_approx_lp").fit_problem(prob)
        sec = time.perf_counter() - t0
        ref = ccexp.make_algorithm("triplet_approx", random_state=0).fit_problem(prob)
        rows.append({
            "instance": f"n=160 k=4 a=0.1 b=0.1 |T|={len(prob.triplets)}", "seconds": round(sec, 2),
            "lp_seconds": round(est.timings_["lp"], 2), "lp_bound": est.lp_bound_, "lp_optimal": est.lp_optimal_,
            "cc_cost": est.cc_cost_, "cc_cost_triplet_approx": ref.cc_cost_,
            "ari": ccexp.score(est.labels_, ds.y)["ari"], "lp_rounds": est.record_["lp_rounds"],
            "lp_triangles": est.record_["lp_triangles"], "target": verdict(sec, 120.0),
        })
        print(markdown_table(rows[-1:], list(rows[-1])), flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["solvers", "reach", "lp"], required=True)
    ap.add_argument("--kind", choices=["graph", "s"], default="graph")
    ap.add_argument("--solver", choices=["highs", "cpsat"], default="highs")
    ap.add_argument("--limit", type=float, default=None, help="seconds per solve (solvers: 60, reach: 600)")
    ap.add_argument("--n", type=int, nargs="+", default=None)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--a", type=float, default=0.1, help="reach, graph: the fraction of 3-sets")
    ap.add_argument("--b", type=float, default=0.1, help="reach: the noise")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")
    if args.part == "solvers":
        rows = part_solvers(args.limit or 60.0)
    elif args.part == "reach":
        ns = args.n or ([160, 200, 240, 280, 320] if args.kind == "graph" else [16, 20, 24, 28, 32, 40])
        rows = part_reach(args.kind, args.solver, args.limit or 600.0, ns, a=args.a, b=args.b)
    else:
        rows = part_lp(args.repeats)
    write_results(f"bench_cc_exact_{args.part}", {args.part: rows},
                  extra={"loadavg_start": load, "loadavg_end": os.getloadavg()}, out_dir=args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
