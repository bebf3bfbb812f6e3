"""Forest affinities: the clustering forest and the COP-RF of Zhu, Loy and Gong (2013).

Both grow trees on the pseudo two-class problem (real points against
uniform pseudo points, Section II-B) and average the same-leaf indicator of
every pair over the trees (Equation 6).  A COP forest also respects the
pairwise constraints at each split (Equation 5, Algorithm 1) and filters
the constraints of its root (Equations 7-8).

The Python driver owns the loop over trees; each step of a tree is one
numba kernel of :mod:`._forest_kernels`.  Trees are grown one after another:
on this project's shared two-core machine a thread pool did not pay
(``scripts/bench/bench_coprf.py`` reports the split of the time).
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..._validation import check_features, check_positive_int, check_random_state, unknown_name_error
from . import _forest_kernels as K
from ._forest_sample import draw_tree_sample_marginal
from ._forest_variants import apply_tree_general, grow_tree_general

CL_RULES = {"split": 0, "leaf": 1}
#: The tree variants of the ablation (issue 34, item 6; :mod:`._forest_variants`), the paper's reading first.
PSEUDO = {"tree": 0, "node": 1, "marginal": 2, "cltree": 3}
CUTS = {"axis": 0, "oblique": 1}
THRESHOLDS = {"midpoint": 0, "random": 1}


def default_mtry(n_features: int) -> int:
    """sqrt(d) candidate features per node (Section III), at least 1."""
    return max(1, int(round(math.sqrt(n_features))))


def forest_affinity(
    X,
    must_link=None,
    cannot_link=None,
    n_trees: int = 1000,
    mtry: int | None = None,
    n_filter: int = 500,
    alpha: float = 0.5,
    cl_rule: str = "split",
    pseudo: bool | str = True,
    random_state=None,
    *,
    cuts: str = "axis",
    threshold: str = "midpoint",
    leaf_size: int = 1,
):
    """Tree-averaged same-leaf affinity of a clustering forest or a COP-RF.

    Parameters
    ----------
    X : float array (n, d)
        Features (already scaled).
    must_link, cannot_link : int arrays (p, 2), (q, 2), optional
        Pairwise constraints; with neither, a plain clustering forest.
    n_trees : int
        T_c (1000 in the paper).
    mtry : int, optional
        Candidate features per node; default sqrt(d).
    n_filter : int
        f, repetitions of the noisy-constraint filter at each root
        (Equations 7-8; 500 in the paper). 0 turns the filter off: the root
        then respects all of the tree's constraints.
    alpha : float in (0, 1)
        Size of the random subsets and of the kept subset, as a fraction of
        the tree's constraints (0.5 in the paper).
    cl_rule : {"split", "leaf"}
        How a cannot-link pair constrains a split (see
        :mod:`._forest_kernels`; experiments/zhu2013/README.md).
    pseudo : bool or {"tree", "node", "marginal", "cltree"}
        ``True`` / ``"tree"``: n uniform pseudo points per tree in the data's
        bounding box (the pseudo two-class problem, Section II-B); ``"node"``:
        drawn afresh at every node in the bounding box of its real points,
        as many as it holds real samples (CLTree); ``"marginal"``: n pseudo
        points per tree, each coordinate drawn from that feature's real
        values (Breiman's synthetic class, the paper's [2];
        :func:`~._forest_sample.draw_tree_sample_marginal`); ``"cltree"``:
        per node in the node's region, as many as inherited from its parent
        (shared by the lengths on each side of its cut), at least its real
        samples (CLTree's bookkeeping, axis-aligned cuts only;
        :mod:`._forest_variants`); ``False``: none.
    random_state : int, Generator or None
        Seeds one integer per tree (and per kernel), so a forest is a
        function of its inputs and the seed.
    cuts : {"axis", "oblique"}
        Axis-aligned cuts (Equation 2) or Forest-RC's random linear
        combinations of three features (:mod:`._forest_variants`).
    threshold : {"midpoint", "random"}
        Best of every midpoint cut (Algorithm 1), or one uniform random
        threshold per candidate.
    leaf_size : int
        phi: a node with at most this many real samples is a leaf (1: the
        paper's phi = 1).

    The three options after ``random_state`` are the ablation of issue 34
    (experiments/zhu2013/README.md); their defaults are the reading used
    throughout, grown by :func:`~._forest_tree.grow_tree`.  The COP-RF
    filter (Equations 7-8) scores constraints by the best axis-aligned
    midpoint root cut under every variant.

    Returns
    -------
    A : float64 (n, n)
        Fraction of trees in which i and j share a leaf, zero diagonal.
    info : dict
        ``timings`` (seconds: ``filter``, ``growth``, ``affinity``),
        ``mean_leaves``, ``mean_constraints`` (per tree), ``mean_kept``.

    Notes
    -----
    Per tree: O(n d) sampling, O(f mtry |P_t| log |P_t| + d m log m) filtering,
    O(nodes mtry (m log m + |P_t|)) growth and O(n depth + n^2) affinity.
    """
    X = check_features(X, "X")
    n, d = X.shape
    n_trees = check_positive_int(n_trees, "n_trees")
    mtry = default_mtry(d) if mtry is None else check_positive_int(mtry, "mtry")
    if cl_rule not in CL_RULES:
        raise unknown_name_error("cl_rule", cl_rule, CL_RULES)
    if not (0.0 < float(alpha) < 1.0):
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    n_filter = check_positive_int(n_filter, "n_filter", minimum=0)
    pseudo_mode = {True: "tree", False: "none"}.get(pseudo, pseudo) if isinstance(pseudo, bool) else pseudo
    if pseudo_mode not in (*PSEUDO, "none"):
        raise unknown_name_error("pseudo", pseudo, [*PSEUDO, "none"])
    if cuts not in CUTS:
        raise unknown_name_error("cuts", cuts, CUTS)
    if pseudo_mode == "cltree" and cuts != "axis":
        raise ValueError(f"pseudo='cltree' needs cuts='axis' (regions are boxes), got cuts={cuts!r}")
    if threshold not in THRESHOLDS:
        raise unknown_name_error("threshold", threshold, THRESHOLDS)
    leaf_size = check_positive_int(leaf_size, "leaf_size")
    general = pseudo_mode in ("node", "cltree") or cuts != "axis" or threshold != "midpoint" or leaf_size > 1
    ml = np.ascontiguousarray(np.empty((0, 2)) if must_link is None else must_link, dtype=np.int64).reshape(-1, 2)
    cl = np.ascontiguousarray(np.empty((0, 2)) if cannot_link is None else cannot_link, dtype=np.int64).reshape(-1, 2)
    rule = CL_RULES[cl_rule]
    opts = np.array([mtry, rule, {"node": 1, "cltree": 2}.get(pseudo_mode, 0), CUTS[cuts], THRESHOLDS[threshold], leaf_size],
                    dtype=np.int64)
    lo, hi = X.min(axis=0), X.max(axis=0)
    seeds = check_random_state(random_state).integers(0, 2**31 - 1, size=(n_trees, 3))
    counts = np.zeros((n, n), dtype=np.int32)
    # every tree sample's rows sorted along every feature (for the filter and the larger nodes of
    # the tree) without sorting them per tree: the real points are sorted once here
    presort = K.presort_features(X)
    t_filter = t_grow = t_aff = 0.0
    n_leaves = n_cons = n_kept = 0
    for t in range(n_trees):
        t0 = time.perf_counter()
        if pseudo_mode == "marginal":
            Xs, ws, cls, local = draw_tree_sample_marginal(X, n, seeds[t, 0])
        else:
            Xs, ws, cls, local = K.draw_tree_sample(X, lo, hi, 0 if pseudo_mode == "none" else n, seeds[t, 0])
        sample = (Xs, ws, cls)
        # read by the filter and by grow_tree; the general variants' trees sort for themselves
        order = K.sample_order(Xs, local, presort) if n_filter > 0 or not general else None
        ml_t, _ = K.local_pairs(ml, local)
        cl_t, _ = K.local_pairs(cl, local)
        if n_filter > 0 and ml_t.shape[0] + cl_t.shape[0] > 1:
            keep_ml, keep_cl, _ = K.filter_root_constraints(sample, ml_t, cl_t, mtry, rule, n_filter, float(alpha),
                                                            seeds[t, 1], order)
        else:
            keep_ml = np.ones(ml_t.shape[0], dtype=np.bool_)
            keep_cl = np.ones(cl_t.shape[0], dtype=np.bool_)
        t1 = time.perf_counter()
        if general:
            pf, pw, thr, left, right, _ = grow_tree_general(sample, (ml_t, cl_t, keep_ml, keep_cl), opts, seeds[t, 2])
            t2 = time.perf_counter()
            leaves = apply_tree_general(X, pf, pw, thr, left, right)
        else:
            feature, thr, left, right, _ = K.grow_tree(sample, (ml_t, cl_t, keep_ml, keep_cl), mtry, rule, seeds[t, 2],
                                                       order)
            t2 = time.perf_counter()
            leaves = K.apply_tree(X, feature, thr, left, right)
        K.accumulate_same_leaf(leaves, counts)
        t3 = time.perf_counter()
        t_filter += t1 - t0
        t_grow += t2 - t1
        t_aff += t3 - t2
        n_leaves += int(np.sum(left < 0))
        n_cons += ml_t.shape[0] + cl_t.shape[0]
        n_kept += int(keep_ml.sum() + keep_cl.sum())
    t0 = time.perf_counter()
    A = counts.astype(np.float64) / n_trees
    np.fill_diagonal(A, 0.0)
    t_aff += time.perf_counter() - t0
    info = {
        "timings": {"filter": t_filter, "growth": t_grow, "affinity": t_aff},
        "mean_leaves": n_leaves / n_trees,
        "mean_constraints": n_cons / n_trees,
        "mean_kept": n_kept / n_trees,
    }
    return A, info


def warmup() -> None:
    """Compile the forest kernels on a tiny input."""
    rng = np.random.default_rng(0)
    X = rng.random((12, 3))
    for rule in CL_RULES:
        forest_affinity(X, [[0, 1], [2, 3]], [[0, 5], [1, 7]], n_trees=2, n_filter=3, cl_rule=rule, random_state=0)
    forest_affinity(X, [[0, 1]], [[0, 5]], n_trees=1, n_filter=0, pseudo="node", cuts="oblique", threshold="random",
                    leaf_size=2, random_state=0)
    forest_affinity(X, n_trees=1, n_filter=0, pseudo="marginal", random_state=0)
    forest_affinity(X, [[0, 1]], [[0, 5]], n_trees=1, n_filter=0, pseudo="cltree", random_state=0)
