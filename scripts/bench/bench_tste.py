"""Speed of the Ukkonen (2017) baselines and of Ls-AD-VC on Food, with cblearn's t-STE beside ours.

    python scripts/bench/bench_tste.py [--repeats 5] [--part all|tste|floor|baselines]
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

Row 1 alternates the two sides call by call (issue 31): for each of
``--repeats`` + 1 standard-normal starts X0 (the first call of each side is
an untimed warm-up: numba cache load, cblearn's imports), our
``tste_embedding(T, 160, 4, init=X0)`` and cblearn's
``TSTE(n_components=4).fit(T, init=X0, n_objects=160)`` run one after the
other, in alternating order, cblearn in a peers process kept running (its
time is taken inside that process, around ``fit``; one BLAS thread, as
ours, unless ``--peer-threads``).  Both are L-BFGS-B
(scipy's, default tolerances, at most 1000 iterations) on the same cost, so
from the same start they should take the same iterations to the same cost;
the table shows both.  Medians and the ratio of the medians.  ``--part
tste`` runs row 1 only, ``--part baselines`` row 2 only.  Rows 2-3: medians of ``--repeats`` timed calls
after one untimed warm-up.  Prints markdown tables and writes
``results/bench/bench_tste.json``; exits 1 if a target is missed.

``--part floor`` runs row 1, then asks how fast a fit could be while its
result stays bit for bit the same (issue 31: "a speed-up never changes a
result"; the exp1 records hold t-STE's embeddings).  Two parts of a fit
cannot go:
(i) the libm calls of every evaluation: one ``log`` per triplet, whose
values are added to the cost in triplet order (a vector log or a
reordering changes the last bits, and with them L-BFGS-B's path), timed as
those very logs of the kernel's own arguments from a contiguous array (no
table look-ups) summed in order; and the ``log1p`` and two ``exp`` per item
pair of the kernel's tables and gradient weights;
(ii) scipy's L-BFGS-B itself: timed by replaying the fit, the (cost,
gradient) values our kernel returned, in order, to ``minimize`` (the same
iterates, since the values are the same; checked).
The floor of a fit is evaluations x (i) + (ii); beside it the budget that
100x cblearn leaves (cblearn's CPU time / 100, from row 1).  CPU times,
medians of ``--repeats`` after a warm-up.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import math

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ccexp  # noqa: E402
from ccexp.algorithms.triplets.tste import satisfied_fraction, tste_embedding  # noqa: E402
from ccexp.registry import ALGORITHMS  # noqa: E402
from _harness import fmt_seconds, markdown_table, measure, verdict, write_results  # noqa: E402

TARGETS_TSTE = {0.1: 0.5, 1.0: 3.0}
TARGET_FOOD = 0.3
DEFAULT_PEERS_PYTHON = os.environ.get("CCEXP_PEERS_PYTHON", "/tmp/peers-venv/bin/python")

# Run inside the peers venv: a server that times cblearn's TSTE from the starts it is sent.
_PEER_SCRIPT = r"""
import json, sys, time
import numpy as np
import cblearn
from cblearn.embedding import TSTE
T = np.load(sys.argv[1]); n = int(sys.argv[2])
d = lambda X, a, b: ((X[a] - X[b]) ** 2).sum(axis=1)
print(json.dumps({"version": cblearn.__version__, "numpy": np.__version__}), flush=True)
for line in sys.stdin:
    X0 = np.load(line.strip())
    est = TSTE(n_components=X0.shape[1])
    t0, c0 = time.perf_counter(), time.process_time()
    est.fit(T, init=X0, n_objects=n)
    sec, cpu = time.perf_counter() - t0, time.process_time() - c0
    X = est.embedding_
    sat = float(np.mean(d(X, T[:, 0], T[:, 1]) < d(X, T[:, 0], T[:, 2])))
    print(json.dumps({"seconds": sec, "cpu": cpu, "n_iter": int(est.n_iter_), "satisfied": sat, "cost": float(est.stress_)}),
          flush=True)
"""


def _triplets(a: float, k: int = 4, b: float = 0.0, n: int = 160):
    ds = ccexp.load_dataset("synthetic_labels", n=n, k=k, random_state=0)
    return ds, ccexp.make_problem("triplets", ds, fraction=a, noise=b, random_state=0)


class Peer:
    """cblearn's TSTE in the peers interpreter, kept running: one ``fit`` per :meth:`run` call."""

    def __init__(self, python: str, T: np.ndarray, n: int, tmp: Path, threads: int = 1):
        self.tmp = tmp
        np.save(tmp / "triplets.npy", T)
        env = dict(os.environ)
        if threads:  # as ours, which runs L-BFGS-B under threadpool_limits(1)
            env.update({v: str(threads) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
        self.proc = subprocess.Popen([python, "-c", _PEER_SCRIPT, str(tmp / "triplets.npy"), str(n)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.meta = json.loads(self.proc.stdout.readline())

    def run(self, X0: np.ndarray) -> dict:
        path = self.tmp / "init.npy"
        np.save(path, X0)
        self.proc.stdin.write(f"{path}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the cblearn process ended early (see its stderr above)")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def bench_tste(repeats: int, peers_python: str, k: int = 8, b: float = 0.2, peer_threads: int = 1,
               fractions=tuple(TARGETS_TSTE)) -> list[dict]:
    """Ours and cblearn's TSTE alternated call by call: the same triplets and, per call, the same start."""
    tste_embedding(np.array([[0, 1, 2], [1, 2, 0]]), 3, 2, max_iter=2)  # compile / load cache
    have_peer = Path(peers_python).is_file()
    rows = []
    for a in fractions:
        target = TARGETS_TSTE.get(a)
        _, prob = _triplets(a, k=k, b=b)
        T = np.asarray(prob.triplets)
        n, d = 160, 4
        # one standard-normal start per call, handed to both sides (``init``)
        starts = [np.random.default_rng(r).standard_normal((n, d)) for r in range(repeats + 1)]
        ours, theirs = [], []
        with tempfile.TemporaryDirectory() as tmp:
            peer = Peer(peers_python, T, n, Path(tmp), peer_threads) if have_peer else None
            for r, X0 in enumerate(starts):
                def run_ours():
                    t0, c0 = time.perf_counter(), time.process_time()
                    X, info = tste_embedding(T, n, d, init=X0)
                    return {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0, "n_iter": info["n_iter"], "cost": info["cost"],
                            "satisfied": satisfied_fraction(X, T)}
                sides = [("ours", run_ours)] + ([("cblearn", lambda: peer.run(X0))] if peer else [])
                for name, fn in sides if r % 2 == 0 else sides[::-1]:
                    out = fn()
                    if r > 0:  # call 0 of each side is the untimed warm-up
                        (ours if name == "ours" else theirs).append(out)
            meta = peer.meta if peer else None
            if peer:
                peer.close()
        med = float(np.median([o["seconds"] for o in ours]))
        pmed = float(np.median([o["seconds"] for o in theirs])) if theirs else None
        cmed = float(np.median([o["cpu"] for o in ours]))
        pcmed = float(np.median([o["cpu"] for o in theirs])) if theirs else None
        rows.append({
            "a": a, "n_triplets": len(T), "median_s": med, "min_s": min(o["seconds"] for o in ours),
            "max_s": max(o["seconds"] for o in ours),
            "n_iter": [o["n_iter"] for o in ours], "satisfied": float(np.median([o["satisfied"] for o in ours])),
            "cost": [o["cost"] for o in ours], "target_s": target, "pass": None if target is None else bool(med <= target),
            "cblearn_median_s": pmed,
            "cblearn_n_iter": [o["n_iter"] for o in theirs] if theirs else None,
            "cblearn_satisfied": float(np.median([o["satisfied"] for o in theirs])) if theirs else None,
            "cblearn_cost": [o["cost"] for o in theirs] if theirs else None,
            "cblearn_version": None if meta is None else meta["version"],
            "speedup": None if pmed is None else pmed / med,
            "speedups": [t["seconds"] / o["seconds"] for o, t in zip(ours, theirs)] if theirs else None,
            "cpu_s": cmed, "cblearn_cpu_s": pcmed, "cpu_speedup": None if pcmed is None else pcmed / cmed,
            "runs_s": [o["seconds"] for o in ours], "cblearn_runs_s": [o["seconds"] for o in theirs] or None,
            "cblearn_cpu_runs_s": [o["cpu"] for o in theirs] or None,
        })
    return rows


@njit(cache=False)
def _kernel_arguments(X, pairs, alpha):
    """The argument of every ``log`` of one evaluation of ``tste_cost_grad_pairs`` (not both anchors), in order."""
    n, d = X.shape
    expo = (alpha + 1.0) / 2.0
    kern = np.empty((n, n))
    for i in range(n):
        kern[i, i] = 1.0
        for j in range(i + 1, n):
            d2 = 0.0
            for s in range(d):
                a = X[i, s] - X[j, s]
                d2 += a * a
            kv = math.exp(-expo * math.log1p(d2 / alpha))
            kern[i, j] = kv
            kern[j, i] = kv
    kf = kern.ravel()
    out = np.empty(pairs.shape[0])
    for t in range(pairs.shape[0]):
        out[t] = kf[pairs[t, 0]] + kf[pairs[t, 1]]
    return out


@njit(cache=False)
def _logs_in_order(args):
    """sum of log(args[t]) in order: the libm logs and the serial sum every bit-identical evaluation pays."""
    total = 0.0
    for t in range(args.shape[0]):
        total += math.log(args[t])
    return total


@njit(cache=False)
def _table_transcendentals(X, alpha):
    """The libm calls of one evaluation's n x n tables: log1p and exp of each pair, exp of its gradient weight."""
    n, d = X.shape
    expo = (alpha + 1.0) / 2.0
    power = 1.0 / expo
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d2 = 0.0
            for s in range(d):
                a = X[i, s] - X[j, s]
                d2 += a * a
            lk = -expo * math.log1p(d2 / alpha)
            total += math.exp(lk) + math.exp(lk * power)
    return total


def _cpu_median(fn, repeats: int) -> float:
    """Median CPU seconds of ``repeats`` calls after one untimed call."""
    return measure(fn, repeats=repeats, clock=time.process_time)["median"]


def _recorded_fit(T, pairs, X0, alpha):
    """tste_embedding's L-BFGS-B fit from ``X0``, with every (x, cost, gradient) the kernel returned, in order."""
    from scipy.optimize import minimize
    from threadpoolctl import threadpool_limits

    from ccexp.algorithms.triplets import _tste_kernels as TK

    n, d = X0.shape
    grad = np.empty((n, d))
    seen = []

    def fun(x):
        cost = TK.tste_cost_grad_pairs(x.reshape(n, d), T, alpha, False, grad, 1.0, pairs)
        seen.append((x.copy(), cost, grad.ravel().copy()))
        return cost, grad.ravel().copy()

    with threadpool_limits(limits=1, user_api="blas"):
        res = minimize(fun, X0.ravel(), jac=True, method="L-BFGS-B", options={"maxiter": 1000})
    X_ref, _ = tste_embedding(T, n, d, init=X0)
    if not np.array_equal(res.x.reshape(n, d), X_ref):
        raise AssertionError("the recorded fit is not tste_embedding's")
    return res.x, seen


def _replay(X0, seen, check=False):
    """L-BFGS-B fed the recorded values in order: its own time (the same iterates; ``check`` asserts so)."""
    from scipy.optimize import minimize
    from threadpoolctl import threadpool_limits

    it = iter(seen)

    def f(x):
        x_rec, cost, g = next(it)
        if check and not np.array_equal(x, x_rec):
            raise AssertionError("the replay took another path")
        return cost, g.copy()

    with threadpool_limits(limits=1, user_api="blas"):
        return minimize(f, X0.ravel(), jac=True, method="L-BFGS-B", options={"maxiter": 1000})


def bench_floor(rows_tste: list[dict], repeats: int, k: int = 8, b: float = 0.2) -> list[dict]:
    """The least CPU time a bit-identical t-STE fit can take (logs + L-BFGS-B), beside 100x cblearn's budget.

    Per timed start of row 1 (seeds 1..repeats, the starts both sides were timed from): the floor of
    that fit, evaluations x the logs of one evaluation + L-BFGS-B's replay, against cblearn's CPU
    time from the same start; medians over the starts.
    """
    from ccexp.algorithms.triplets import _tste_kernels as TK

    out = []
    for row in rows_tste:
        a = row["a"]
        _, prob = _triplets(a, k=k, b=b)
        T = np.asarray(prob.triplets, dtype=np.int64)
        n, d, alpha = 160, 4, 3.0
        pairs = TK.pair_indices(T, n, False)
        grad = np.empty((n, d))
        starts = [np.random.default_rng(r).standard_normal((n, d)) for r in range(1, repeats + 1)]
        args = _kernel_arguments(starts[0], pairs, alpha)
        t_logs = _cpu_median(lambda: _logs_in_order(args), repeats)
        t_table = _cpu_median(lambda: _table_transcendentals(starts[0], alpha), repeats)
        t_kernel = _cpu_median(lambda: TK.tste_cost_grad_pairs(starts[0], T, alpha, False, grad, 1.0, pairs), repeats)
        evals, replays, floors = [], [], []
        for X0 in starts:
            x_end, seen = _recorded_fit(T, pairs, X0, alpha)
            if not np.array_equal(_replay(X0, seen, check=True).x, x_end):
                raise AssertionError("the replay ended elsewhere")
            t_replay = _cpu_median(lambda: _replay(X0, seen), 3)
            evals.append(len(seen))
            replays.append(t_replay)
            floors.append(len(seen) * (t_logs + t_table) + t_replay)
        theirs = row.get("cblearn_cpu_runs_s")
        ratios = None if not theirs else [c / f for c, f in zip(theirs, floors)]
        out.append({"a": a, "n_triplets": len(T), "n_evals": evals, "fit_cpu_s": row["cpu_s"],
                    "kernel_per_eval_s": t_kernel, "logs_per_eval_s": t_logs, "table_per_eval_s": t_table,
                    "lbfgsb_replay_s": float(np.median(replays)), "floor_s": float(np.median(floors)),
                    "floors_s": floors, "cblearn_cpu_s": row["cblearn_cpu_s"],
                    "budget_100x_s": None if row["cblearn_cpu_s"] is None else row["cblearn_cpu_s"] / 100.0,
                    "ratio_at_floor": None if ratios is None else float(np.median(ratios)),
                    "ratios_at_floor": ratios})
    return out


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
    ap.add_argument("--part", choices=["all", "tste", "floor", "baselines"], default="all",
                    help="'tste': row 1 only; 'floor': row 1 and the floor of a bit-identical fit; 'baselines': row 2 only")
    ap.add_argument("--fractions", default="0.1,1.0", help="fractions a of row 1 (default 0.1,1.0)")
    ap.add_argument("--peers-python", default=DEFAULT_PEERS_PYTHON)
    ap.add_argument("--peer-threads", type=int, default=1,
                    help="BLAS/OpenMP threads of the cblearn process (default 1, as ours; 0 = its default)")
    ap.add_argument("--k", type=int, default=8, help="clusters of the t-STE instance (default 8)")
    ap.add_argument("--b", type=float, default=0.2, help="noise of the t-STE instance (default 0.2)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)

    t1 = [] if args.part == "baselines" else bench_tste(
        args.repeats, args.peers_python, args.k, args.b, args.peer_threads, tuple(float(a) for a in args.fractions.split(",")))
    t_floor = bench_floor(t1, args.repeats, args.k, args.b) if args.part == "floor" else []
    t2 = bench_baselines(args.repeats) if args.part in ("all", "baselines") else []
    t3 = bench_food(args.repeats) if args.part == "all" else []

    print(f"## 1. t-STE, n=160, 4 dimensions, k={args.k}, b={args.b} (median of {args.repeats}; cblearn: "
          f"alternated call by call, same start per call)\n")
    if t1 and t1[0]["cblearn_median_s"] is None:
        print(f"(cblearn not run: no interpreter at {args.peers_python})\n")
    print(markdown_table([{
        "a": r["a"], "triplets": f"{r['n_triplets']:,}", "ours": fmt_seconds(r["median_s"]),
        "iters": " ".join(map(str, r["n_iter"])),
        "satisfied": f"{r['satisfied']:.4f}", "cblearn": fmt_seconds(r["cblearn_median_s"]),
        "cblearn iters": "—" if r["cblearn_n_iter"] is None else " ".join(map(str, r["cblearn_n_iter"])),
        "cblearn satisfied": "—" if r["cblearn_satisfied"] is None else f"{r['cblearn_satisfied']:.4f}",
        "speed-up": "—" if r["speedup"] is None else f"{r['speedup']:.1f}x",
        "ours CPU": fmt_seconds(r["cpu_s"]), "cblearn CPU": fmt_seconds(r["cblearn_cpu_s"]),
        "CPU speed-up": "—" if r["cpu_speedup"] is None else f"{r['cpu_speedup']:.1f}x",
        "target": "—" if r["target_s"] is None else f"<= {fmt_seconds(r['target_s'])}",
        "result": verdict(r["median_s"], r["target_s"]),
    } for r in t1], ["a", "triplets", "ours", "iters", "satisfied", "cblearn", "cblearn iters", "cblearn satisfied",
                     "speed-up", "ours CPU", "cblearn CPU", "CPU speed-up", "target", "result"]))
    for r in t1:
        if r["cblearn_cost"] is not None:
            rel = max(abs(a - b) / abs(b) for a, b in zip(r["cost"], r["cblearn_cost"]))
            print(f"a={r['a']}: per-call ratios {' '.join(f'{x:.1f}' for x in r['speedups'])}; "
                  f"largest relative difference of the final costs {rel:.2e}")
    if t_floor:
        print("\n## The floor of a bit-identical fit (CPU, one thread; medians over row 1's timed starts)\n")
        print(markdown_table([{
            "a": r["a"], "triplets": f"{r['n_triplets']:,}", "evaluations": " ".join(map(str, r["n_evals"])),
            "fit": fmt_seconds(r["fit_cpu_s"]), "kernel / evaluation": fmt_seconds(r["kernel_per_eval_s"]),
            "logs / evaluation": fmt_seconds(r["logs_per_eval_s"]),
            "tables' log1p, exp / evaluation": fmt_seconds(r["table_per_eval_s"]), "L-BFGS-B (replay)": fmt_seconds(r["lbfgsb_replay_s"]),
            "floor": fmt_seconds(r["floor_s"]), "cblearn": fmt_seconds(r["cblearn_cpu_s"]),
            "100x budget": fmt_seconds(r["budget_100x_s"]),
            "ratio at the floor": "—" if r["ratio_at_floor"] is None else f"{r['ratio_at_floor']:.0f}x",
        } for r in t_floor], ["a", "triplets", "evaluations", "fit", "kernel / evaluation", "logs / evaluation",
                              "tables' log1p, exp / evaluation", "L-BFGS-B (replay)", "floor", "cblearn", "100x budget", "ratio at the floor"]))
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
    path = write_results("bench_tste", {"tste": t1, "floor": t_floor, "baselines": t2, "food": t3},
                         extra={"repeats": args.repeats, "part": args.part, "k": args.k, "b": args.b,
                                "peer_threads": args.peer_threads}, out_dir=args.out)
    print(f"\nwritten: {path}")
    failed = [r for r in t1 + t3 if r["pass"] is False]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
