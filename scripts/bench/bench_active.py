"""Speed of active correlation clustering (Aronsson & Chehreghani 2024).

    python scripts/bench/bench_active.py [--repeats 7] [--runs 5]

1. One iteration of Algorithm 1 = the local search (Algorithm 2, T = 3)
   plus the maxexp selection (Algorithm 3, B = ceil(|E|/1000)), at N = 1000
   and N = 500, on states taken from a real run (10 equal classes,
   gamma = 0.2) after 10% and 30% of |E| queries.  Targets: 50 ms
   (N = 1000), 20 ms (N = 500).  The authors' public code: 2.0 s per
   iteration at N = 500 (issue 6).
   The same local search by the plain kernel (``local_search_run_plain``,
   a full sweep of row u per visit; the kernel of before issue 14 item 6's
   second round) runs back to back with it, and every step is also timed
   in CPU seconds (``time.thread_time``), which a loaded shared machine
   inflates far less than wall time.
2. The maxexp scoring of Algorithm 3 (``score_bad_triangles``) with and
   without its pruning (a triangle whose mean cost cannot beat its edge's
   credit skips its five exps), alternated call by call on the same states
   (N = 1000 after 5%, 10%, 30% and 50% of |E|), so the machine's drift
   hits both alike; the share of bad triangles pruned beside it.
3. The cut of the top-B pick (Section 3.5) on maxmin's and maxexp's scores
   (N = 1000 after 10% and 30% of |E|): numpy's introselect against the heap
   of ``kth_largest``, alternated call by call.
4. The batch of uncertainty (Eq. 8) and frequency (Eq. 9) on states of
   their own runs (N = 1000 after 5%, 20% and 40% of |E|): the references
   that list every candidate edge (``_uncertainty_reference``,
   ``least_queried_plain``) against the kernels in use, alternated call by
   call, same edges checked.
5. Per-step overheads on maxexp states (N = 1000 after 10% and 30% of
   |E|): line 2's violating edges, the if/else reference against the
   branch-free kernel, and ARI / AMI of the trace with the contingency
   table by sorting (ids shifted by 4N) against counting, alternated.
6. A full maxexp run on ``synthetic_blobs`` (N = 500, gamma = 0.2) until
   ARI >= 0.99 (a ground-truth callback stops it), ``--runs`` seeds: wall
   time (target 15 s; the authors' code about 10 minutes) and the number
   of queries beside the authors' ~39,000.

Prints markdown tables and writes ``results/bench/bench_active.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ccexp import load_dataset  # noqa: E402
from ccexp.algorithms.active import ActiveCorrelationClustering  # noqa: E402
from ccexp.algorithms.active import _kernels as K  # noqa: E402
from ccexp.algorithms.active.local_search import ETA, _local_search  # noqa: E402
from ccexp.algorithms.active.strategies import BatchSelector  # noqa: E402
from ccexp.cc.contingency import ari_ami  # noqa: E402
from ccexp.metrics import adjusted_rand  # noqa: E402
from ccexp.oracles.active import PairwiseSimilarityOracle  # noqa: E402
from _harness import fmt_seconds, markdown_table, measure, verdict, write_results  # noqa: E402


def truth(n: int, seed: int = 0) -> np.ndarray:
    """The ground truth of the bench's runs: 10 equal classes of ``n`` items, shuffled."""
    return np.random.default_rng(seed).permutation(np.repeat(np.arange(10), n // 10))


def state_after(n: int, fraction: float, seed: int = 0, strategy: str = "maxexp"):
    """Similarities, clustering and counts of a ``strategy`` run after ``fraction`` of |E| queries."""
    y = truth(n, seed)
    est = ActiveCorrelationClustering(strategy, max_queries=fraction, random_state=seed)
    est.fit(PairwiseSimilarityOracle(y, gamma=0.2, random_state=seed))
    return est.similarity_, est.labels_, est.query_counts_, est.batch_size_


def measure_cpu(fn, repeats: int) -> float:
    """Median CPU seconds of the calling thread over ``repeats`` calls, after one untimed call."""
    fn()
    runs = []
    for _ in range(repeats):
        t0 = time.thread_time()
        fn()
        runs.append(time.thread_time() - t0)
    return statistics.median(runs)


@contextlib.contextmanager
def plain_kernel():
    """Algorithm 2 by ``local_search_run_plain`` (the row sweep per visit) inside the block."""
    fast = K.local_search_sums

    def plain(S, ST, labels, seed, eta, max_passes, M, smax):
        return K.local_search_run_plain(S, labels, seed, eta, max_passes)

    K.local_search_sums = plain
    try:
        yield
    finally:
        K.local_search_sums = fast


def bench_iteration(n: int, fraction: float, repeats: int) -> dict:
    S, labels, counts, B = state_after(n, fraction)
    k = int(labels.max()) + 1
    selector = BatchSelector(n, "maxexp", 1.0, 0.0, 5, None, "uniform")  # epsilon 0: always the full selection
    rng = np.random.default_rng(1)

    def cluster():
        return _local_search(S, k, 3, ETA, 1000, rng)

    def select():
        return selector.select(S, labels, counts, B, rng)

    def iteration():
        lab, _, passes = _local_search(S, k, 3, ETA, 1000, rng)
        selector.select(S, lab, counts, B, rng)
        return passes

    c = measure(cluster, repeats)
    with plain_kernel():
        c_plain = measure(cluster, repeats)
    s = measure(select, repeats)
    it = measure(iteration, repeats)
    cpu = {"local search cpu": measure_cpu(cluster, repeats), "selection cpu": measure_cpu(select, repeats),
           "iteration cpu": measure_cpu(iteration, repeats)}
    with plain_kernel():
        cpu["plain local search cpu"] = measure_cpu(cluster, repeats)
    target = 0.050 if n >= 1000 else 0.020
    return {"N": n, "state": f"{fraction:.0%} of |E|", "B": B, "clusters": k,
            "passes per restart": statistics.median([p for ps in it["values"] for p in ps]),
            "local search": c["median"], "plain local search": c_plain["median"], "selection": s["median"],
            "iteration": it["median"], **cpu, "target": target, "result": verdict(it["median"], target)}


def bench_pruning(n: int, fraction: float, repeats: int) -> dict:
    """maxexp scoring with and without pruning, alternated on one state; medians of ``repeats`` pairs."""
    S, labels, _, _ = state_after(n, fraction)
    sel = BatchSelector(n, "maxexp", 1.0, 0.0, 5, None, "uniform")
    m = K.violating_edges(S, labels, sel.viol_u, sel.viol_v)
    size = K.sample_prefix(sel.viol_u, sel.viol_v, m, n, 5)

    def score(prune):
        t0 = time.perf_counter()
        code = K.MAXEXP if prune else K.MAXEXP_UNPRUNED
        t, pruned = K.score_bad_triangles(S, sel.viol_u, sel.viol_v, size, code, 1.0, 3, sel.credits)
        seconds = time.perf_counter() - t0
        sel.info[sel.touched_u[:t], sel.touched_v[:t]] = 0.0
        return seconds, pruned

    score(True), score(False)
    on, off = [], []
    for _ in range(repeats):
        on.append(score(True)[0])
        off.append(score(False)[0])
    pruned = score(True)[1]
    return {"N": n, "state": f"{fraction:.0%} of |E|", "sampled edges": int(size), "pruned triangles": int(pruned),
            "scoring, pruned": statistics.median(on), "scoring, all exps": statistics.median(off),
            "saved": 1 - statistics.median(on) / statistics.median(off)}


def _timed(fn) -> float:
    """Wall seconds of one call (the sections that alternate two versions call by call)."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def bench_top_b(n: int, fraction: float, repeats: int) -> list[dict]:
    """The cut of top-B (Section 3.5) on maxmin's and maxexp's scores: np.partition and kth_largest, alternated."""
    S, labels, _, B = state_after(n, fraction)
    rows = []
    for strategy, code in (("maxmin", K.MAXMIN), ("maxexp", K.MAXEXP)):
        sel = BatchSelector(n, strategy, 1.0, 0.0, 5, None, "uniform")
        m = K.violating_edges(S, labels, sel.viol_u, sel.viol_v)
        size = K.sample_prefix(sel.viol_u, sel.viol_v, m, n, 5)
        t, _ = K.score_bad_triangles(S, sel.viol_u, sel.viol_v, size, code, 1.0, 3, sel.credits)
        scores = sel.info[sel.touched_u[:t], sel.touched_v[:t]]
        m = scores.shape[0]
        thr = K.kth_largest(scores, B)
        assert thr == np.partition(scores, m - B)[m - B]

        part, heap = [], []
        for _ in range(repeats):
            part.append(_timed(lambda: np.partition(scores, m - B)[m - B]))
            heap.append(_timed(lambda: K.kth_largest(scores, B)))
        rows.append({"N": n, "state": f"{fraction:.0%} of |E|", "strategy": strategy, "scores": m, "B": B,
                     "tied at the cut": int(np.count_nonzero(scores == thr)),
                     "np.partition": statistics.median(part), "heap (kth_largest)": statistics.median(heap)})
    return rows


def bench_batch(n: int, fraction: float, repeats: int) -> list[dict]:
    """The batch of uncertainty (Eq. 8) and frequency (Eq. 9) on their own runs' states: the
    listing references against the kernels in use, alternated call by call (same edges checked)."""
    rows = []
    for strategy in ("uncertainty", "frequency"):
        S, labels, counts, B = state_after(n, fraction, strategy=strategy)
        sel = BatchSelector(n, strategy, 1.0, 0.0, 4, None, "uniform")  # cap 4: the paper's tau = 5
        out_u, out_v = np.empty(B, dtype=np.int64), np.empty(B, dtype=np.int64)
        if strategy == "uncertainty":
            def reference():
                return sel._uncertainty_reference(S, counts, B, np.random.default_rng(1))

            def fast():
                return sel._uncertainty(S, counts, B, np.random.default_rng(1))
            thr, _ = K.least_magnitude_cut(S, counts, 4, B)
            per_row = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
            tied = K.count_at_magnitude(S, counts, 4, thr, *per_row)[1]
            names = ("reference (all magnitudes listed, top_b_with_ties)", "in use (cut, counts per row, ranks)")
        else:
            def reference():
                k = K.least_queried_plain(counts, 4, B, 1, out_u, out_v)
                return out_u[:k].copy(), out_v[:k].copy()

            def fast():
                k = K.least_queried(counts, 4, B, 1, out_u, out_v)
                return out_u[:k].copy(), out_v[:k].copy()
            c = counts[np.triu_indices(n, 1)]
            tied = int(np.count_nonzero(c == c[c < 4].min()))
            names = ("reference (least_queried_plain)", "in use (least_queried)")
        a, b = reference(), fast()
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])

        ref, new = [], []
        for _ in range(repeats):
            ref.append(_timed(reference))
            new.append(_timed(fast))
        rows.append({"N": n, "state": f"{fraction:.0%} of |E|", "strategy": strategy, "B": B,
                     "tied at the cut": tied, "reference": statistics.median(ref), "in use": statistics.median(new),
                     "reference is": names[0], "in use is": names[1]})
    return rows


@njit(cache=True)
def violating_edges_branchy(S, labels, out_u, out_v):
    """Line 2 of Algorithm 3 with an if/else per pair: the kernel of before the branch-free one (reference)."""
    n = S.shape[0]
    m = 0
    for u in range(n):
        lu = labels[u]
        row = S[u]
        for v in range(u + 1, n):
            s = row[v]
            if labels[v] == lu:
                if s < 0.0:
                    out_u[m] = u
                    out_v[m] = v
                    m += 1
            elif s > 0.0:
                out_u[m] = u
                out_v[m] = v
                m += 1
    return m


def bench_step_overheads(n: int, fraction: float, repeats: int) -> list[dict]:
    """Per-step work beside the two algorithms, on a maxexp state: line 2's violating edges (branchy
    reference against the branch-free kernel) and the trace's ARI / AMI (the contingency table by
    sorting against counting: ids shifted by 4N take the sorting path, the same scores), alternated."""
    S, labels, _, _ = state_after(n, fraction)
    y = truth(n)  # the truth state_after's run was scored against
    size = n * (n - 1) // 2
    a_u, a_v, b_u, b_v = (np.empty(size, dtype=np.int64) for _ in range(4))
    m = violating_edges_branchy(S, labels, a_u, a_v)
    assert m == K.violating_edges(S, labels, b_u, b_v)
    assert np.array_equal(a_u[:m], b_u[:m]) and np.array_equal(a_v[:m], b_v[:m])
    y_far, labels_far = y + 4 * n, labels + 4 * n
    assert ari_ami(y_far, labels_far) == ari_ami(y, labels)
    pairs = [("violating edges", lambda: violating_edges_branchy(S, labels, a_u, a_v),
              lambda: K.violating_edges(S, labels, b_u, b_v), f"{m:,} of {size:,}"),
             ("ARI (callback)", lambda: ari_ami(y_far, labels_far, ami=False), lambda: ari_ami(y, labels, ami=False),
              f"{int(labels.max()) + 1} clusters"),
             ("ARI + AMI (trace)", lambda: ari_ami(y_far, labels_far), lambda: ari_ami(y, labels),
              f"{int(labels.max()) + 1} clusters")]
    rows = []
    for name, reference, fast, size_text in pairs:
        ref, new = [], []
        for _ in range(repeats):
            ref.append(_timed(reference))
            new.append(_timed(fast))
        rows.append({"N": n, "state": f"{fraction:.0%} of |E|", "work": name, "size": size_text,
                     "reference": statistics.median(ref), "in use": statistics.median(new)})
    return rows


def bench_full_run(seed: int) -> dict:
    ds = load_dataset("synthetic_blobs", random_state=seed)
    y = ds.y

    def reached(n_queries, labels):
        return adjusted_rand(y, labels) >= 0.99

    oracle = PairwiseSimilarityOracle(y, gamma=0.2, random_state=seed)
    t0 = time.perf_counter()
    est = ActiveCorrelationClustering("maxexp", max_queries=1.0, random_state=seed).fit(oracle, callback=reached)
    seconds = time.perf_counter() - t0
    return {"seed": seed, "seconds": seconds, "queries": est.n_queries_, "iterations": len(est.history_) - 1,
            "reached": est.stop_reason_ == "callback", "cluster s": est.timings_["cluster"], "select s": est.timings_["select"]}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    ActiveCorrelationClustering.warmup()

    rows = [bench_iteration(n, f, args.repeats) for n in (500, 1000) for f in (0.1, 0.3)]
    timed = ("local search", "plain local search", "selection", "iteration", "local search cpu",
             "plain local search cpu", "selection cpu", "iteration cpu", "target")
    shown = [{**r, **{k: fmt_seconds(r[k]) for k in timed}} for r in rows]
    print(f"\n## One iteration (local search T=3 + maxexp selection), medians; load average {os.getloadavg()}\n")
    print(markdown_table(shown, ["N", "state", "B", "clusters", "passes per restart", *timed, "result"]))

    pruning = [bench_pruning(1000, f, args.repeats + 2) for f in (0.05, 0.1, 0.3, 0.5)]
    print(f"\n## maxexp scoring with and without pruning, alternated (medians); load average {os.getloadavg()}\n")
    print(markdown_table([{**r, "scoring, pruned": fmt_seconds(r["scoring, pruned"]),
                           "scoring, all exps": fmt_seconds(r["scoring, all exps"]), "saved": f"{r['saved']:.0%}"}
                          for r in pruning],
                         ["N", "state", "sampled edges", "pruned triangles", "scoring, pruned", "scoring, all exps", "saved"]))

    top_b = [r for f in (0.1, 0.3) for r in bench_top_b(1000, f, args.repeats + 2)]
    print(f"\n## The cut of top-B on maxmin's and maxexp's scores, alternated (medians); load average {os.getloadavg()}\n")
    print(markdown_table([{**r, "np.partition": fmt_seconds(r["np.partition"]),
                           "heap (kth_largest)": fmt_seconds(r["heap (kth_largest)"])} for r in top_b],
                         ["N", "state", "strategy", "scores", "B", "tied at the cut", "np.partition", "heap (kth_largest)"]))

    batch = [r for f in (0.05, 0.2, 0.4) for r in bench_batch(1000, f, args.repeats + 2)]
    print(f"\n## The batch of uncertainty and frequency on their own runs' states, alternated (medians); "
          f"load average {os.getloadavg()}\n")
    print(markdown_table([{**r, "reference": fmt_seconds(r["reference"]), "in use": fmt_seconds(r["in use"])}
                          for r in batch], ["N", "state", "strategy", "B", "tied at the cut", "reference", "in use"]))
    print("\nreference: " + "; ".join(sorted({f"{r['strategy']}: {r['reference is']}" for r in batch}))
          + "\nin use: " + "; ".join(sorted({f"{r['strategy']}: {r['in use is']}" for r in batch})))

    steps = [r for f in (0.1, 0.3) for r in bench_step_overheads(1000, f, 10 * args.repeats)]
    print(f"\n## Per-step overheads: line 2's violating edges and the trace's scores, alternated (medians); "
          f"load average {os.getloadavg()}\n")
    print(markdown_table([{**r, "reference": fmt_seconds(r["reference"]), "in use": fmt_seconds(r["in use"])}
                          for r in steps], ["N", "state", "work", "size", "reference", "in use"]))
    print("\nreference: violating edges with an if/else per pair; the contingency table by sorting (ids + 4N)."
          "\nin use: violating_edges (branch-free); the table by counting (ids < 4N)")

    runs = [bench_full_run(seed) for seed in range(args.runs)]
    med_s = statistics.median(r["seconds"] for r in runs)
    med_q = statistics.median(r["queries"] for r in runs)
    shown = [{**r, "seconds": fmt_seconds(r["seconds"]), "cluster s": fmt_seconds(r["cluster s"]),
              "select s": fmt_seconds(r["select s"])} for r in runs]
    print("\n## Full maxexp run on synthetic_blobs (N=500, gamma=0.2) until ARI >= 0.99\n")
    print(markdown_table(shown, ["seed", "seconds", "queries", "iterations", "reached", "cluster s", "select s"]))
    print(f"\nmedian: {fmt_seconds(med_s)} (target 15 s: {verdict(med_s, 15.0)}), {med_q:,.0f} queries "
          f"(authors: ~39,000 queries, ~315 iterations, ~10 minutes)")
    write_results("bench_active", {"iteration": rows, "pruning": pruning, "top_b": top_b, "batch": batch,
                                   "step_overheads": steps, "full_run": runs},
                  extra={"full_run_median_seconds": med_s, "full_run_median_queries": med_q,
                         "load_average": os.getloadavg()})


if __name__ == "__main__":
    main()
