"""Hierarchies and relative constraints: OneTree, induced triplets, Definitions 4.1 and 4.2.

Liu, Zhang and Wang (2011), Sections 3.2 and 4.1.  A hierarchy is a
``parent`` array over nodes: ``parent[v]`` is ``v``'s parent, ``-1`` at a
root; leaves are the items ``0 .. n_items-1`` and internal nodes follow.
Items outside the hierarchy have ``parent == -2``.
"""

from __future__ import annotations

import numpy as np

from ...cc.union_find import connected_components_kernel

#: ``parent`` value of an item that is not a leaf of the hierarchy.
ABSENT = -2


def one_tree(R: np.ndarray, n_items: int, items: np.ndarray | None = None) -> np.ndarray | None:
    """OneTree (Section 4.1; Aho et al. 1981, as simplified by Meei and Wormald 1996).

    Builds a hierarchy of ``items`` (default: the items the constraints
    mention, D_C) in which every constraint ``ab|c`` of ``R`` can be induced,
    or returns ``None`` when none exists (the constraints are inconsistent).

    Parameters
    ----------
    R : int64 array (m, 3)
        Constraints ``ab|c`` as rows ``(a, b, c)``.
    n_items : int
    items : int array, optional
        The leaf set D; must contain every item of ``R``.

    Returns
    -------
    parent : int64 array or None
        Over ``n_items + n_internal`` nodes (see the module docstring).

    Notes
    -----
    Each call on a set D with constraints C: unite ``a, b`` of every
    constraint; one set left means failure; otherwise recurse on each set
    with the constraints lying wholly inside it, and hang the sub-trees
    under a new root.  Sets without constraints become a star.  An explicit
    stack replaces the recursion; each level costs O(|D| + |C|), so the
    whole O(|D_C| |C|) as in the paper.
    """
    R = np.asarray(R, dtype=np.int64).reshape(-1, 3)
    if items is None:
        items = np.unique(R)
    items = np.asarray(items, dtype=np.int64)
    parent = [ABSENT] * n_items
    for x in items:
        parent[x] = -1
    local = np.full(n_items, -1, dtype=np.int64)
    # (items of this sub-problem, its constraint rows, node its tree hangs under)
    stack = [(items, R, -1)]
    while stack:
        D, C, up = stack.pop()
        if D.size == 1:
            parent[D[0]] = up
            continue
        node = len(parent)
        parent.append(up)
        if D.size == 2 or C.shape[0] == 0:
            for x in D:
                parent[x] = node
            continue
        local[D] = np.arange(D.size)
        labels = connected_components_kernel(D.size, local[C[:, 0]], local[C[:, 1]])
        n_comp = int(labels.max()) + 1  # D has at least 3 items here
        if n_comp == 1:
            return None
        lab_a = labels[local[C[:, 0]]]
        inside = lab_a == labels[local[C[:, 2]]]
        C_in, lab_in = C[inside], lab_a[inside]
        order_d = np.argsort(labels, kind="stable")
        bounds_d = np.searchsorted(labels[order_d], np.arange(n_comp + 1))
        order_c = np.argsort(lab_in, kind="stable")
        bounds_c = np.searchsorted(lab_in[order_c], np.arange(n_comp + 1))
        for g in range(n_comp - 1, -1, -1):
            sub_d = D[order_d[bounds_d[g] : bounds_d[g + 1]]]
            sub_c = C_in[order_c[bounds_c[g] : bounds_c[g + 1]]]
            stack.append((sub_d, sub_c, node))
    return np.array(parent, dtype=np.int64)


def is_consistent(R: np.ndarray, n_items: int) -> bool:
    """Whether some hierarchy satisfies every constraint (Definition 4.1): OneTree succeeds."""
    return one_tree(R, n_items) is not None


def greedy_consistent_subset(R: np.ndarray, n_items: int) -> np.ndarray:
    """Keep each constraint, in the given order, if it is consistent with those kept so far.

    The "Handling noisy constraints" suggestion of the paper: a maximal
    consistent subset (a greedy answer to Maximum Triplet Consistency, no
    approximation guarantee).  Blocks are tested whole and split in halves
    only when they fail, which returns exactly the one-by-one greedy result
    with O(r log m) OneTree calls for r rejected constraints.

    Returns
    -------
    keep : bool array (m,)
    """
    R = np.asarray(R, dtype=np.int64).reshape(-1, 3)
    keep = np.zeros(R.shape[0], dtype=bool)

    def add(lo: int, hi: int) -> None:
        trial = keep.copy()
        trial[lo:hi] = True
        if is_consistent(R[trial], n_items):
            keep[lo:hi] = True
        elif hi - lo > 1:
            mid = (lo + hi) // 2
            add(lo, mid)
            add(mid, hi)

    if R.shape[0]:
        add(0, R.shape[0])
    return keep


def linkage_to_parent(Z: np.ndarray, n_items: int, n_merges: int | None = None) -> np.ndarray:
    """The ``parent`` array of a scipy linkage matrix (its first ``n_merges`` rows)."""
    n_merges = Z.shape[0] if n_merges is None else n_merges
    parent = np.full(n_items + n_merges, -1, dtype=np.int64)
    for t in range(n_merges):
        parent[int(Z[t, 0])] = n_items + t
        parent[int(Z[t, 1])] = n_items + t
    return parent


def _ancestors(parent: np.ndarray, x: int) -> list[int]:
    out = [x]
    while parent[out[-1]] >= 0:
        out.append(int(parent[out[-1]]))
    return out


def induced_triplet(parent: np.ndarray, a: int, b: int, c: int) -> tuple[int, int, int] | None:
    """The rooted triplet the hierarchy induces on ``a, b, c`` (Section 3.2.1).

    Returns ``(x, y, z)`` meaning ``xy|z``, or ``None`` when the three are
    unresolved (their pairwise lowest common ancestors coincide) or not all
    in one tree.
    """
    anc = {x: _ancestors(parent, x) for x in (a, b, c)}
    if len({anc[x][-1] for x in (a, b, c)}) > 1:
        return None

    def lca_depth(x, y):
        sx = set(anc[x])
        lca = next(v for v in anc[y] if v in sx)
        return len(anc[x]) - anc[x].index(lca)  # depth from the root, root = 1

    d = {(a, b): lca_depth(a, b), (a, c): lca_depth(a, c), (b, c): lca_depth(b, c)}
    (x, y), deepest = max(d.items(), key=lambda kv: kv[1])
    if sum(v == deepest for v in d.values()) > 1:
        return None
    z = ({a, b, c} - {x, y}).pop()
    return x, y, z


def hierarchy_violations(parent: np.ndarray, R: np.ndarray) -> int:
    """Constraints ``ab|c`` the hierarchy does not induce (Definition 4.1)."""
    bad = 0
    for a, b, c in np.asarray(R, dtype=np.int64).reshape(-1, 3):
        t = induced_triplet(parent, int(a), int(b), int(c))
        if t is None or {t[0], t[1]} != {int(a), int(b)}:
            bad += 1
    return bad

