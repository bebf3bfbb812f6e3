"""KwikCluster (pivot) for correlation clustering."""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int, check_random_state
from ._kernels import cc_cost_kernel, pivot_kernel
from .labels import relabel_contiguous
from .objective import _check_graph


def pivot(graph, random_state=None, n_runs: int = 1) -> np.ndarray:
    """KwikCluster: random pivots, each taking its unclustered positive neighbours.

    Ailon, Charikar and Newman (2008), "Aggregating inconsistent information:
    ranking and clustering", Section 2: visit the items in a uniformly random
    order; an item not yet clustered becomes a pivot and forms a cluster with
    every not-yet-clustered item joined to it by a positive edge.

    Parameters
    ----------
    graph : SignedGraph
        Pairs without an edge are treated like negative edges (the pivot does
        not take them).
    random_state : None, int, SeedSequence or Generator
        Passed to :func:`numpy.random.default_rng`; the visiting orders are
        drawn from it, so the result is a function of ``random_state``.
    n_runs : int, default 1
        Independent orders; the run with the lowest
        :func:`~ccexp.cc.cc_cost` is kept (the first one on ties).

    Returns
    -------
    ndarray of int64, shape (n_items,)
        Labels ``0 .. h-1`` in order of first appearance.

    Notes
    -----
    O(n_runs (|E| + n)).

    The expected 3-approximation of Ailon et al. (2008) holds only for
    *complete, unweighted* instances (every pair is a +1 or -1 edge); on
    general weighted or incomplete graphs, such as those built from noisy
    crowd answers, pivot carries no approximation guarantee and serves as a
    fast baseline or a starting point for :func:`~ccexp.cc.cc_local_search`.

    Examples
    --------
    >>> from ccexp.cc import signed_graph_from_edges
    >>> g = signed_graph_from_edges(4, [0, 2, 0], [1, 3, 2], [1.0, 1.0, -1.0])
    >>> pivot(g, random_state=0).tolist()
    [0, 0, 1, 1]
    """
    graph = _check_graph(graph)
    n_runs = check_positive_int(n_runs, "n_runs")
    rng = check_random_state(random_state)
    best_labels = None
    best_cost = np.inf
    for _ in range(n_runs):
        order = rng.permutation(graph.n_items).astype(np.int64, copy=False)
        lab = pivot_kernel(graph.indptr, graph.indices, graph.weights, order)
        cost = cc_cost_kernel(graph.indptr, graph.indices, graph.weights, lab)
        if best_labels is None or cost < best_cost:
            best_labels, best_cost = lab, cost
    return relabel_contiguous(best_labels)
