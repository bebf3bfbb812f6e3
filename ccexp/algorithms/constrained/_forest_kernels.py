"""Numba kernels of the clustering forest and of COP-RF (Zhu, Loy, Gong 2013).

One tree is grown on a *tree sample*: the distinct in-bag points of a
bootstrap draw (weighted by how often they were drawn) followed by pseudo
points drawn uniformly in the bounding box of the data (the pseudo two-class
problem of a clustering forest, Section II-B).  Splits are axis-aligned
(Equation 2) and chosen by the Gini gain of the real-versus-pseudo labels
(Equation 4) among ``mtry`` random features (Equation 3); a COP tree keeps
only the splits that respect the constraints of its node (Equation 5,
Algorithm 1).

Constraint rules (``cl_rule``), see experiments/zhu2013/README.md:

* ``0`` ("split", Algorithm 1 as written): a split is valid iff it separates
  no must-link pair of the node and separates every cannot-link pair of the
  node.
* ``1`` ("leaf"): a split is valid iff it separates no must-link pair of the
  node; a node that holds cannot-link pairs only accepts splits that
  separate at least one of them, and it keeps splitting (even at zero gain)
  until no valid split separates any of them.

A pair is *of the node* when both its points reach the node.  Every kernel
is a pure function of its inputs; randomness enters as a seed (numba's
generator is seeded at the top of each kernel).

The kernels live in modules named after what they hold:
:mod:`._forest_sample` (a tree's training set), :mod:`._forest_cuts` (the
cuts of one node), :mod:`._forest_tree` (growing and applying a tree) and
:mod:`._forest_root_filter` (COP-RF's root constraint filter).  This module
gathers the ones ``forest.py`` calls, so that it (and the benchmark, which
swaps ``filter_root_constraints`` for the scan) reads one namespace.
"""

from __future__ import annotations

__all__ = [
    "draw_tree_sample",
    "local_pairs",
    "presort_features",
    "sample_order",
    "grow_tree",
    "apply_tree",
    "accumulate_same_leaf",
    "filter_root_constraints",
    "filter_root_constraints_scan",
    "_filter_root",
    "_root_cut_fast",
    "_sparse_argmax_table",
]

from ._forest_root_filter import (
    _filter_root,
    _root_cut_fast,
    _sparse_argmax_table,
    filter_root_constraints,
    filter_root_constraints_scan,
)
from ._forest_sample import draw_tree_sample, local_pairs, presort_features, sample_order
from ._forest_tree import accumulate_same_leaf, apply_tree, grow_tree
