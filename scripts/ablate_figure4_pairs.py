"""Figure 4 (Gionis et al. 2007, Section 5.1): why the main clusters are not found at k* = 7.

    python scripts/ablate_figure4_pairs.py [n_draws]

For k* = 3, 5, 7 and ``n_draws`` draws each (seeds 0 .. n_draws - 1; default 20): the data of
``agg_blobs_noise`` (100 normal points per centre, sd 0.04, 20 % uniform noise), k-means with
k = 2 .. 10 (one start each), aggregated. Per draw it reports whether every true cluster has a found
cluster with Jaccard >= 0.8 (``claim_main_clusters_found``'s reading) and the most inputs that put
the same two true clusters together (each true cluster's majority label per input): a pair together
in 5 or more of the 9 inputs has X < 1/2 between its clusters, so d(C) is lower with them merged.

One setting at a time, from the experiment's setup (k-means++ start, AGGLOMERATIVE):

* ``init=random``: k observations drawn at random as the start, Matlab's ``kmeans`` default in 2007
  (the paper ran "Matlab's k-means", Section 5.3, with "Matlab's defaults", Section 5.1);
* the aggregation algorithm (the text does not say which one drew Figure 4; Figure 3's caption says
  AGGLOMERATIVE): LOCALSEARCH, FURTHEST, BALLS on the same inputs.

Prints one markdown row per variant and k*. About a minute on a quiet machine.
"""

from __future__ import annotations

import itertools
import sys

import numpy as np

from ccexp.algorithms.aggregation import Agglomerative, Balls, Furthest, LocalSearch
from ccexp.data.aggregation_synthetic import agg_blobs_noise
from ccexp.oracles.clusterings import clusterings_kmeans
from ccexp.report.gionis2007 import main_cluster_match

ALGORITHMS = {"agglomerative": Agglomerative, "local_search": LocalSearch, "furthest": Furthest, "balls": Balls}


def most_together(y: np.ndarray, C: np.ndarray, k: int) -> int:
    """The most inputs (rows of ``C``) that give two true clusters the same majority label."""
    major = np.array([[np.bincount(row[y == c]).argmax() for c in range(k)] for row in C])
    return max(int(np.sum(major[:, a] == major[:, b])) for a, b in itertools.combinations(range(k), 2))


def main() -> None:
    n_draws = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    variants = [("k-means++, AGGLOMERATIVE (the experiment)", "k-means++", "agglomerative"),
                ("init=random (Matlab's 'sample'), AGGLOMERATIVE", "random", "agglomerative"),
                ("k-means++, LOCALSEARCH", "k-means++", "local_search"),
                ("k-means++, FURTHEST", "k-means++", "furthest"),
                ("k-means++, BALLS", "k-means++", "balls")]
    print("| variant | k* | draws | main clusters found (min Jaccard >= 0.8) | min Jaccard min / median / max "
          "| draws with a pair together in >= 5 of 9 inputs | of the failures, such draws |")
    print("|---|--:|--:|--:|---|--:|--:|")
    for name, init, algo in variants:
        for k in (3, 5, 7):
            jac, pair5, fail_pair = [], 0, 0
            for s in range(n_draws):
                ds = agg_blobs_noise(k=k, random_state=1000 * k + s)
                C = clusterings_kmeans(ds, init=init, random_state=s).clusterings
                lab = ALGORITHMS[algo](item_order="random", random_state=s).fit(C).labels_
                j = main_cluster_match(ds.y, lab, noise_label=k).min()
                together = most_together(ds.y, C, k) >= 5
                jac.append(j)
                pair5 += together
                fail_pair += together and j < 0.8
            jac = np.array(jac)
            ok = int(np.sum(jac >= 0.8))
            print(f"| {name} | {k} | {n_draws} | {ok} | {jac.min():.3f} / {np.median(jac):.3f} / {jac.max():.3f} "
                  f"| {pair5} | {fail_pair} of {n_draws - ok} |", flush=True)


if __name__ == "__main__":
    main()
