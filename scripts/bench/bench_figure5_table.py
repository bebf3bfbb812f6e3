"""Figure 5 (left) with the distance table in the full algorithm's time (Gionis et al. 2007, Section 4).

    CCEXP_DATA_DIR=... python scripts/bench/bench_figure5_table.py [--repeats 5]

Section 4 states the algorithms' cost with the table of X_uv: BALLS is "O(mn^2) for generating the
table and O(n^2) for running the algorithm", and "the algorithms we described in Section 4 take as
input the distance matrix, so their complexity is quadratic". ``ccexp``'s BALLS never builds the
table (it evaluates X_uv from the label rows and, on Mushrooms, a few large balls cover almost
everything: 0.02 s), so SAMPLING cannot save it anything (claim_half_time_at_1600: BALLS' fraction
1.07 in the committed run). AGGLOMERATIVE and FURTHEST do build the condensed table.

This measures, on Mushrooms, BALLS' time as a fraction of the full run's when both sides pay for the
table the paper's BALLS builds: full = table of the 8,124 items (``condensed_x``) + BALLS; SAMPLING
at 1,600 = SAMPLING(BALLS) + the table of its 1,600-item sample. The two sides alternate call by
call (``--repeats`` pairs after a warm-up); it prints each pair's ratio and their median. Timing on
a shared machine is noisy: read the ratios' order of magnitude, not their digits.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from ccexp.algorithms.aggregation import Balls, Sampling
from ccexp.data import load_dataset
from ccexp.objectives.clusterings import encode
from ccexp.objectives.kernels import condensed_x
from ccexp.oracles.clusterings import clusterings_categorical


def full(C) -> float:
    t = time.perf_counter()
    enc = encode(C, 0.5)
    condensed_x(enc.codes, enc.q)
    Balls().fit(C)
    return time.perf_counter() - t


def sampled(C, seed: int, size: int = 1600) -> float:
    t = time.perf_counter()
    est = Sampling(algorithm="balls", sample_size=size, singletons="sampling", random_state=seed).fit(C)
    sample = np.random.default_rng(seed).choice(C.shape[1], size=size, replace=False)
    enc = encode(C[:, sample], 0.5)
    condensed_x(enc.codes, enc.q)
    assert est.labels_.shape == (C.shape[1],)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    if "CCEXP_DATA_DIR" not in os.environ:
        raise SystemExit("set CCEXP_DATA_DIR to the folder holding mushroom")
    C = clusterings_categorical(load_dataset("mushroom"), p=0.5).clusterings
    full(C), sampled(C, 0)  # warm-up (numba compilation)
    ratios = []
    print("| pair | full: table + BALLS (s) | SAMPLING 1600 + its table (s) | ratio |")
    print("|--:|--:|--:|--:|")
    for i in range(args.repeats):
        a, b = (full(C), sampled(C, i)) if i % 2 == 0 else tuple(reversed((sampled(C, i), full(C))))
        ratios.append(b / a)
        print(f"| {i} | {a:.3f} | {b:.3f} | {b / a:.3f} |", flush=True)
    print(f"median ratio {np.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
