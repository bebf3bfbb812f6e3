"""Figure 5 (middle; Gionis et al. 2007, Section 5.3): the spread behind claim_error_converges_by_1600.

    CCEXP_DATA_DIR=... python scripts/ablate_figure5_error.py [n_draws]

The committed agg_scalability run has one draw per point: SAMPLING's sample (seeded) and the full
algorithm in the file's order. Both are random choices: the sample, and the item order the inner
algorithm visits (AGGLOMERATIVE's ties, FURTHEST's furthest pair; BALLS' sort decides its order).
For AGGLOMERATIVE, FURTHEST and BALLS on Mushrooms it runs ``n_draws`` (default 10) draws of
SAMPLING with a 1,600-item sample (seed s: the sample and the inner algorithm's item order) and of
the full algorithm over random item orders (seed s), and prints the EC (%) of each side (mean, sd,
min / max), the difference of the means, and in how many of the n_draws x n_draws pairs
|EC(1600) - EC(full)| is below the claim's cap (Table 3's distance to the nearest other method:
AGGLOMERATIVE 0.2, FURTHEST 0.3, BALLS 3.1 points).

One more row per inner algorithm uses the file's order for the full run (the committed run's).
Runs in about 2-4 min on a quiet machine.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from ccexp.algorithms.aggregation import Agglomerative, Balls, Furthest, Sampling
from ccexp.data import load_dataset
from ccexp.metrics import classification_error
from ccexp.oracles.clusterings import clusterings_categorical

INNER = {"agglomerative": Agglomerative, "furthest": Furthest, "balls": Balls}
CAPS = {"agglomerative": 0.2, "furthest": 0.3, "balls": 3.1}


def main() -> None:
    if "CCEXP_DATA_DIR" not in os.environ:
        raise SystemExit("set CCEXP_DATA_DIR to the folder holding mushroom")
    n_draws = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    ds = load_dataset("mushroom")
    C = clusterings_categorical(ds, p=0.5).clusterings
    ec = lambda lab: 100 * classification_error(ds.y, lab)  # noqa: E731
    print("| inner | SAMPLING 1600: EC mean (sd; min / max) | full: EC mean (sd; min / max) | full in the file's order "
          "| mean difference | pairs within the cap |")
    print("|---|---|---|--:|--:|--:|")
    for name, cls in INNER.items():
        samp = np.array([ec(Sampling(algorithm=name, algorithm_params={"item_order": "random"}, sample_size=1600,
                                     singletons="sampling", random_state=s).fit(C).labels_) for s in range(n_draws)])
        full = np.array([ec(cls(item_order="random", random_state=s).fit(C).labels_) for s in range(n_draws)])
        file_order = ec(cls().fit(C).labels_)
        within = int(np.sum(np.abs(samp[:, None] - full[None, :]) < CAPS[name]))
        f = lambda a: f"{a.mean():.2f} ({a.std(ddof=1):.2f}; {a.min():.2f} / {a.max():.2f})"  # noqa: E731
        print(f"| {name} | {f(samp)} | {f(full)} | {file_order:.2f} | {samp.mean() - full.mean():+.2f} "
              f"| {within} of {n_draws * n_draws} (cap {CAPS[name]}) |", flush=True)


if __name__ == "__main__":
    main()
