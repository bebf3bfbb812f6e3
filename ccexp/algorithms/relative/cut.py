"""The k-partition of a hierarchy, with the branch-size threshold for outliers.

Liu, Zhang and Wang (2011), Sections 4.1.2 and 4.2.1: cut the hierarchy
from the root down; branches smaller than a threshold are outliers, ignored
while cutting and afterwards merged into their nearest cluster.
"""

from __future__ import annotations

import heapq

import numpy as np

from ...objectives.relative import partition_violations


class _Members:
    """Items under a node, as a slice of one leaf order (O(n), no per-node copies)."""

    def __init__(self, Z: np.ndarray, n: int, n_merges: int, sizes: np.ndarray, roots: list[int]):
        start = np.zeros(n + n_merges, dtype=np.int64)
        offset = 0
        for r in roots:
            start[r] = offset
            offset += sizes[r]
        for t in range(n_merges - 1, -1, -1):  # parents before children
            left, right = int(Z[t, 0]), int(Z[t, 1])
            start[left] = start[n + t]
            start[right] = start[n + t] + sizes[left]
        self.order = np.empty(n, dtype=np.int64)
        self.order[start[:n]] = np.arange(n)
        self.start, self.sizes = start, sizes

    def __getitem__(self, node: int) -> np.ndarray:
        s = self.start[node]
        return self.order[s : s + self.sizes[node]]


SPLIT_ORDERS = ("size", "height", "last")


def _top_down(Z, n, n_merges, k, threshold, sizes, roots, split):
    """Split branches from the root down until ``k`` branches of size >= threshold remain.

    The branch split next is the largest (``"size"``), the one whose
    halves merged farthest apart (``"height"``) or the most recent merge
    (``"last"``).  Returns (clusters, outliers) as node lists, or None when
    k is not reached.
    """
    clusters = [r for r in roots if sizes[r] >= threshold]
    outliers = [r for r in roots if sizes[r] < threshold]
    if not clusters:
        return None
    # A dead-ended (forest) hierarchy can start with more than k big roots:
    # keep the k largest, the rest join their nearest cluster like outliers.
    if len(clusters) > k:
        clusters.sort(key=lambda r: -sizes[r])
        outliers += clusters[k:]
        clusters = clusters[:k]

    def priority(node):
        if split == "size":
            return (-int(sizes[node]), -node)
        if split == "height":
            return (-(Z[node - n, 2] if node >= n else -np.inf), -node)
        return (-node, 0)

    heap = [(priority(r), r) for r in clusters]
    heapq.heapify(heap)
    final = []  # branches that cannot be split further
    while heap and len(heap) + len(final) < k:
        _, node = heapq.heappop(heap)
        if node < n:
            final.append(node)
            continue
        kids = (int(Z[node - n, 0]), int(Z[node - n, 1]))
        big = [c for c in kids if sizes[c] >= threshold]
        if not big:
            final.append(node)  # both halves are outlier-sized: keep the branch whole
            continue
        for c in big:
            heapq.heappush(heap, (priority(c), c))
        outliers += [c for c in kids if sizes[c] < threshold]
    live = [node for _, node in heap] + final
    if len(live) < k:
        return None
    return sorted(live), outliers


def cut_hierarchy(
    Z: np.ndarray,
    n_merges: int,
    X: np.ndarray,
    k: int,
    min_branch_size: int = 1,
    R: np.ndarray | None = None,
    split: str = "size",
) -> tuple[np.ndarray, dict]:
    """A k-partition from a linkage matrix, outlier branches merged into their nearest cluster.

    Parameters
    ----------
    Z : float array (n-1, 4)
        scipy-style linkage; only its first ``n_merges`` rows are used (a
        dead-ended hierarchy is a forest).
    n_merges : int
    X : float array (n, d)
        Features in the space of the hierarchy, for "nearest" (centroids).
    k : int
    min_branch_size : int
        The branch-size threshold of Section 4.2.1: branches with fewer
        items are outliers while cutting.  1 gives the plain top-down cut
        (Section 4.1.2).  If the threshold leaves fewer than k branches, it
        is halved until k are reached.
    R : int array (m, 3), optional
        Constraints.  Each outlier branch joins the nearest cluster among
        those where it adds the fewest violations (Definition 4.2), so the
        outlier step keeps the cut's guarantee whenever it can; without
        ``R``, simply the nearest cluster.
    split : {"size", "height", "last"}
        Which branch to split next, going down from the root: the largest,
        the one whose two halves merged farthest apart, or the most recent
        merge.  The paper cuts "from the root level ... down" without an
        order among branches of one level; see experiments/liu2011/README.md.

    Returns
    -------
    labels : int64 array (n,)
        Cluster ids ``0 .. k-1``.
    info : dict
        ``threshold`` used, ``n_outlier_branches``, ``n_outlier_items``.

    Notes
    -----
    O(n) for the cut (a node's items are a slice of one leaf order),
    O(b k (d + |C_b|)) for b outlier branches.
    """
    n = X.shape[0]
    if split not in SPLIT_ORDERS:
        raise ValueError(f"split must be one of {', '.join(SPLIT_ORDERS)}, got {split!r}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be in [1, {n}], got {k}")
    sizes = np.concatenate([np.ones(n, dtype=np.int64), Z[:n_merges, 3].astype(np.int64)])
    has_parent = np.zeros(n + n_merges, dtype=bool)
    has_parent[Z[:n_merges, :2].astype(np.int64).ravel()] = True
    roots = [int(r) for r in np.flatnonzero(~has_parent)]
    threshold = max(1, int(min_branch_size))
    while True:
        res = _top_down(Z, n, n_merges, k, threshold, sizes, roots, split)
        if res is not None or threshold == 1:
            break
        threshold = max(1, threshold // 2)
    if res is None:
        raise ValueError(f"the hierarchy has {len(roots)} roots and cannot be cut into k={k} clusters")
    clusters, outliers = res
    members = _Members(Z, n, n_merges, sizes, roots)
    labels = np.full(n, -1, dtype=np.int64)
    for c, node in enumerate(clusters):
        labels[members[node]] = c
    centroids = np.array([X[members[node]].mean(axis=0) for node in clusters])
    if outliers:
        R = None if R is None or len(R) == 0 else np.asarray(R, dtype=np.int64)
        # pending outlier items get their own negative ids, so constraints
        # among them are judged against their eventual placement only
        for b, node in enumerate(outliers):
            labels[members[node]] = -(b + 1)
        if R is not None:
            incident = np.zeros((n,), dtype=bool)
        for node in outliers:
            items = members[node]
            dist = ((centroids - X[items].mean(axis=0)) ** 2).sum(axis=1)
            if R is not None:
                incident[:] = False
                incident[items] = True
                rows = R[incident[R].any(axis=1)]
                cost = np.empty(len(clusters))
                for c in range(len(clusters)):
                    labels[items] = c  # tried in place, settled below
                    cost[c] = partition_violations(labels, rows).sum()
                best = np.lexsort((np.arange(len(clusters)), dist, cost))[0]
            else:
                best = int(np.argmin(dist))
            labels[items] = best
    info = {
        "threshold": threshold,
        "n_outlier_branches": len(outliers),
        "n_outlier_items": int(sum(len(members[o]) for o in outliers)),
    }
    return labels, info
