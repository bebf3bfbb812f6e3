"""The acc_* kernels before and after issue 31's h31s change (item 2): the local search, maxexp's scoring.

    python scripts/bench/bench_acc_kernels.py [--n 1000 500] [--repeats 15] [--before aed627e]

1. The local search.
Algorithm 2 (Aronsson & Chehreghani 2024; T = 3 restarts from random
clusterings with k = the state's number of clusters, as one iteration of
Algorithm 1 runs it) on states of real runs (10 equal classes, gamma = 0.2,
after 10% and 30% of |E| queries, uniform and maxexp), two ways, alternated
call by call on the same state and seeds (the order rotates each round):

- ``before``: ``_maxcor_sums.py`` as it was at git revision ``--before``
  (loaded from ``git show``, its relative imports made absolute, compiled
  without cache): the first pass sweeping rows, ``build_sums`` reading all
  of S^T after it, two strided reads of ``M[:, u]`` per open cluster and visit;
- ``build after``: the kernels of now driven on the old schedule
  (``maxcor_pass(..., build=False)``, then ``build_sums``; the driver below
  is the old ``local_search_sums`` line for line): the candidates' change alone;
- ``now``: ``local_search_sums`` as it is now, the first pass adding each
  visited item's row into its cluster's sums while the row is in cache.

All must give the same labels, objective and passes on every call (checked).
Reports the median CPU time (``time.thread_time``) per T = 3 clustering over
``--repeats`` rounds after one untimed round, and the ratios.

2. maxexp's scoring of the bad triangles (``score_bad_triangles``, Algorithm
3 with Eqs. 11-13) by ``_selection_kernels.py`` at ``--before`` and now
(the cheapest clustering's weight exp(-0.0) = 1 no longer computed), on the
maxexp states of 1, alternated call by call; the same credits checked.

Writes ``results/bench/bench_acc_kernels.json``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ccexp.algorithms.active import _kernels as K  # noqa: E402
from ccexp.algorithms.active._maxcor_sums import build_sums, maxcor_pass, maxcor_state, seed_visits  # noqa: E402
from ccexp.algorithms.active.local_search import ETA  # noqa: E402
from bench_active import state_after  # noqa: E402
from _harness import markdown_table, write_results  # noqa: E402


@njit(cache=False)
def local_search_sums_build_after(S, ST, labels, seed, eta, max_passes, M, smax):
    """``local_search_sums`` before issue 31's h31s change: ``build_sums`` between the first and second pass."""
    seed_visits(seed)
    n = S.shape[0]
    st = maxcor_state(labels, M, smax)
    pending = max_passes >= 1 and eta < 1.0 and 0.5 * n * n * smax < 2.0**52
    delta = 0.0 if pending else K.max_correlation(S, labels)
    delta_old = delta - 1.0
    n_passes = 0
    while abs(delta - delta_old) > eta and n_passes < max_passes:
        n_passes += 1
        if n_passes == 2:
            build_sums(ST, st)
        delta_old, delta = maxcor_pass(S, ST, st, delta, pending, n_passes >= 2, False)
        pending = False
    return delta, n_passes


def module_at(rev: str, path: str = "ccexp/algorithms/active/_maxcor_sums.py") -> types.ModuleType:
    """The kernel module as it was at git revision ``rev``, importable beside today's (no numba cache)."""
    root = Path(__file__).resolve().parents[2]
    src = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=root, check=True, capture_output=True, text=True).stdout
    src = src.replace("from ._", "from ccexp.algorithms.active._").replace("cache=True", "cache=False")
    mod = types.ModuleType(f"maxcor_sums_at_{rev}")
    exec(compile(src, f"{rev}:{path}", "exec"), mod.__dict__)
    return mod


def restarts(fn, S, k, seeds, M, smax):
    """T restarts of Algorithm 2 from ``random_labels`` (the loop of ``local_search._local_search``)."""
    out = []
    for s0, s1 in seeds:
        labels = K.random_labels(S.shape[0], k, int(s0))
        delta, passes = fn(S, S, labels, int(s1), ETA, 1000, M, smax)
        out.append((labels, delta, passes))
    return out


def bench_state(n, fraction, strategy, repeats, before):
    S, labels, _, _ = state_after(n, fraction, strategy=strategy)
    k = int(labels.max()) + 1
    M = np.empty_like(S)
    smax = K.abs_max(S)
    rng = np.random.default_rng(7)
    sides = {"before": before.local_search_sums, "build after": local_search_sums_build_after,
             "now": K.local_search_sums}
    cpu = {name: [] for name in sides}
    passes = []
    for r in range(repeats + 1):
        seeds = rng.integers(0, 2**31 - 1, size=(3, 2))
        results = {}
        names = list(sides)
        for name in names[r % 3:] + names[:r % 3]:  # rotate which side goes first
            t0 = time.thread_time()
            results[name] = restarts(sides[name], S, k, seeds, M, smax)
            if r > 0:  # the first round is the warm-up
                cpu[name].append(time.thread_time() - t0)
        for name in names[1:]:
            for (la, da, pa), (lb, db, pb) in zip(results["before"], results[name]):
                if not (np.array_equal(la, lb) and da == db and pa == pb):
                    raise AssertionError(f"{name} differs from before")
        passes.extend(p for _, _, p in results["now"])
    med = {name: statistics.median(v) for name, v in cpu.items()}
    return {"N": n, "state": f"{strategy}, {fraction:.0%} of |E|", "k": k,
            "passes per restart": statistics.median(passes),
            **{f"{name} (ms CPU)": round(v * 1e3, 3) for name, v in med.items()},
            "now / before": round(med["now"] / med["before"], 3), "identical": True}


def bench_scoring(n, fraction, repeats, before):
    """score_bad_triangles (maxexp, N sampled violating edges) at ``before`` and now; medians of CPU ms."""
    from ccexp.algorithms.active.strategies import BatchSelector

    S, labels, _, _ = state_after(n, fraction, strategy="maxexp")
    sel = BatchSelector(n, "maxexp", 1.0, 0.0, 5, None, "uniform")
    m = K.violating_edges(S, labels, sel.viol_u, sel.viol_v)
    size = K.sample_prefix(sel.viol_u, sel.viol_v, m, n, 5)
    sides = {"before": before.score_bad_triangles, "now": K.score_bad_triangles}
    cpu = {name: [] for name in sides}
    for r in range(repeats + 1):
        got = {}
        for name in (list(sides) if r % 2 == 0 else list(sides)[::-1]):
            t0 = time.thread_time()
            t, pruned = sides[name](S, sel.viol_u, sel.viol_v, size, K.MAXEXP, 1.0, 3, sel.credits)
            if r > 0:
                cpu[name].append(time.thread_time() - t0)
            tu, tv = sel.touched_u[:t].copy(), sel.touched_v[:t].copy()
            got[name] = (tu, tv, sel.info[tu, tv].copy(), pruned)
            sel.info[tu, tv] = 0.0
        a, b = got["before"], got["now"]
        if not (all(np.array_equal(x, y) for x, y in zip(a[:3], b[:3])) and a[3] == b[3]):
            raise AssertionError("the credits differ")
    med = {name: statistics.median(v) for name, v in cpu.items()}
    return {"N": n, "state": f"maxexp, {fraction:.0%} of |E|", "sampled edges": int(size),
            "credited edges": int(got["now"][0].shape[0]), "pruned triangles": int(got["now"][3]),
            **{f"{name} (ms CPU)": round(v * 1e3, 3) for name, v in med.items()},
            "now / before": round(med["now"] / med["before"], 3), "identical": True}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[1000, 500])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--before", default="aed627e", help="git revision of the kernels compared against")
    a = ap.parse_args(argv)
    before = module_at(a.before)
    rows = []
    for n in a.n:
        for strategy in ("uniform", "maxexp"):
            for fraction in (0.1, 0.3):
                rows.append(bench_state(n, fraction, strategy, a.repeats, before))
                print(rows[-1], flush=True)
    print(markdown_table(rows, list(rows[0])))
    before_sel = module_at(a.before, "ccexp/algorithms/active/_selection_kernels.py")
    scoring = []
    for n in a.n:
        for fraction in (0.1, 0.3):
            scoring.append(bench_scoring(n, fraction, a.repeats, before_sel))
            print(scoring[-1], flush=True)
    print(markdown_table(scoring, list(scoring[0])))
    write_results("bench_acc_kernels", {"local search": rows, "maxexp scoring": scoring})


if __name__ == "__main__":
    main()
