"""The correlation-clustering objective."""

from __future__ import annotations

from .._validation import check_labels
from ._kernels import cc_cost_kernel
from .graph import SignedGraph


def _check_graph(graph) -> SignedGraph:
    if not isinstance(graph, SignedGraph):
        raise TypeError(
            f"graph must be a SignedGraph (see signed_graph_from_edges), got {type(graph).__name__}"
        )
    return graph


def cc_cost(labels, graph: SignedGraph) -> float:
    """Cost of a clustering on a signed graph: weighted disagreements.

    Problem 1 of Ukkonen (2017), the "minimising disagreements in general
    weighted graphs" variant of Bansal, Blum and Chawla (2004):

    .. math::

        c(f, G) = \\sum_{(u,v): w(u,v) > 0} w(u,v)\\,[f(u) \\ne f(v)]
                + \\sum_{(u,v): w(u,v) < 0} |w(u,v)|\\,[f(u) = f(v)]

    over undirected edges, each counted once.

    Parameters
    ----------
    labels : array-like of int, shape (n_items,)
        Cluster of each item; any integer ids.
    graph : SignedGraph

    Returns
    -------
    float
        The cost, ``>= 0``; 0 iff every positive edge is inside a cluster and
        every negative edge between clusters.

    Raises
    ------
    ValueError
        If ``labels`` is not a 1-d integer vector of length ``graph.n_items``.

    Notes
    -----
    O(|E| + n). Summation order is fixed (rows in order, columns sorted), so
    the value is reproducible to the bit.

    Examples
    --------
    >>> from ccexp.cc import signed_graph_from_edges
    >>> g = signed_graph_from_edges(3, [0, 1, 0], [1, 2, 2], [2.0, 1.0, -0.5])
    >>> cc_cost([0, 0, 1], g)   # the +1 edge (1, 2) is cut
    1.0
    >>> cc_cost([0, 0, 0], g)   # the -0.5 edge (0, 2) is inside
    0.5
    """
    graph = _check_graph(graph)
    lab = check_labels(labels, "labels", n_items=graph.n_items, allow_empty=True)
    return float(cc_cost_kernel(graph.indptr, graph.indices, graph.weights, lab))
