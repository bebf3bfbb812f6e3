"""Where the CPU time of acc_random_init and acc_kmeans_init goes: algorithm -> kernel (issue 31, item 2).

    python scripts/bench/profile_acc_split.py [--experiments acc_random_init acc_kmeans_init]
        [--datasets ...] [--gamma 0.2] [--trials 0] [--repeats 1] [--cprofile]

Runs paper-scale cases of the experiments in this process, exactly as the
runner builds them (``ccexp.runner.config.experiment_cases`` then
``ccexp.runner.execute.run_instance``: dataset, oracle, convergence
callback, trace), on a stratified sample: every algorithm of the
experiment x the datasets named (default: one small and two N = 1000 sets
per experiment) x ``--trials`` at one noise level.  Every kernel that the
active estimator calls through ``ccexp.algorithms.active._kernels`` is
wrapped by a CPU-time counter (``time.process_time``; numba kernels are
opaque calls), and the local search (``local_search_sums``) is driven pass
by pass from Python over the same one-pass kernels, so its first pass, the
build of the per-cluster sums and the later passes are counted apart (the
same calls in the same order: the run is unchanged).  COBRAS and nCOBRAS
are split by ``cProfile`` with ``--cprofile`` (cumulative CPU of their own
functions).

Prints, per experiment, the share of the sample's CPU per algorithm and per
kernel, with the per-case medians over ``--repeats``; writes
``results/bench/profile_acc_split.json``.  The machine may be loaded: CPU
time, not wall time.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ccexp.algorithms.active import _kernels as K  # noqa: E402
from ccexp.runner.execute import run_instance, warm_up  # noqa: E402
from ccexp.runner.spec import SweepSpec  # noqa: E402
from ccexp.runner.config import resolve_run, with_algorithm_choice  # noqa: E402
from ccexp.runner.compose import compose_config  # noqa: E402
from _harness import write_results  # noqa: E402

DEFAULT_DATASETS = {
    "acc_random_init": ["labels_ecoli", "labels_yeast", "labels_20newsgroups"],
    "acc_kmeans_init": ["ecoli", "yeast", "mnist_embedding"],
}
#: kernels of ``_kernels`` that the estimator and the strategies call (the local search is split apart)
WRAPPED = ["violating_edges", "sample_prefix", "score_bad_triangles", "take_scores", "kth_largest",
           "fill_random", "least_queried", "least_magnitude_cut_and_count", "count_at_magnitude",
           "pick_at_magnitude", "apply_answers", "abs_max", "max_correlation", "relabel_first_appearance",
           "random_labels"]

COUNTS: collections.Counter = collections.Counter()
PASSES: collections.Counter = collections.Counter()


def _wrap(name, fn):
    def timed(*args, **kwargs):
        t0 = time.process_time()
        out = fn(*args, **kwargs)
        COUNTS[name] += time.process_time() - t0
        return out
    return timed


def _local_search_sums_split(S, ST, labels, seed, eta, max_passes, M, smax):
    """``_maxcor_sums.local_search_sums`` step by step from Python (the same kernel calls), timed by phase."""
    t0 = time.process_time()
    K.seed_visits(seed)
    n = S.shape[0]
    st = K.maxcor_state(labels, M, smax)
    pending = max_passes >= 1 and eta < 1.0 and 0.5 * n * n * smax < 2.0**52
    delta = 0.0 if pending else K.max_correlation(S, labels)
    delta_old = delta - 1.0
    n_passes = 0
    t1 = time.process_time()
    COUNTS["ls.setup"] += t1 - t0
    while abs(delta - delta_old) > eta and n_passes < max_passes:
        n_passes += 1
        if n_passes == 2:
            t0 = time.process_time()
            K.build_sums(ST, st)
            COUNTS["ls.build_sums"] += time.process_time() - t0
        t0 = time.process_time()
        delta_old, delta = K.maxcor_pass(S, ST, st, delta, pending, n_passes >= 2)
        COUNTS["ls.pass1" if n_passes == 1 else "ls.pass2+"] += time.process_time() - t0
        pending = False
    PASSES["restarts"] += 1
    PASSES["passes"] += n_passes
    return delta, n_passes


def install():
    for name in WRAPPED:
        setattr(K, name, _wrap(name, getattr(K, name)))
    K.local_search_sums = _local_search_sums_split


def cases_for(experiment, datasets, gamma, trials):
    ov = [f"experiment={experiment}", f"experiment.sweep.dataset.name=[{','.join(datasets)}]",
          f"experiment.sweep.oracle.gamma=[{gamma}]", f"experiment.trials={max(trials) + 1}"]
    ov = with_algorithm_choice(ov)
    spec = resolve_run(compose_config(ov), ov)
    cases = [c for c in spec.cases() if c.instance.trial in trials]
    context = SweepSpec.of(spec.placed_experiment(), cases, targets=spec.targets).worker_context()
    return cases, context


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experiments", nargs="+", default=list(DEFAULT_DATASETS))
    ap.add_argument("--datasets", nargs="+", default=None, help="default: per experiment, DEFAULT_DATASETS")
    ap.add_argument("--algorithms", nargs="+", default=None, help="default: the experiment's")
    ap.add_argument("--gamma", type=float, default=0.2)
    ap.add_argument("--trials", type=int, nargs="+", default=[0])
    ap.add_argument("--repeats", type=int, default=1, help="runs of each case (medians of CPU)")
    ap.add_argument("--cprofile", action="store_true", help="cProfile COBRAS / nCOBRAS (top functions)")
    ap.add_argument("--plain", action="store_true", help="no kernel counters: each case's CPU time only (to compare "
                    "two code versions, e.g. with PYTHONPATH on a clone of before)")
    ap.add_argument("--out", default="profile_acc_split", help="name of the results/bench JSON")
    ap.add_argument("--ab", metavar="REV", default=None,
                    help="instead: each case with the local search and maxexp/maxmin scoring kernels of git revision "
                         "REV and of now, alternated case by case in this process (records checked equal)")
    a = ap.parse_args(argv)
    if a.ab:
        return ab_cases(a)
    if not a.plain:
        install()
    rows = []
    for experiment in a.experiments:
        cases, context = cases_for(experiment, a.datasets or DEFAULT_DATASETS[experiment], a.gamma, a.trials)
        if a.algorithms:
            cases = [c for c in cases if c.algorithm in a.algorithms]
        warm_up({c.algorithm for c in cases})  # JIT compilation (or loading numba's cache) untimed
        # and the first case of each algorithm once, untimed: the kernels called from this script's
        # Python driver compile for its argument types on first use
        first = {}
        for c in cases:
            first.setdefault(c.algorithm, c)
        for c in first.values():
            run_instance([c], context)
        for c in cases:
            per = []
            for _ in range(a.repeats):
                COUNTS.clear()
                PASSES.clear()
                prof = cProfile.Profile() if a.cprofile and "cobras" in c.algorithm else None
                t0 = time.process_time()
                if prof:
                    prof.enable()
                (rec,) = run_instance([c], context)
                if prof:
                    prof.disable()
                total = time.process_time() - t0
                per.append((total, dict(COUNTS), dict(PASSES), rec))
            total, counts, passes, rec = sorted(per, key=lambda x: x[0])[len(per) // 2]
            row = {"experiment": experiment, "dataset": c.instance.dataset["name"], "algorithm": c.algorithm,
                   "trial": c.instance.trial, "cpu": total, "cpu_runs": [p[0] for p in per],
                   "fit_seconds": rec.get("fit_seconds"), "n_queries": rec.get("n_queries"),
                   "stop_reason": rec.get("stop_reason"), "status": rec.get("status"), **passes,
                   "kernels": counts}
            if prof:
                st = pstats.Stats(prof)
                top = sorted(((v[3], f"{k[0].split('/')[-1]}:{k[2]}") for k, v in st.stats.items()), reverse=True)
                row["cprofile_cum"] = [(name, round(t, 3)) for t, name in top[:25]]
            rows.append(row)
            print(f"{experiment} {row['dataset']} {c.algorithm}: cpu {total:.2f} s "
                  f"({', '.join(f'{k} {v:.2f}' for k, v in sorted(counts.items(), key=lambda x: -x[1])[:6])}) "
                  f"passes {passes}", flush=True)
    summarise(rows)
    write_results(a.out, {"cases": rows})


def _comparable(rec):
    """A record without what names the code or measures time (as ``scripts/compare_records.py``), trace included."""
    out = {k: v for k, v in rec.items() if "seconds" not in k and k not in ("code_version", "_worker")}
    if isinstance(out.get("_trace"), list):
        out["_trace"] = [{k: v for k, v in row.items() if "seconds" not in k} for row in out["_trace"]]
    return out


def ab_cases(a) -> None:
    """Each case run with the kernels at ``a.ab`` and now, alternated; median CPU per side, records equal."""
    from bench_acc_kernels import module_at

    before_ls = module_at(a.ab).local_search_sums
    before_sel = module_at(a.ab, "ccexp/algorithms/active/_selection_kernels.py").score_bad_triangles
    sides = {"before": (before_ls, before_sel), "now": (K.local_search_sums, K.score_bad_triangles)}
    rows = []
    for experiment in a.experiments:
        cases, context = cases_for(experiment, a.datasets or DEFAULT_DATASETS[experiment], a.gamma, a.trials)
        if a.algorithms:
            cases = [c for c in cases if c.algorithm in a.algorithms]
        warm_up({c.algorithm for c in cases})
        first = {}
        for c in cases:
            first.setdefault(c.algorithm, c)
        for name in sides:  # the kernels of REV compile here (no cache), untimed
            K.local_search_sums, K.score_bad_triangles = sides[name]
            for c in first.values():
                run_instance([c], context)
        for c in cases:
            cpu = {name: [] for name in sides}
            recs = {}
            for r in range(a.repeats):
                for name in (list(sides) if r % 2 == 0 else list(sides)[::-1]):
                    K.local_search_sums, K.score_bad_triangles = sides[name]
                    t0 = time.process_time()
                    (rec,) = run_instance([c], context)
                    cpu[name].append(time.process_time() - t0)
                    recs[name] = _comparable(rec)
                if repr(recs["before"]) != repr(recs["now"]):
                    keys = [k for k in recs["now"] if repr(recs["now"][k]) != repr(recs["before"].get(k))]
                    raise AssertionError(f"{c.algorithm} on {c.instance.dataset['name']}: the records differ in {keys}")
            med = {name: statistics.median(v) for name, v in cpu.items()}
            row = {"experiment": experiment, "dataset": c.instance.dataset["name"], "algorithm": c.algorithm,
                   "trial": c.instance.trial, "before cpu": round(med["before"], 3), "now cpu": round(med["now"], 3),
                   "now / before": round(med["now"] / med["before"], 3), "runs": a.repeats, "records equal": True}
            rows.append(row)
            print(row, flush=True)
    K.local_search_sums, K.score_bad_triangles = sides["now"]
    for experiment in dict.fromkeys(r["experiment"] for r in rows):
        rs = [r for r in rows if r["experiment"] == experiment]
        b, n = sum(r["before cpu"] for r in rs), sum(r["now cpu"] for r in rs)
        print(f"{experiment}: {len(rs)} cases, before {b:.2f} s CPU, now {n:.2f} s CPU, now / before {n / b:.3f}")
    write_results(a.out, {"ab": rows})


def summarise(rows) -> None:
    for experiment in dict.fromkeys(r["experiment"] for r in rows):
        rs = [r for r in rows if r["experiment"] == experiment]
        total = sum(r["cpu"] for r in rs)
        print(f"\n## {experiment}: {len(rs)} cases, {total:.1f} s CPU\n")
        print("| algorithm | share of CPU | kernel | share of CPU |\n|---|--:|---|--:|")
        for alg in dict.fromkeys(r["algorithm"] for r in rs):
            ra = [r for r in rs if r["algorithm"] == alg]
            cpu = sum(r["cpu"] for r in ra)
            kern = collections.Counter()
            for r in ra:
                kern.update(r["kernels"])
            rest = cpu - sum(kern.values())
            items = sorted(kern.items(), key=lambda x: -x[1])
            items = [(k, v) for k, v in items if v / total >= 0.002] + [("rest (Python, callback, trace, other)", rest)]
            for i, (k, v) in enumerate(items):
                print(f"| {alg if i == 0 else ''} | {f'{100 * cpu / total:.1f} %' if i == 0 else ''} | {k} | "
                      f"{100 * v / total:.1f} % |")
        med = statistics.median(r["cpu"] for r in rs)
        print(f"\nmedian case CPU {med:.2f} s")


if __name__ == "__main__":
    main()
