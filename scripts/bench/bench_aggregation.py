"""Speed and memory of clustering aggregation (Gionis, Mannila and Tsaparas 2007).

    CCEXP_DATA_DIR=/path/to/datasets python scripts/bench/bench_aggregation.py [--repeats 3] [--sizes 50000,...]
                                                                            [--part all|rock]

Medians of ``--repeats`` timed calls after one untimed warm-up call:

1. Mushrooms (8,124 x 22): AGGLOMERATIVE, BALLS, FURTHEST (target <= 30 s
   each) and LOCALSEARCH from singletons (target <= 60 s).
2. Figure 5 (left, middle): SAMPLING around AGGLOMERATIVE / FURTHEST /
   BALLS on Mushrooms for sample sizes 100 .. 3,200: run time as a fraction
   of the full algorithm's and classification error (one draw per size).
3. Figure 5 (right) and the 1M target: synthetic data (five centres + 20%
   uniform noise) of 50K .. 1M points, k-means k = 2..10 as inputs (not
   timed), SAMPLING with a 1,000-item sample: the aggregation step must take
   <= 60 s at 1M with peak memory < 4 GB. Peak memory is the process's peak
   resident set size (``resource.getrusage``), an upper bound on the
   aggregation's own (it includes the data and the k-means runs).

4. ROCK (the categorical baseline of Tables 2-3) on Mushrooms at theta 0.8, k = 2, as agg_categorical
   runs it: the fit split into its links (neighbours and link counts) and its merges (no target;
   ``--part rock`` runs this row only).

Prints markdown tables and writes ``results/bench/bench_aggregation.json``.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import fmt_seconds, markdown_table, measure, verdict, write_results  # noqa: E402


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2  # kB on Linux


def bench_mushrooms(repeats: int) -> list[dict]:
    import ccexp
    from ccexp.metrics import classification_error

    ds = ccexp.load_dataset("mushroom")
    C = ds.categorical.T
    rows = []
    for name, target in [("agglomerative", 30.0), ("balls", 30.0), ("furthest", 30.0), ("local_search", 60.0)]:
        m = measure(lambda: ccexp.make_algorithm(name).fit(C).labels_, repeats=repeats, warmup=1)
        lab = m["values"][-1]
        rows.append({"algorithm": name, "median": fmt_seconds(m["median"]), "target": f"{target:.0f} s",
                     "verdict": verdict(m["median"], target), "k": int(lab.max() + 1),
                     "EC (%)": round(100 * classification_error(ds.y, lab), 1), "seconds": m["median"]})
    return rows


def bench_rock(repeats: int) -> list[dict]:
    """ROCK on Mushrooms (theta 0.8, k = 2): whole fit, links and merges (``est.timings_``), medians."""
    import ccexp

    ds = ccexp.load_dataset("mushroom")
    C = ds.categorical.T
    m = measure(lambda: ccexp.make_algorithm("rock", theta=0.8, n_clusters=2).fit(C), repeats=repeats, warmup=1)
    ests = m["values"]
    return [{"algorithm": "rock (theta 0.8, k = 2)", "median": fmt_seconds(m["median"]),
             "links": fmt_seconds(float(np.median([e.timings_["links"] for e in ests]))),
             "merges": fmt_seconds(float(np.median([e.timings_["merge"] for e in ests]))),
             "k": int(ests[-1].labels_.max() + 1), "seconds": m["median"]}]


def bench_sample_sizes(full_seconds: dict) -> list[dict]:
    import ccexp
    from ccexp.metrics import classification_error

    ds = ccexp.load_dataset("mushroom")
    C = ds.categorical.T
    rows = []
    for inner in ["agglomerative", "furthest", "balls"]:
        for s in [100, 200, 400, 800, 1600, 3200]:
            est = ccexp.make_algorithm("sampling", algorithm=inner, sample_size=s, random_state=0)
            t0 = time.perf_counter()
            lab = est.fit(C).labels_
            sec = time.perf_counter() - t0
            rows.append({"algorithm": inner, "sample": s, "seconds": round(sec, 3),
                         "fraction of full": round(sec / full_seconds[inner], 3),
                         "EC (%)": round(100 * classification_error(ds.y, lab), 1), "k": int(lab.max() + 1)})
    return rows


def bench_large(sizes: list[int]) -> list[dict]:
    import ccexp
    from ccexp.metrics import adjusted_rand

    rows = []
    for n in sizes:
        ds = ccexp.load_dataset("agg_blobs_noise", k=5, n_total=n, random_state=0)
        prob = ccexp.make_problem("clusterings_kmeans", ds, random_state=0)
        for inner in ["agglomerative", "furthest", "balls"]:
            est = ccexp.make_algorithm("sampling", algorithm=inner, sample_size=1000, random_state=0)
            t0 = time.perf_counter()
            lab = est.fit_problem(prob).labels_
            sec = time.perf_counter() - t0
            sizes_sorted = np.sort(np.bincount(lab))[::-1]
            rows.append({"n": n, "algorithm": inner, "seconds": round(sec, 2),
                         "target": "60 s" if n >= 1_000_000 else "", "verdict": verdict(sec, 60.0) if n >= 1_000_000 else "",
                         "k": int(lab.max() + 1), "5 largest": sizes_sorted[:5].tolist(),
                         "ARI": round(adjusted_rand(ds.y, lab), 3), "peak RSS (GB)": round(peak_rss_gb(), 2)})
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sizes", default="50000,100000,500000,1000000")
    ap.add_argument("--out", default=None)
    ap.add_argument("--part", choices=["all", "rock"], default="all", help="'rock': ROCK's row only")
    args = ap.parse_args(argv)
    import ccexp

    rock = bench_rock(args.repeats)
    print("## ROCK on Mushrooms\n\n" + markdown_table(rock, ["algorithm", "median", "links", "merges", "k"]) + "\n")
    if args.part == "rock":
        path = write_results("bench_aggregation", {"rock": rock}, out_dir=Path(args.out) if args.out else None)
        print(f"written to {path}")
        return

    for name in ["agglomerative", "balls", "furthest", "local_search", "sampling"]:
        ccexp.make_algorithm(name).warmup()
    mush = bench_mushrooms(args.repeats)
    print("## Mushrooms\n\n" + markdown_table(mush, ["algorithm", "median", "target", "verdict", "k", "EC (%)"]) + "\n")
    fracs = bench_sample_sizes({r["algorithm"]: r["seconds"] for r in mush})
    print("## Figure 5 (left, middle): SAMPLING on Mushrooms\n\n"
          + markdown_table(fracs, ["algorithm", "sample", "seconds", "fraction of full", "EC (%)", "k"]) + "\n")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    large = bench_large(sizes)
    print("## Figure 5 (right): SAMPLING (sample 1,000) on synthetic data\n\n"
          + markdown_table(large, ["n", "algorithm", "seconds", "target", "verdict", "k", "5 largest", "ARI", "peak RSS (GB)"]))
    path = write_results("bench_aggregation", {"mushrooms": mush, "sample_sizes": fracs, "large": large, "rock": rock},
                         out_dir=Path(args.out) if args.out else None)
    print(f"\nwritten to {path}")


if __name__ == "__main__":
    main()
