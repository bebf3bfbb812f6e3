"""Vote linkage: average-linkage clustering of the votes that answers cast on pairs.

Every answer is read as votes on item pairs:

- a triplet ``(a, b, c)`` with ``c`` the outlier (Ukkonen 2017, Section II)
  and a relative constraint ``ab|c`` (Liu, Zhang and Wang 2011) both say
  that ``a`` and ``b`` are closer than either is to ``c``: +1 for
  ``{a, b}``, -1 for ``{a, c}`` and ``{b, c}``;
- a must-link is +1, a cannot-link -1 (Zhu, Loy and Gong 2013).

``s(u, v)`` is the mean vote on the pair (0 for a pair no answer touches),
and ``d = (1 - s) / 2`` in ``[0, 1]`` a distance.  Clusters are merged by
average linkage while their average distance is below ``threshold`` (1/2:
while the mean vote between them is positive) -- the AGGLOMERATIVE rule of
Gionis, Mannila and Tsaparas (2007, Section 4), here on votes rather than
on disagreements between input clusterings.  Deterministic, no features.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from sklearn.utils._param_validation import Interval

from ccexp.algorithms.base import RANDOM_STATE, ProblemEstimator


def vote_similarity(problem) -> np.ndarray:
    """The mean vote ``s(u, v)`` in [-1, 1] of every pair, as a dense symmetric (n, n) array (0 on the diagonal).

    Examples
    --------
    >>> import numpy as np
    >>> from ccexp.problem import Problem
    >>> vote_similarity(Problem(n_items=3, triplets=np.array([[0, 1, 2]])))
    array([[ 0.,  1., -1.],
           [ 1.,  0., -1.],
           [-1., -1.,  0.]])
    """
    n = problem.n_items
    votes = np.zeros((n, n))
    counts = np.zeros((n, n))

    def vote(u, v, w):
        for i, j in ((u, v), (v, u)):
            np.add.at(votes, (i, j), w)
            np.add.at(counts, (i, j), 1.0)

    for answers in (problem.triplets, problem.relative):
        if answers is not None and len(answers):
            a, b, c = answers[:, 0], answers[:, 1], answers[:, 2]
            vote(a, b, 1.0)
            vote(a, c, -1.0)
            vote(b, c, -1.0)
    for pairs, w in ((problem.must_link, 1.0), (problem.cannot_link, -1.0)):
        if pairs is not None and len(pairs):
            vote(pairs[:, 0], pairs[:, 1], w)
    return np.divide(votes, counts, out=np.zeros_like(votes), where=counts > 0)


class VoteLinkage(ProblemEstimator):
    """Average linkage on the distance ``(1 - mean vote) / 2`` of the answers, stopped at ``threshold``.

    Parameters
    ----------
    threshold : float in (0, 1]
        Merge while the clusters' average distance is below it (1/2: while
        their mean vote is positive).
    random_state : None
        Accepted for the runner's uniform interface; nothing is random.

    Attributes
    ----------
    labels_ : int64 array (n_items,)
        Clusters numbered by first appearance.
    similarity_ : float array (n_items, n_items)
        The mean votes (:func:`vote_similarity`).
    """

    reads = ("triplets", "relative", "pairwise")
    needs_features = False

    # checked before every fit (a ValueError naming the parameter); random_state is ccexp's to check
    _parameter_constraints = {"threshold": [Interval(Real, 0, 1, closed="right")], "random_state": RANDOM_STATE}

    def __init__(self, threshold=0.5, random_state=None):
        self.threshold = threshold
        self.random_state = random_state

    def fit_problem(self, problem):
        threshold = float(self.threshold)
        S = vote_similarity(problem)
        n = problem.n_items
        if n == 1:
            labels = np.zeros(1, dtype=np.int64)
        else:
            D = (1.0 - S) / 2.0
            np.fill_diagonal(D, 0.0)
            Z = linkage(squareform(D, checks=False), method="average")
            # strictly below threshold: a merge at exactly 1/2 has a mean vote of 0, no reason to merge
            raw = fcluster(Z, t=np.nextafter(threshold, 0.0), criterion="distance")
            _, first = np.unique(raw, return_index=True)
            order = np.argsort(np.argsort(first))  # cluster ids by first appearance
            labels = order[np.unique(raw, return_inverse=True)[1]].astype(np.int64)
        self.similarity_ = S
        self.labels_ = labels
        self.status_ = "ok"
        return self
