"""COP-RF: the COnstraint Propagation Random Forest of Zhu, Loy and Gong (ICDM 2013).

T_c COP trees (bagged, sqrt(d) candidate features, axis-aligned cuts, the
Gini split of the pseudo two-class problem that respects the node's
constraints: Equation 5, Algorithm 1), the noisy-constraint filter at each
root (f repetitions on random subsets of alpha |P_t| constraints, Equations
7-8), the tree-averaged same-leaf affinity (Equation 6), its k-NN graph
(k ~ N/10) and NJW spectral clustering.  Our reading of the OCR's garbled
parts is in experiments/zhu2013/README.md.
"""

from __future__ import annotations

import time
from numbers import Integral, Real

from sklearn.utils._param_validation import Interval, StrOptions

from ...registry import ALGORITHMS
from .forest import CL_RULES, CUTS, PSEUDO, THRESHOLDS, forest_affinity, warmup as forest_warmup
from .spectral import COMMON_CONSTRAINTS, POSITIVE_INT, PairwiseEstimator, knn_graph, njw_spectral, prepare_features


@ALGORITHMS.register("cop_rf")
class COPRF(PairwiseEstimator):
    """COP-RF (Zhu et al. 2013).

    Parameters
    ----------
    n_clusters : int, optional
        k; by default ``problem.meta["n_clusters"]``.
    n_trees : int
        T_c (1000 in the paper).
    n_filter : int
        f, filter repetitions per root (500); 0 disables the filter.
    alpha : float in (0, 1)
        Subset fraction of the filter (0.5).
    mtry : int, optional
        Candidate features per node; default sqrt(d).
    n_neighbors : int, optional
        k of the k-NN graph; default round(n / 10).
    cl_rule : {"leaf", "split"}
        How a cannot-link constrains a split: "split" is Algorithm 1 taken
        literally (every cannot-link pair of a node separated by its split),
        "leaf" keeps must-links hard and splits until no cannot-link pair of
        a leaf can be separated (experiments/zhu2013/README.md compares them).
    scale : {"symmetric", "none"}
        Scale features to [-1, 1] first (the paper's; trees are invariant to it).
    n_init : int
        k-means restarts of the spectral step.
    random_state : int or None
    pseudo : {"tree", "node", "marginal", "cltree"}
        Uniform pseudo points drawn once per tree (the default), per node in
        its real points' box, once per tree from the features' marginals
        (Breiman), or per node in its region as CLTree counts them.
    cuts : {"axis", "oblique"}
        Axis-aligned cuts (Equation 2, the default) or Forest-RC's random
        linear combinations.
    threshold : {"midpoint", "random"}
        Every midpoint cut (Algorithm 1, the default) or one random threshold
        per candidate.
    leaf_size : int
        phi, the largest leaf (1 in the paper).

    The last four are the tree variants of issue 34's ablation
    (:func:`~.forest.forest_affinity`, experiments/zhu2013/README.md).

    Attributes
    ----------
    labels_ : int64 (n,)
    affinity_ : float64 (n, n)
        Equation 6 averaged over the trees.
    forest_info_ : dict
        Mean leaves, constraints and kept constraints per tree.
    timings_ : dict
        ``filter`` (drawing each tree's sample and filtering its root
        constraints), ``growth``, ``affinity``, ``spectral`` (k-NN graph and NJW).
    status_ : str
    """

    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "n_trees": [POSITIVE_INT],
        "n_filter": [Interval(Integral, 0, None, closed="left")],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "mtry": [POSITIVE_INT, None],
        "n_neighbors": [POSITIVE_INT, None],
        "cl_rule": [StrOptions(set(CL_RULES))],
        "pseudo": [StrOptions(set(PSEUDO))],
        "cuts": [StrOptions(set(CUTS))],
        "threshold": [StrOptions(set(THRESHOLDS))],
        "leaf_size": [POSITIVE_INT],
    }

    def __init__(self, n_clusters=None, n_trees=1000, n_filter=500, alpha=0.5, mtry=None, n_neighbors=None,
                 cl_rule="leaf", scale="symmetric", n_init=10, random_state=None, pseudo="tree", cuts="axis",
                 threshold="midpoint", leaf_size=1):
        self.n_clusters = n_clusters
        self.n_trees = n_trees
        self.n_filter = n_filter
        self.alpha = alpha
        self.mtry = mtry
        self.n_neighbors = n_neighbors
        self.cl_rule = cl_rule
        self.scale = scale
        self.n_init = n_init
        self.random_state = random_state
        self.pseudo = pseudo
        self.cuts = cuts
        self.threshold = threshold
        self.leaf_size = leaf_size

    def _fit(self, X, ml, cl, k):
        Xs = prepare_features(X, self.scale)
        n = Xs.shape[0]
        kk = max(1, round(n / 10)) if self.n_neighbors is None else self.n_neighbors
        A, info = forest_affinity(
            Xs, ml, cl, n_trees=self.n_trees, mtry=self.mtry, n_filter=self.n_filter, alpha=self.alpha,
            cl_rule=self.cl_rule, random_state=self.random_state, pseudo=self.pseudo, cuts=self.cuts,
            threshold=self.threshold, leaf_size=self.leaf_size,
        )
        t0 = time.perf_counter()
        self.labels_ = njw_spectral(knn_graph(A, kk), k, self.n_init, self.random_state)
        self.affinity_ = A
        self.forest_info_ = {k_: v for k_, v in info.items() if k_ != "timings"}
        self.timings_ = {**info["timings"], "spectral": time.perf_counter() - t0}
        self.status_ = "ok"
        return self

    @classmethod
    def warmup(cls) -> None:
        forest_warmup()
