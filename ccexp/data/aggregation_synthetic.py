"""Synthetic 2-D point sets of Gionis et al. (2007), Figures 3, 4 and 5 (right).

The paper shows its point sets but does not publish them; these generators
rebuild them from the text (Section 5.1, 5.3).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_random_state

from ..registry import DATASETS
from .dataset import Dataset


@DATASETS.register("agg_bridges")
def agg_bridges(scale: float = 1.0, random_state=None) -> Dataset:
    """Seven perceptually distinct groups with narrow bridges and uneven sizes (Figure 3).

    * groups 0 and 1: two round blobs (400 points each, sd 1) joined by a
      narrow bridge of 30 points (each half belongs to the nearer blob):
      single linkage chains them;
    * group 2: a long thin band (300 points) above them, which k-means and
      Ward cut into pieces;
    * group 3: a small dense blob (60 points, sd 0.3) at the band's right end;
    * group 4: a small blob (80 points, sd 0.4) below the blobs;
    * group 5: a medium blob (150 points, sd 0.7) to the right;
    * group 6: a tiny blob (40 points, sd 0.3) joined to group 0 by a
      20-point bridge.

    ``scale`` multiplies every group size (rounded). ``y`` = group.
    """
    rng = check_random_state(random_state)

    def count(c):
        return max(1, int(round(c * float(scale))))

    def blob(center, sd, c):
        return rng.normal(center, sd, size=(count(c), 2))

    def bridge(a, b, c, width=0.06):
        t = rng.uniform(0, 1, size=count(c))
        pts = np.outer(1 - t, a) + np.outer(t, b) + rng.normal(0, width, size=(t.size, 2))
        return pts, t

    parts, labels = [], []

    def add(pts, lab):
        parts.append(pts)
        labels.append(np.full(pts.shape[0], lab) if np.isscalar(lab) else lab)

    add(blob((0.0, 0.0), 1.0, 400), 0)
    add(blob((6.0, 0.0), 1.0, 400), 1)
    pts, t = bridge(np.array([1.6, 0.0]), np.array([4.4, 0.0]), 30)
    add(pts, np.where(t < 0.5, 0, 1))
    band = np.column_stack([rng.uniform(-2.0, 8.0, count(300)), rng.normal(4.5, 0.2, count(300))])
    add(band, 2)
    add(blob((9.6, 4.5), 0.3, 60), 3)
    add(blob((3.0, -4.5), 0.4, 80), 4)
    add(blob((10.5, -2.5), 0.7, 150), 5)
    add(blob((-3.5, -4.0), 0.3, 40), 6)
    pts, t = bridge(np.array([-3.2, -3.7]), np.array([-1.0, -1.0]), 20)
    add(pts, np.where(t < 0.5, 6, 0))
    X = np.vstack(parts)
    y = np.concatenate(labels).astype(np.int64)
    return Dataset(name="agg_bridges", y=y, X=X, params={"scale": float(scale)})


@DATASETS.register("agg_blobs_noise")
def agg_blobs_noise(k: int = 5, n_per_cluster: int = 100, noise: float = 0.2, sd: float = 0.04,
                    n_total: int | None = None, random_state=None) -> Dataset:
    """``k`` centres uniform in the unit square, normal points around each, plus uniform noise (Figure 4).

    Parameters
    ----------
    k : int
        Number of centres (the paper's k* = 3, 5, 7; 5 for Figure 5).
    n_per_cluster : int
        Points per centre (100 in Figure 4); ignored when ``n_total`` is set.
    noise : float
        Uniform background points as a fraction of the clustered points (0.2).
    sd : float
        Standard deviation of each normal cluster (not stated in the paper).
    n_total : int, optional
        Total size for the scalability data (50K .. 1M): the clustered
        points are ``n_total / (1 + noise)``, split evenly.

    ``y``: the centre index, ``k`` for background points.
    """
    rng = check_random_state(random_state)
    k = int(k)
    if n_total is not None:
        n_per_cluster = int(round(int(n_total) / (1.0 + noise) / k))
    n_clustered = k * int(n_per_cluster)
    n_noise = int(round(noise * n_clustered)) if n_total is None else int(n_total) - n_clustered
    centers = rng.uniform(0, 1, size=(k, 2))
    y = np.concatenate([np.repeat(np.arange(k), n_per_cluster), np.full(n_noise, k)]).astype(np.int64)
    X = np.vstack([centers[y[:n_clustered]] + rng.normal(0, sd, size=(n_clustered, 2)),
                   rng.uniform(0, 1, size=(n_noise, 2))])
    return Dataset(name="agg_blobs_noise", y=y, X=X,
                   params={"k": k, "n_per_cluster": int(n_per_cluster), "noise": float(noise), "sd": float(sd)})
