"""The noisy pairwise-similarity oracle of Aronsson & Chehreghani (2024), Section 2.2.

The object an active-learning :class:`~ccexp.problem.Problem` carries in
its ``oracle`` field.  Each query of an edge (u, v) returns the true
similarity sigma*(u, v) in {-1, +1} (+1 within a class) with probability
1 - gamma, and otherwise a value drawn uniformly from [-1, -lambda) U
(lambda, 1].  The noise is non-persistent: asking again draws again.
``preset="authors"`` is the noise of the authors' public code instead
(Linusaronsson/Active-Correlation-Clustering @ 313d989,
``update_similarity``, the same at the commit of their stored runs): a
magnitude uniform in [0.15, 0.5) with a fair sign.  The oracle holds the
ground truth; an algorithm sees only the answers, through :meth:`query`.

It lives beside :mod:`ccexp.problem`, below both the oracles (the
``pairwise_similarity`` oracle of :mod:`ccexp.oracles.active` builds one
from a dataset) and the algorithms (the active family's warm-up queries
one), so that neither of those two packages imports the other.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_labels, check_probability, check_random_state


#: noisy magnitudes per preset ("paper": (lam, 1], filled in from lam)
NOISE_PRESETS = {"paper": None, "authors": (0.15, 0.5)}


class PairwiseSimilarityOracle:
    """Answers similarity queries with non-persistent noise and counts them.

    Parameters
    ----------
    y : int array (n,)
        Ground-truth classes (kept private; never handed out).
    gamma : float in [0, 1]
        Probability that an answer is noise.
    lam : float in [0, 1)
        lambda: noisy answers avoid [-lambda, lambda], so they are never
        weaker than the initial similarities |sigma_0| <= lambda.
    budget : int, optional
        Maximum number of queries; one more raises ``RuntimeError``.
    preset : {"paper", "authors"}
        The noisy answers' magnitudes: uniform in (lam, 1] (paper, Section
        2.2) or in [0.15, 0.5) (the authors' code).
    noise_range : (low, high) or None
        Overrides the preset's range of noisy magnitudes, uniform in [low, high].
    random_state : int, SeedSequence or Generator, optional
        Seed of the noise.  :meth:`session` restarts from this seed.

    Attributes
    ----------
    n_queries : int
        Queries answered so far in this session.

    Examples
    --------
    >>> import numpy as np
    >>> o = PairwiseSimilarityOracle(np.array([0, 0, 1]), gamma=0.0)
    >>> o.query([0, 0], [1, 2]).tolist(), o.n_queries
    ([1.0, -1.0], 2)
    """

    def __init__(self, y, gamma: float = 0.0, lam: float = 0.1, budget: int | None = None, random_state=None,
                 preset: str = "paper", noise_range=None):
        y = check_labels(y, "y", allow_empty=True)  # encoded, never cast: 0.1 and 0.2 stay two classes
        if y.shape[0] < 2:
            raise ValueError(f"y must be a 1-d label array with at least 2 items, got shape {y.shape}")
        self._y = y
        self.gamma = check_probability(gamma, "gamma")
        lam = float(lam)
        if not 0.0 <= lam < 1.0:
            raise ValueError(f"lam must be in [0, 1), got {lam!r}")
        self.lam = lam
        if budget is not None and (int(budget) != budget or budget < 0):
            raise ValueError(f"budget must be a non-negative integer or None, got {budget!r}")
        self.budget = None if budget is None else int(budget)
        if preset not in NOISE_PRESETS:
            raise ValueError(f"preset must be one of {sorted(NOISE_PRESETS)}, got {preset!r}")
        self.preset = preset
        if noise_range is None:
            noise_range = (lam, 1.0) if preset == "paper" else NOISE_PRESETS[preset]
        lo, hi = (float(x) for x in noise_range)
        if not 0.0 <= lo <= hi <= 1.0:
            raise ValueError(f"noise_range must be (low, high) with 0 <= low <= high <= 1, got {noise_range!r}")
        self.noise_range = (lo, hi)
        # a fixed seed, so every session replays the same noise stream
        self._seed = np.random.SeedSequence(check_random_state(random_state).integers(0, 2**63 - 1))
        self._rng = np.random.default_rng(self._seed)
        self.n_queries = 0

    @property
    def n_items(self) -> int:
        """The number of items (the length of the ground-truth labels)."""
        return int(self._y.shape[0])

    def session(self) -> "PairwiseSimilarityOracle":
        """A fresh copy: query counter at 0, noise stream from the start.

        Every algorithm fitted on one :class:`~ccexp.problem.Problem` asks
        its own session, so they all face the same oracle.
        """
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._rng = np.random.default_rng(self._seed)
        new.n_queries = 0
        return new

    def query(self, u, v) -> np.ndarray:
        """Answer the queries of the edges (u[i], v[i]).

        Raises
        ------
        ValueError
            For out-of-range items or u == v.
        RuntimeError
            When the answers would exceed the budget.
        """
        u = np.atleast_1d(np.asarray(u, dtype=np.int64))
        v = np.atleast_1d(np.asarray(v, dtype=np.int64))
        if u.shape != v.shape or u.ndim != 1:
            raise ValueError(f"u and v must be 1-d arrays of one length, got shapes {u.shape} and {v.shape}")
        if u.shape[0] == 1:
            return self._query_one(int(u[0]), int(v[0]))
        return self._query_many(u, v)

    def _check_budget(self, k: int) -> None:
        """Raise RuntimeError when ``k`` more answers would exceed the budget."""
        if self.budget is not None and self.n_queries + k > self.budget:
            raise RuntimeError(f"query budget exceeded: {self.n_queries} asked, {k} more requested, budget {self.budget}")

    def _query_one(self, a: int, b: int) -> np.ndarray:
        """One edge: the checks, answer and draws of :meth:`_query_many` with Python scalars.

        QECC asks one pair at a time, tens of thousands of times per run, where
        numpy's per-call overhead was most of its time.  ``Generator.random()``
        draws what ``random(1)`` does, and a clean answer draws nothing more
        (``random(0)``), so the stream is the same (``tests/test_active_qecc.py``).
        """
        n = self.n_items
        if not (0 <= a < n and 0 <= b < n):
            raise ValueError(f"items must be in [0, {n})")
        if a == b:
            raise ValueError("an edge needs two distinct items (u == v given)")
        self._check_budget(1)
        answer = 1.0 if self._y[a] == self._y[b] else -1.0
        if self._rng.random() < self.gamma:
            lo, hi = self.noise_range
            mag = hi - (hi - lo) * self._rng.random()
            answer = -mag if self._rng.random() < 0.5 else mag
        self.n_queries += 1
        return np.array([answer])

    def _query_many(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The answers of the edges (u[i], v[i]), int64 arrays of one length."""
        n = self.n_items
        if u.size and (min(u.min(), v.min()) < 0 or max(u.max(), v.max()) >= n):
            raise ValueError(f"items must be in [0, {n})")
        if np.any(u == v):
            raise ValueError("an edge needs two distinct items (u == v given)")
        self._check_budget(int(u.shape[0]))
        truth = np.where(self._y[u] == self._y[v], 1.0, -1.0)
        noisy = self._rng.random(u.shape[0]) < self.gamma
        k = int(noisy.sum())
        # paper: uniform on [-1, -lam) U (lam, 1], a magnitude in (lam, 1] and a fair sign
        lo, hi = self.noise_range
        mag = hi - (hi - lo) * self._rng.random(k)
        sign = np.where(self._rng.random(k) < 0.5, -1.0, 1.0)
        truth[noisy] = sign * mag
        self.n_queries += int(u.shape[0])
        return truth

    def __repr__(self) -> str:
        return (f"PairwiseSimilarityOracle(n_items={self.n_items}, gamma={self.gamma}, lam={self.lam}, "
                f"budget={self.budget}, preset={self.preset!r}, n_queries={self.n_queries})")
