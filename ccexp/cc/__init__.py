"""Correlation-clustering core shared by every algorithm family.

A signed weighted graph (:class:`SignedGraph`), its cost (:func:`cc_cost`,
Problem 1 of Ukkonen 2017), two solvers (:func:`cc_local_search`,
:func:`pivot`) and union-find helpers. Numba kernels live in ``_kernels.py``;
the functions here validate input once and call them.
"""

from .graph import SignedGraph, signed_graph_from_edges
from .labels import relabel_contiguous
from .local_search import cc_local_search
from .objective import cc_cost
from .pivot import pivot
from .union_find import UnionFind, connected_components

__all__ = [
    "SignedGraph",
    "signed_graph_from_edges",
    "cc_cost",
    "cc_local_search",
    "pivot",
    "connected_components",
    "UnionFind",
    "relabel_contiguous",
]
