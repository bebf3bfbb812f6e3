"""Speed of the Ukkonen (2017) baselines and of Ls-AD-VC on Food, with cblearn's t-STE beside ours.

    python scripts/bench/bench_tste.py [--repeats 5] [--peer-repeats 3]
                                       [--peers-python /tmp/peers-venv/bin/python] [--out DIR]

1. t-STE (ours: numba cost and gradient under scipy's L-BFGS-B) at n=160,
   4 dimensions, on the triplets of ``synthetic_labels(n=160, k=8)`` at
   a=0.1 (66,992 triplets) and a=1 (669,920), b=0.2 (``--k``, ``--b``; the
   instance of bench_triplets.py), each row read as t-STE's
   (i, j, k) "i closer to j than to k" (``both_anchors=False``, as cblearn
   reads it).  Targets: <= 0.5 s and <= 3 s.  Beside it cblearn 0.4's
   ``TSTE(n_components=4)`` (scipy backend) on the very same triplets,
   saved to a temporary .npy and run by ``--peers-python`` in a subprocess
   (cblearn pins numpy 1.26, so it lives in its own venv:
   ``python -m venv /tmp/peers-venv && /tmp/peers-venv/bin/pip install cblearn``).
   Both report the fraction of triplets their embedding satisfies and their
   L-BFGS iterations.  Skipped, with a note, when that interpreter is absent.
2. The two registered baselines, ``tste_dpmm`` and ``crowdclust_dpmm``, on
   an exp1 instance (n=160, k=8, b=0.2) at a=0.1 and a=1: no target, the
   per-case cost that the exp1 sweep pays.
3. Ls-AD-VC on all 250,320 Food triplets (``food100``, duplicates kept):
   target <= 0.3 s.  Needs the data under ``$CCEXP_DATA_DIR``.

Medians of ``--repeats`` timed calls after one untimed warm-up (numba
compilation or cache load); cblearn (pure numpy) is timed ``--peer-repeats``
times without warm-up.  Prints markdown tables and writes
``results/bench/bench_tste.json``; exits 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ccexp  # noqa: E402
from ccexp.algorithms.triplets.tste import satisfied_fraction, tste_embedding  # noqa: E402
from ccexp.registry import ALGORITHMS  # noqa: E402
from _harness import fmt_seconds, markdown_table, measure, verdict, write_results  # noqa: E402

TARGETS_TSTE = {0.1: 0.5, 1.0: 3.0}
TARGET_FOOD = 0.3
DEFAULT_PEERS_PYTHON = os.environ.get("CCEXP_PEERS_PYTHON", "/tmp/peers-venv/bin/python")

# Run inside the peers venv: time cblearn's TSTE on the saved triplets.
_PEER_SCRIPT = r"""
import json, sys, time
import numpy as np
import cblearn
from cblearn.embedding import TSTE
T = np.load(sys.argv[1]); n = int(sys.argv[2]); repeats = int(sys.argv[3])
runs = []
for r in range(repeats):
    est = TSTE(n_components=4, random_state=r)
    t0 = time.perf_counter()
    est.fit(T, n_objects=n)
    runs.append(time.perf_counter() - t0)
X = est.embedding_
d = lambda a, b: ((X[a] - X[b]) ** 2).sum(axis=1)
sat = float(np.mean(d(T[:, 0], T[:, 1]) < d(T[:, 0], T[:, 2])))
print(json.dumps({"version": cblearn.__version__, "numpy": np.__version__, "runs": runs,
                  "n_iter": int(est.n_iter_), "satisfied": sat, "cost": float(est.stress_)}))
"""


def _triplets(a: float, k: int = 4, b: float = 0.0, n: int = 160):
    ds = ccexp.load_dataset("synthetic_labels", n=n, k=k, random_state=0)
    return ds, ccexp.make_problem("triplets", ds, fraction=a, noise=b, random_state=0)


def run_peer(python: str, T: np.ndarray, n: int, repeats: int) -> dict | None:
    """cblearn's TSTE on ``T`` in the peers interpreter; None if it is not there."""
    if not Path(python).is_file():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "triplets.npy"
        np.save(path, T)
        proc = subprocess.run([python, "-c", _PEER_SCRIPT, str(path), str(n), str(repeats)],
                              capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"cblearn run failed:\n{proc.stderr}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["median"] = float(np.median(out["runs"]))
    return out


def bench_tste(repeats: int, peer_repeats: int, peers_python: str, k: int = 8, b: float = 0.2) -> list[dict]:
    tste_embedding(np.array([[0, 1, 2], [1, 2, 0]]), 3, 2, max_iter=2)  # compile / load cache
    rows = []
    for a, target in TARGETS_TSTE.items():
        _, prob = _triplets(a, k=k, b=b)
        T = np.asarray(prob.triplets)
        seeds = iter(range(10_000))
        m = measure(lambda: tste_embedding(T, 160, 4, random_state=next(seeds)), repeats=repeats, warmup=1)
        X, info = m["values"][-1]
        peer = run_peer(peers_python, T, 160, peer_repeats)
        rows.append({
            "a": a, "n_triplets": len(T), "median_s": m["median"], "min_s": m["min"], "max_s": m["max"],
            "n_iter": info["n_iter"], "satisfied": satisfied_fraction(X, T), "cost": info["cost"],
            "target_s": target, "pass": bool(m["median"] <= target),
            "cblearn_median_s": None if peer is None else peer["median"],
            "cblearn_n_iter": None if peer is None else peer["n_iter"],
            "cblearn_satisfied": None if peer is None else peer["satisfied"],
            "cblearn_cost": None if peer is None else peer["cost"],
            "cblearn_version": None if peer is None else peer["version"],
            "speedup": None if peer is None else peer["median"] / m["median"],
            "runs_s": m["runs"], "cblearn_runs_s": None if peer is None else peer["runs"],
        })
    return rows


def bench_baselines(repeats: int) -> list[dict]:
    rows = []
    for name in ("tste_dpmm", "crowdclust_dpmm"):
        ALGORITHMS.get(name).warmup()
        for a in (0.1, 1.0):
            ds, prob = _triplets(a, k=8, b=0.2)
            m = measure(lambda: ccexp.make_algorithm(name, random_state=0).fit_problem(prob), repeats=repeats)
            est = m["values"][-1]
            s = ccexp.score(est.labels_, ds.y)
            rows.append({"algorithm": name, "a": a, "n_triplets": len(prob.triplets), "median_s": m["median"],
                         **{f"{k}_s": float(np.median([e.timings_[k] for e in m["values"]])) for k in est.timings_},
                         "n_iter": est.n_iter_, "n_clusters": s["n_clusters"], "ari": s["ari"]})
    return rows


def bench_food(repeats: int) -> list[dict]:
    try:
        ds = ccexp.load_dataset("food100")
    except FileNotFoundError as err:
        print(f"(Food skipped: {err})")
        return []
    prob = ccexp.make_problem("recorded", ds)
    ALGORITHMS.get("ls_ad_vc").warmup()
    m = measure(lambda: ccexp.make_algorithm("ls_ad_vc").fit_problem(prob), repeats=repeats)
    est = m["values"][-1]
    return [{"n_triplets": len(prob.triplets), "median_s": m["median"], "min_s": m["min"], "max_s": m["max"],
             "vertex_cover_s": float(np.median([e.timings_["vertex_cover"] for e in m["values"]])),
             "local_search_s": float(np.median([e.timings_["local_search"] for e in m["values"]])),
             "cluster_sizes": " ".join(map(str, sorted(np.bincount(est.labels_), reverse=True))),
             "target_s": TARGET_FOOD, "pass": bool(m["median"] <= TARGET_FOOD), "runs_s": m["runs"]}]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--peer-repeats", type=int, default=3)
    ap.add_argument("--peers-python", default=DEFAULT_PEERS_PYTHON)
    ap.add_argument("--k", type=int, default=8, help="clusters of the t-STE instance (default 8)")
    ap.add_argument("--b", type=float, default=0.2, help="noise of the t-STE instance (default 0.2)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)

    t1 = bench_tste(args.repeats, args.peer_repeats, args.peers_python, args.k, args.b)
    t2 = bench_baselines(args.repeats)
    t3 = bench_food(args.repeats)

    print(f"## 1. t-STE, n=160, 4 dimensions, k={args.k}, b={args.b} (median of {args.repeats}; cblearn: "
          f"{args.peer_repeats})\n")
    if t1[0]["cblearn_median_s"] is None:
        print(f"(cblearn not run: no interpreter at {args.peers_python})\n")
    print(markdown_table([{
        "a": r["a"], "triplets": f"{r['n_triplets']:,}", "ours": fmt_seconds(r["median_s"]), "iters": r["n_iter"],
        "satisfied": f"{r['satisfied']:.4f}", "cblearn": fmt_seconds(r["cblearn_median_s"]),
        "cblearn iters": r["cblearn_n_iter"],
        "cblearn satisfied": "—" if r["cblearn_satisfied"] is None else f"{r['cblearn_satisfied']:.4f}",
        "speed-up": "—" if r["speedup"] is None else f"{r['speedup']:.1f}x",
        "target": f"<= {fmt_seconds(r['target_s'])}", "result": verdict(r["median_s"], r["target_s"]),
    } for r in t1], ["a", "triplets", "ours", "iters", "satisfied", "cblearn", "cblearn iters", "cblearn satisfied",
                     "speed-up", "target", "result"]))
    print("\n## 2. Baselines per exp1 case, n=160, k=8, b=0.2 (no target)\n")
    print(markdown_table([{
        "algorithm": r["algorithm"], "a": r["a"], "triplets": f"{r['n_triplets']:,}", "median": fmt_seconds(r["median_s"]),
        "embedding": fmt_seconds(r.get("embedding_s")), "DP mixture": fmt_seconds(r.get("dpmm_s")),
        "iters": r["n_iter"], "clusters": r["n_clusters"], "ARI": f"{r['ari']:.3f}",
    } for r in t2], ["algorithm", "a", "triplets", "median", "embedding", "DP mixture", "iters", "clusters", "ARI"]))
    if t3:
        r = t3[0]
        print("\n## 3. Ls-AD-VC on all Food triplets (duplicates kept)\n")
        print(markdown_table([{
            "triplets": f"{r['n_triplets']:,}", "median": fmt_seconds(r["median_s"]),
            "min–max": f"{fmt_seconds(r['min_s'])} – {fmt_seconds(r['max_s'])}",
            "vertex cover": fmt_seconds(r["vertex_cover_s"]), "local search": fmt_seconds(r["local_search_s"]),
            "cluster sizes": r["cluster_sizes"], "target": f"<= {fmt_seconds(r['target_s'])}",
            "result": verdict(r["median_s"], r["target_s"]),
        }], ["triplets", "median", "min–max", "vertex cover", "local search", "cluster sizes", "target", "result"]))
    path = write_results("bench_tste", {"tste": t1, "baselines": t2, "food": t3},
                         extra={"repeats": args.repeats, "peer_repeats": args.peer_repeats, "k": args.k, "b": args.b}, out_dir=args.out)
    print(f"\nwritten: {path}")
    failed = [r for r in t1 + t3 if not r["pass"]]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
