"""Single-item-move local search for correlation clustering."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._validation import check_labels, check_positive_int
from ._kernels import cc_local_search_pass
from .labels import relabel_contiguous, relabel_first_appearance
from .objective import _check_graph


def cc_local_search(graph, labels=None, max_passes: int = 1000) -> np.ndarray:
    """Local search for correlation clustering by single-item moves.

    Repeatedly visits the items ``0 .. n-1`` and moves each one to the
    cluster (an existing one or a new one) that lowers the cost of Problem 1
    of Ukkonen (2017) the most, until a full pass moves nothing. The moves
    are those of the LocalSearch of Gionis, Mannila and Tsaparas (2007,
    Section 4) and of Ukkonen's local search (Section IV), on an explicit
    signed graph.

    Parameters
    ----------
    graph : SignedGraph
    labels : array-like of int, shape (n_items,), optional
        Starting clustering; default all singletons.
    max_passes : int, default 1000
        Upper bound on the number of passes.

    Returns
    -------
    ndarray of int64, shape (n_items,)
        Labels ``0 .. h-1`` in order of first appearance. If the last pass
        moved nothing, no single item can strictly lower
        :func:`~ccexp.cc.cc_cost` by moving to another cluster or to a new
        one (a local optimum).

    Warns
    -----
    sklearn.exceptions.ConvergenceWarning
        If ``max_passes`` passes all moved some item.

    Notes
    -----
    O(|E| + n) per pass: the kernel
    (:func:`~ccexp.cc._kernels.cc_local_search_pass`) scores only the
    clusters of an item's neighbours plus one empty cluster, since every
    other cluster has the same move cost as the empty one; the relabelling
    between passes is linear because cluster ids stay below ``2n``. An item
    moves only on a strict improvement, so each move lowers the cost and the
    search terminates. Ties go to the smallest cluster id (the new cluster
    ranks after every existing one): the result is deterministic.

    Examples
    --------
    >>> from ccexp.cc import signed_graph_from_edges
    >>> g = signed_graph_from_edges(4, [0, 2, 0], [1, 3, 2], [1.0, 1.0, -1.0])
    >>> cc_local_search(g).tolist()
    [0, 0, 1, 1]
    """
    graph = _check_graph(graph)
    n = graph.n_items
    max_passes = check_positive_int(max_passes, "max_passes")
    if labels is None:
        lab = np.arange(n, dtype=np.int64)
    else:
        lab = relabel_contiguous(check_labels(labels, "labels", n_items=n, allow_empty=True))
    lab = np.array(lab, dtype=np.int64, copy=True)  # the kernel writes in place
    if n == 0:
        return lab

    # Buffers allocated once. After relabelling, ids are < h <= n; one pass
    # opens at most n new clusters, so ids stay < 2n.
    n_ids = 2 * n
    sizes = np.zeros(n_ids, dtype=np.int64)
    gain_buf = np.zeros(n_ids, dtype=np.float64)
    max_deg = int(np.diff(graph.indptr).max())
    touched_buf = np.zeros(max(max_deg, 1), dtype=np.int64)

    h = int(lab.max()) + 1
    for _ in range(max_passes):
        sizes[:] = 0
        sizes[:h] = np.bincount(lab, minlength=h)
        n_moved, k_new = cc_local_search_pass(
            graph.indptr, graph.indices, graph.weights, lab, sizes, gain_buf, touched_buf, h
        )
        h = int(relabel_first_appearance(lab))
        if n_moved == 0:
            return lab
    warnings.warn(
        f"cc_local_search: still moving items after max_passes={max_passes} passes; "
        "the result may not be a local optimum",
        ConvergenceWarning,
        stacklevel=2,
    )
    return lab
