"""Correlation-clustering core shared by the algorithm families.

A signed weighted graph (:class:`SignedGraph`), its cost (:func:`cc_cost`,
Problem 1 of Ukkonen 2017), two solvers (:func:`cc_local_search`,
:func:`pivot`), the exact and LP solvers (``exact.py``, region growing),
and the pieces every family shares: union-find (``union_find.py``), the
first-appearance relabelling (``labels.py``) and the contingency table of
two labelings with ARI/AMI (``contingency.py``). Numba kernels live beside
their wrappers (``_kernels.py`` for the graph solvers); the functions here
validate input once and call them.

Why :class:`SignedGraph`, :func:`cc_local_search` and :func:`pivot` live
here although only ``triplet_approx`` calls them today: they solve
correlation clustering on an explicit signed graph, a problem that does not
belong to any one kind of supervision. Ukkonen's approximation reduces
triplets to it (Section IV-A), the CC gap experiment (``cc_gaps``) compares
solvers on such instances, and pairwise or aggregated answers turn into a
signed graph the same way. The families that keep a local search of their
own do so because their data are not a sparse signed graph: active
learning works on a dense, changing similarity matrix (Aronsson and
Chehreghani 2024, ``algorithms/active/_local_search_kernels.py`` and
``_maxcor_sums.py``), aggregation on
distances implicit in the input clusterings (Gionis, Mannila and Tsaparas
2007, ``algorithms/aggregation/_kernels.py``), and the triplet local search
scores triplets, not edges (Ukkonen 2017, Algorithm 2).
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
