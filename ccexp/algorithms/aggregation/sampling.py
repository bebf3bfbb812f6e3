"""SAMPLING (Gionis et al. 2007, Section 4.1): cluster a sample, assign the rest."""

from __future__ import annotations

import functools
import time
from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from ..._validation import check_random_state

from ...registry import ALGORITHMS
from ..base import RANDOM_STATE, validate_params
from . import _kernels as K
from .estimator import FIGURE1, AggregationAlgorithms, AggregationEstimator
from ...objectives.clusterings import EncodedClusterings


#: how step 3 clusters the singletons left by the assignment
SINGLETONS = ("aggregate", "sampling")


@ALGORITHMS.register("sampling")
class Sampling(AggregationEstimator):
    """Run an aggregation algorithm on a uniform sample and extend it in linear time.

    1. Draw ``sample_size`` items uniformly without replacement and cluster
       them with ``algorithm``.
    2. Put every other item into the sample cluster C minimising
       ``2 M(v, C) - |C|`` (the LOCALSEARCH rule) when that is negative,
       i.e. when the mean distance to C is below 1/2; otherwise the item is
       left a singleton. Clusters are those of the sample (not updated
       during the pass), so the result does not depend on the visiting order.
    3. Cluster the singletons again. ``singletons="aggregate"`` (the paper:
       "we collect all singleton clusters and we run the clustering
       aggregation again on this subset of nodes") runs ``algorithm`` on all
       of them at once, which is quadratic in their number for a quadratic
       algorithm. ``singletons="sampling"`` runs SAMPLING on them instead
       (recursively) when there are more of them than ``sample_size``, so no
       step is quadratic in n: the linear time of Figure 5 on a million
       points with 20 % noise needs it.

    With ``sample_size >= n`` the wrapped algorithm runs on all items and
    the result is exactly its own.

    Parameters
    ----------
    algorithm : str, default "furthest"
        Registry name of the wrapped aggregation algorithm.
    algorithm_params : dict or None
        Its parameters.
    sample_size : int, default 1000
    singletons : {"aggregate", "sampling"}, default "aggregate"
        How step 3 clusters the singletons (above). On Census (Section 5.2)
        the number of clusters depends on it: see
        ``experiments/gionis2007/README.md``.
    p : float or None
        Missing-value coin.
    random_state : int, Generator or None
        Draws the samples.

    Attributes
    ----------
    timings_ : dict
        Seconds in ``sample`` (clustering the samples), ``assign`` and
        ``singletons`` (summed over recursion levels).
    n_levels_ : int
        Recursion depth used (1 without a singleton re-run by sampling; at
        most 2 with ``singletons="aggregate"``).

    Notes
    -----
    O(s^2 m) for a quadratic wrapped algorithm on s sampled items, plus
    O(n k m) for the assignment with k sample clusters.
    """

    _parameter_constraints = {
        "algorithm": [AggregationAlgorithms(exclude={"sampling"})],
        "algorithm_params": [dict, None],
        "sample_size": [Interval(Integral, 1, None, closed="left")],
        "singletons": [StrOptions(set(SINGLETONS))],
        "p": AggregationEstimator.P_CONSTRAINT,
        "random_state": RANDOM_STATE,
    }

    def __init__(self, algorithm="furthest", algorithm_params=None, sample_size=1000, singletons="aggregate", p=None,
                 random_state=None):
        self.algorithm = algorithm
        self.algorithm_params = algorithm_params
        self.sample_size = sample_size
        self.singletons = singletons
        self.p = p
        self.random_state = random_state

    @classmethod
    def warmup(cls) -> None:
        """Compile what any wrapped algorithm runs, before the first timed fit (agg_scalability times them).

        The runner warms each registered class once; SAMPLING's own default would compile FURTHEST only,
        and the first case of another wrapped algorithm then paid its compilation (1.9 s of AGGLOMERATIVE's
        first run at a sample of 100 in a fresh clone, against 0.01 s warm).
        """
        for name in ("agglomerative", "furthest", "balls", "local_search"):
            for order in ("index", "random"):
                cls(algorithm=name, algorithm_params={"item_order": order}, sample_size=4,
                    singletons="sampling", random_state=0).fit(FIGURE1)

    def _cluster(self, enc: EncodedClusterings, *, algorithm, algorithm_params, sample_size, singletons,
                 random_state) -> np.ndarray:
        s = int(sample_size)
        self._timing = {"sample": 0.0, "assign": 0.0, "singletons": 0.0}
        self.n_levels_ = 0
        rng = check_random_state(random_state)
        inner = functools.partial(_run_inner, algorithm, algorithm_params, random_state)
        labels = self._level(enc, s, rng, np.arange(enc.n_items), inner, singletons)
        self.timings_ = dict(self._timing)
        return labels

    def _level(self, enc: EncodedClusterings, s: int, rng, items: np.ndarray, inner, singletons) -> np.ndarray:
        """Labels of ``enc.subset(items)`` by ``inner`` (:func:`_run_inner`); recursion on the singletons."""
        n = items.shape[0]
        self.n_levels_ += 1
        sub = enc.subset(items)
        t0 = time.perf_counter()
        if n <= s or (self.n_levels_ > 1 and singletons == "aggregate"):
            labels = inner(sub)
            self._timing["sample" if self.n_levels_ == 1 else "singletons"] += time.perf_counter() - t0
            return labels
        sample = np.sort(rng.choice(n, size=s, replace=False))
        sample_labels = inner(sub.subset(sample))
        k = int(sample_labels.max()) + 1
        t1 = time.perf_counter()
        self._timing["sample"] += t1 - t0

        hist = np.zeros((k, int(enc.off[-1])), dtype=np.int64)
        sizes = np.zeros(k, dtype=np.int64)
        K.build_histograms(sub.codes[sample], enc.off, sample_labels, hist, sizes)
        labels = np.empty(n, dtype=np.int64)
        K.assign_to_clusters(sub.codes, enc.off, enc.q, hist, sizes, k, labels)
        labels[sample] = sample_labels
        t2 = time.perf_counter()
        self._timing["assign"] += t2 - t1

        alone = np.flatnonzero(labels < 0)
        if alone.size:
            rest = self._level(sub, s, rng, alone, inner, singletons)
            labels[alone] = k + rest
        return labels


def _run_inner(algorithm: str, algorithm_params, random_state, enc: EncodedClusterings) -> np.ndarray:
    """The labels of ``enc`` by the wrapped aggregation algorithm (``algorithm`` with ``algorithm_params``).

    It is not SAMPLING itself (the algorithm constraint); its parameters are checked as its own fit
    would, and it takes SAMPLING's ``random_state`` where it has one.
    """
    est = ALGORITHMS.get(algorithm)(**dict(algorithm_params or {}))
    if "random_state" in est.get_params():
        est.set_params(random_state=random_state)
    validate_params(est)
    est.p = 1.0 - enc.q
    return est._fit_encoded(enc).labels_

