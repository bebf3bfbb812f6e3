"""COBRAS / nCOBRAS with numba kernels against their all-numpy versions: bitwise the same runs (issue 31).

The merging phase (the distances and cannot-links of all super-instances,
reduced to clusters), the k-means of a split and its k-means++ draws, the
count of distinct rows and nCOBRAS's inconsistent-cycle check were numpy and
Python loops; they now run in ``_cobras_kernels``.  The reference classes
below hold the numpy code as it was, and whole runs of both must give the
same clusterings at every recorded step, the same constraints and queries.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_blobs

from ccexp.algorithms.active import _cobras_kernels as CK
from ccexp.algorithms.active.cobras import COBRAS, _CobrasRun, kmeans, kmeans_reference
from ccexp.algorithms.active.ncobras import NCOBRAS, _NCobrasRun
from ccexp.oracles.active import PairwiseSimilarityOracle


class _ReferenceMixin:
    """The numpy merging phase, split and choice of the super-instance to split, as before the kernels."""

    def kmeans_split(self, items, k):
        k = min(k, np.unique(self.X[items], axis=0).shape[0])
        if k <= 1:
            return [items]
        assign = kmeans_reference(self.X[items], k, self.n_init, self.rng)
        return [items[assign == c] for c in range(k) if np.any(assign == c)]

    def to_split(self):
        best, where, size = None, None, 1
        for c, members in enumerate(self.clusters):
            for s in members:
                if not self.si_tried[s] and self.si_items[s].shape[0] > size:
                    best, where, size = s, c, self.si_items[s].shape[0]
        return None if best is None else (where, best)

    def merge(self):
        if len(self.clusters) < 2:
            return
        sis = np.array([s for members in self.clusters for s in members], dtype=np.int64)
        sizes = np.array([len(members) for members in self.clusters])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        C = np.asarray([self.si_centroid[s] for s in sis])
        sq = (C * C).sum(axis=1)
        D = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2.0 * C @ C.T, 0.0))
        reps = np.array([self.si_rep[s] for s in sis], dtype=np.int64)
        CL = self.cannot_linked(reps).astype(np.int64)
        Dc = np.minimum.reduceat(np.minimum.reduceat(D, starts, axis=0), starts, axis=1)
        CLc = np.add.reduceat(np.add.reduceat(CL, starts, axis=0), starts, axis=1) > 0
        members = [np.arange(st, st + sz) for st, sz in zip(starts, sizes)]
        alive = np.ones(len(self.clusters), dtype=bool)
        merged = True
        try:
            while merged and alive.sum() > 1:
                merged = False
                idx = np.flatnonzero(alive)
                a, b = np.triu_indices(idx.shape[0], 1)
                a, b = idx[a], idx[b]
                keep = ~CLc[a, b]
                a, b = a[keep], b[keep]
                order = np.argsort(Dc[a, b], kind="stable")
                for x, y in zip(a[order], b[order]):
                    mx, my = members[x], members[y]
                    sub = D[np.ix_(mx, my)]
                    i, j = np.unravel_index(np.argmin(sub), sub.shape)
                    if self.ask(int(reps[mx[i]]), int(reps[my[j]])):
                        members[x] = np.concatenate([mx, my])
                        alive[y] = False
                        self.clusters[x].extend(self.clusters[y])
                        self.clusters[y] = []
                        Dc[x, :] = Dc[:, x] = np.minimum(Dc[x], Dc[y])
                        CLc[x, :] = CLc[:, x] = CLc[x] | CLc[y]
                        merged = True
                        break
                    CLc[x, y] = CLc[y, x] = True
        finally:
            self.clusters = [members for members in self.clusters if members]


class _ReferenceRun(_ReferenceMixin, _CobrasRun):
    pass


class _ReferenceNRun(_ReferenceMixin, _NCobrasRun):
    def inconsistent(self, u, v, must_link):
        comp = self.must_links.labels()
        ru, rv = comp[u], comp[v]
        if not must_link:
            return bool(ru == rv)
        if ru == rv:
            return False
        pairs = zip(self.cl_u[: self.n_cl].tolist(), self.cl_v[: self.n_cl].tolist())
        return any({comp[a], comp[b]} == {ru, rv} for a, b in pairs)


class _ReferenceCOBRAS(COBRAS):
    def _run(self, X, oracle, budget, batch, rng, callback):
        return _ReferenceRun(X, oracle, budget, batch, self.n_init, rng, callback)


class _ReferenceNCOBRAS(NCOBRAS):
    def _run(self, X, oracle, budget, batch, rng, callback):
        return _ReferenceNRun(X, oracle, budget, batch, self.n_init, rng, callback, gamma=self.gamma,
                              confidence=self.confidence, max_requeries=self.max_requeries)


def _data(kind, seed):
    """Blobs of 2-8 features; rounded (duplicate points, tied distances); one feature; one-hot-like."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(60, 160))
    k = int(rng.integers(2, 6))
    if kind == "one-hot":
        X = (rng.random((n, 12)) < 0.3).astype(float)  # many identical rows, as mushroom's
        y = rng.integers(0, k, n)
        return X, y
    d = 1 if kind == "one feature" else int(rng.integers(2, 9))
    X, y = make_blobs(n, n_features=d, centers=k, cluster_std=2.0, random_state=seed)
    if kind == "rounded":
        X = np.round(X)
    return X, y


def _same_run(a, b):
    assert a.n_queries_ == b.n_queries_ and a.stop_reason_ == b.stop_reason_
    assert a.constraints_ == b.constraints_
    assert len(a.history_) == len(b.history_)
    for h1, h2 in zip(a.history_, b.history_):
        assert h1["n_queries"] == h2["n_queries"] and np.array_equal(h1["labels"], h2["labels"])
        assert h1["n_superinstances"] == h2["n_superinstances"]


@pytest.mark.parametrize("kind", ["blobs", "rounded", "one feature", "one-hot"])
@pytest.mark.parametrize("seed", range(3))
def test_cobras_runs_are_those_of_the_numpy_version(kind, seed):
    X, y = _data(kind, seed)
    oracle = PairwiseSimilarityOracle(y, gamma=0.3, random_state=seed)
    budget = X.shape[0] * 4
    ours = COBRAS(max_queries=budget, batch_size=5, n_init=3, random_state=seed).fit(oracle, X=X)
    ref = _ReferenceCOBRAS(max_queries=budget, batch_size=5, n_init=3, random_state=seed).fit(oracle, X=X)
    _same_run(ours, ref)


@pytest.mark.parametrize("kind", ["blobs", "rounded", "one-hot"])
@pytest.mark.parametrize("seed", range(3))
def test_ncobras_runs_are_those_of_the_numpy_version(kind, seed):
    X, y = _data(kind, seed + 10)
    oracle = PairwiseSimilarityOracle(y, gamma=0.4, random_state=seed)
    budget = X.shape[0] * 4
    ours = NCOBRAS(max_queries=budget, batch_size=5, gamma=0.4, n_init=3, random_state=seed).fit(oracle, X=X)
    ref = _ReferenceNCOBRAS(max_queries=budget, batch_size=5, gamma=0.4, n_init=3, random_state=seed).fit(oracle, X=X)
    _same_run(ours, ref)
    assert ours.n_requeries_ == ref.n_requeries_ and ours.n_inconsistent_ == ref.n_inconsistent_
    assert ours.n_inconsistent_ > 0  # the check ran on both sides


@pytest.mark.parametrize("d", [1, 2, 5])
def test_kmeans_is_the_numpy_reference_and_draws_the_same_numbers(d):
    rng = np.random.default_rng(d)
    for t in range(40):
        n = int(rng.integers(2, 300))
        X = rng.standard_normal((n, d)) * 5
        if t % 3 == 0:
            X = np.round(X)  # duplicate points: ties in the assignment, zero weights in k-means++
        if t % 5 == 0:
            X[: n // 2] = X[0]
        k = int(min(rng.integers(2, 8), n))
        r1, r2 = np.random.default_rng(t), np.random.default_rng(t)
        assert np.array_equal(kmeans(X, k, 3, r1), kmeans_reference(X, k, 3, r2))
        assert r1.random() == r2.random()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.0, 0.25, 1.0, 3.0, 1e-300]), min_size=1, max_size=40), st.integers(0, 2**32 - 1))
def test_weighted_pick_is_numpys_choice(weights, seed):
    d2 = np.array(weights)
    total = d2.sum()
    if not total > 0:
        return
    expected = int(np.random.default_rng(seed).choice(d2.shape[0], p=d2 / total))
    assert CK.weighted_pick(d2, total, np.random.default_rng(seed).random()) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, -0.0, 1.0, 2.5]), st.sampled_from([0.0, -0.0, 1.0])), min_size=1, max_size=12),
       st.integers(1, 6))
def test_distinct_rows_at_most_counts_as_numpys_unique(rows, k):
    X = np.array(rows, dtype=np.float64)
    assert CK.distinct_rows_at_most(X, k) == min(k, np.unique(X, axis=0).shape[0])
