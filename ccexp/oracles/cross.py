"""One annotator, five kinds of question: the oracles of the cross-supervision study.

The study asks which kind of question to pay a person for (issue 15): every
oracle here is parameterised by the same two numbers, so that one sweep
covers every kind on one footing.

``budget``
    Answers per item: a person gives ``round(budget * n)`` answers (at least
    one) on a dataset of ``n`` items.  One triplet, one pairwise constraint,
    one relative constraint and one similarity query each cost one answer.
``eps``
    The annotator's error rate: each answer is wrong with probability
    ``eps`` (for the two fixed-size samples, exactly ``round(eps * m)`` of the
    ``m`` answers are wrong, as the papers' generators do).  Each kind's own
    noise model is set so that this is what it means (:func:`noise_parameter`):

    - triplets (Ukkonen 2017, Section V-A): the fraction ``b`` of triplets
      whose outlier is swapped with one of the two others: ``b = eps``.  A
      swapped answer names the wrong outlier.
    - pairwise constraints (Zhu et al. 2013, Section IV-B): the fraction of
      flipped must-link / cannot-link labels: ``invalid_fraction = eps``.
    - similarity queries (Aronsson & Chehreghani 2024, Section 2.2): with
      probability ``gamma`` the answer is uniform on ``[-1, -lam) U (lam, 1]``,
      so its sign is wrong with probability ``gamma / 2``:
      ``gamma = 2 * eps`` (``eps <= 0.5``).

Every problem states its kind in ``meta["supervision"]`` (the runner records
it in the ``supervision`` column), the answers it cost (``n_answers``) and the
true number of clusters (``n_clusters``, which the feature-based readers are
given, as in Zhu et al. and Liu et al.; the correlation-clustering readers
find k themselves).
"""

from __future__ import annotations

import numbers
from math import comb

import numpy as np

from .._validation import check_probability, check_random_state, unknown_name_error
from ..problem import Problem
from ..registry import ORACLES
from .active import PairwiseSimilarityOracle
from .pairwise import pairwise_constraints
from .triplets import generate_triplets

#: the kinds of supervision of the study, as recorded in the ``supervision`` column
KINDS = ("triplets", "relative", "pairwise", "similarity", "active_pairs", "none")

#: each kind's own noise parameter, as a function of the common error rate eps
NOISE_PARAMETER = {
    "triplets": ("noise", lambda eps: eps),
    "relative": ("noise", lambda eps: eps),
    "pairwise": ("invalid_fraction", lambda eps: eps),
    "similarity": ("gamma", lambda eps: 2.0 * eps),
    "active_pairs": ("gamma", lambda eps: 2.0 * eps),
}


def noise_parameter(kind: str, eps: float) -> tuple[str, float]:
    """The name and value of ``kind``'s own noise parameter for an error rate ``eps``.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS` except ``"none"``.
    eps : float in [0, 1] (in [0, 0.5] for the similarity kinds)
        Probability that one answer is wrong.

    Examples
    --------
    >>> noise_parameter("pairwise", 0.1)
    ('invalid_fraction', 0.1)
    >>> noise_parameter("similarity", 0.2)
    ('gamma', 0.4)
    """
    if kind not in NOISE_PARAMETER:
        raise unknown_name_error("supervision kind with a noise model", kind, NOISE_PARAMETER)
    eps = check_probability(eps, "eps")
    name, f = NOISE_PARAMETER[kind]
    if name == "gamma" and eps > 0.5:
        raise ValueError(f"eps must be at most 0.5 for similarity answers (a noisy answer has a fair sign, "
                         f"so at most half of them are wrong), got {eps!r}")
    return name, f(eps)


def n_answers(budget, n_items: int) -> int:
    """``round(budget * n_items)``, at least 1: the answers a person gives at ``budget`` answers per item.

    Examples
    --------
    >>> n_answers(0.5, 150), n_answers(20, 150)
    (75, 3000)
    """
    if isinstance(budget, bool) or not isinstance(budget, numbers.Real) or not budget > 0 or not np.isfinite(budget):
        raise ValueError(f"budget must be a positive number of answers per item, got {budget!r}")
    return max(1, int(round(float(budget) * n_items)))


def labels_and_k(dataset, oracle: str):
    """The dataset's labels and their class count; ``ValueError`` naming ``oracle`` when it has no labels."""
    if dataset.y is None:
        raise ValueError(f"the {oracle} oracle needs ground-truth labels; dataset {dataset.name!r} has none")
    y = np.asarray(dataset.y)
    return y, int(np.unique(y).size)


def problem_meta(kind: str, k: int, answers: int, eps, **extra) -> dict:
    """The ``Problem.meta`` every cross oracle records: the kind of supervision, k, the answers given and ε."""
    return {"supervision": kind, "n_clusters": k, "n_answers": int(answers), "eps": float(eps), **extra}


@ORACLES.register("cross_triplets", produces="triplets", needs=("y",))
def cross_triplets(dataset, budget=1.0, eps=0.0, random_state=None) -> Problem:
    """``round(budget * n)`` random triplets, ``eps`` of them with a wrong outlier, plus the features.

    The triplets are the oracle ``triplets`` (Ukkonen 2017, Section V-A) with
    the count fixed: 3-sets drawn uniformly without replacement, the
    outlier from the labels (``ambiguous="rotate"`` for 3-sets all in one
    class or all in different classes: a person still gives an answer there),
    ``noise = eps``.  The features ride along for the readers that need them
    (ReCon reading the same answers as relative constraints,
    :class:`ccexp.algorithms.cross.recon_triplets.ReConOnTriplets`); the
    triplet readers ignore them.
    """
    y, k = labels_and_k(dataset, "cross_triplets")
    _, noise = noise_parameter("triplets", eps)
    n = y.shape[0]
    m = n_answers(budget, n)
    total = comb(n, 3)
    if m > total:
        raise ValueError(f"budget={budget!r} asks for {m} triplets, more than the {total} 3-sets of {n} items")
    # fraction * total rounds back to m exactly (m / total * total is m to within one ulp)
    triplets, info = generate_triplets(y, m / total, noise, "rotate", "shuffled", random_state)
    if info["n_triplets"] != m:  # pragma: no cover - "rotate" keeps every 3-set
        raise RuntimeError(f"drew {info['n_triplets']} triplets, expected {m}")
    return Problem(n_items=n, X=dataset.X, triplets=triplets,
                   meta=problem_meta("triplets", k, m, eps, n_wrong=info["n_noisy"]))


@ORACLES.register("cross_pairwise", produces="pairwise", needs=("y", "X"))
def cross_pairwise(dataset, budget=1.0, eps=0.0, random_state=None) -> Problem:
    """``round(budget * n)`` random must-link / cannot-link pairs, ``eps`` of them flipped, plus the features.

    The oracle ``pairwise`` (Zhu et al. 2013, Section IV) with
    ``n_constraints = round(budget * n)`` and ``invalid_fraction = eps``.
    """
    y, k = labels_and_k(dataset, "cross_pairwise")
    if dataset.X is None:
        raise ValueError(f"the cross_pairwise oracle hands algorithms the features; dataset {dataset.name!r} has none")
    _, invalid = noise_parameter("pairwise", eps)
    m = n_answers(budget, y.shape[0])
    ml, cl, flipped = pairwise_constraints(y, m, invalid, random_state)
    return Problem(n_items=y.shape[0], X=dataset.X, must_link=ml, cannot_link=cl,
                   meta=problem_meta("pairwise", k, m, eps, n_wrong=int(flipped.sum()), n_constraints=m))


@ORACLES.register("cross_similarity", produces="similarity", needs=("y",))
def cross_similarity(dataset, eps=0.0, lam=0.1, random_state=None) -> Problem:
    """The active similarity oracle of Aronsson & Chehreghani (2024) with ``gamma = 2 * eps``.

    The budget is the reader's (``max_queries`` of the ``acc_*``
    algorithms); the report reads each budget off the run's trace (the
    clustering after the last batch that fits in it).  No features: the
    active readers start from a random sigma_0 and see only answers.
    """
    y, k = labels_and_k(dataset, "cross_similarity")
    _, gamma = noise_parameter("similarity", eps)
    oracle = PairwiseSimilarityOracle(y, gamma=gamma, lam=lam, random_state=random_state)
    n = y.shape[0]
    return Problem(n_items=n, oracle=oracle,
                   meta=problem_meta("similarity", k, 0, eps, n_edges=n * (n - 1) // 2))


class QueryLog:
    """A similarity oracle that keeps every query and its answer, in order.

    Parameters
    ----------
    oracle : object
        With ``n_items`` and ``query(u, v) -> answers``.

    Examples
    --------
    >>> import numpy as np
    >>> log = QueryLog(PairwiseSimilarityOracle(np.array([0, 0, 1]), gamma=0.0))
    >>> log.query([0, 1], [1, 2]).tolist(), log.pairs().tolist(), log.answers().tolist()
    ([1.0, -1.0], [[0, 1], [1, 2]], [1.0, -1.0])
    """

    def __init__(self, oracle):
        self._oracle = oracle
        self._u: list[np.ndarray] = []
        self._v: list[np.ndarray] = []
        self._a: list[np.ndarray] = []

    @property
    def n_items(self) -> int:
        """The number of items of the wrapped oracle."""
        return int(self._oracle.n_items)

    @property
    def n_queries(self) -> int:
        """The number of queries answered so far (repeats counted)."""
        return int(sum(a.shape[0] for a in self._a))

    def query(self, u, v) -> np.ndarray:
        """Ask the wrapped oracle about the pairs ``(u[i], v[i])``, log them and their answers, return the answers."""
        answers = np.asarray(self._oracle.query(u, v), dtype=np.float64)
        self._u.append(np.atleast_1d(np.asarray(u, dtype=np.int64)).copy())
        self._v.append(np.atleast_1d(np.asarray(v, dtype=np.int64)).copy())
        self._a.append(answers.copy())
        return answers

    def pairs(self) -> np.ndarray:
        """The queried pairs ``(u, v)``, one row per query (repeats kept)."""
        if not self._u:
            return np.empty((0, 2), dtype=np.int64)
        return np.stack([np.concatenate(self._u), np.concatenate(self._v)], axis=1)

    def answers(self) -> np.ndarray:
        """The answers, aligned with :meth:`pairs`."""
        return np.concatenate(self._a) if self._a else np.empty(0)


def pairs_to_constraints(pairs, answers) -> tuple[np.ndarray, np.ndarray]:
    """Must-link / cannot-link pairs from similarity answers: the sign of each pair's summed answers.

    A pair asked several times (the active readers may ask again, as the
    noise is non-persistent) becomes one constraint: must-link if its answers
    sum to more than 0, cannot-link if less, none on an exact tie.  Pairs
    are unordered; each comes out as ``(min, max)``, in order of first query.

    Examples
    --------
    >>> ml, cl = pairs_to_constraints([[0, 1], [2, 1], [1, 2], [3, 0]], [0.9, -1.0, 0.4, -0.2])
    >>> ml.tolist(), cl.tolist()
    ([[0, 1]], [[1, 2], [0, 3]])
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    answers = np.asarray(answers, dtype=np.float64).reshape(-1)
    if pairs.shape[0] != answers.shape[0]:
        raise ValueError(f"pairs and answers must have one row per query, got {pairs.shape[0]} and {answers.shape[0]}")
    if pairs.shape[0] == 0:
        empty = np.empty((0, 2), dtype=np.int64)
        return empty, empty.copy()
    ordered = np.sort(pairs, axis=1)
    uniq, first, inverse = np.unique(ordered, axis=0, return_index=True, return_inverse=True)
    total = np.bincount(inverse.reshape(-1), weights=answers, minlength=uniq.shape[0])
    order = np.argsort(first, kind="stable")  # order of first query
    uniq, total = uniq[order], total[order]
    return uniq[total > 0], uniq[total < 0]


@ORACLES.register("cross_features", produces="none", needs=("y", "X"))
def cross_features(dataset, random_state=None) -> Problem:
    """No answers: the features and the true k only (the unsupervised floor of the study)."""
    y, k = labels_and_k(dataset, "cross_features")
    if dataset.X is None:
        raise ValueError(f"the cross_features oracle hands algorithms the features; dataset {dataset.name!r} has none")
    return Problem(n_items=y.shape[0], X=dataset.X, meta=problem_meta("none", k, 0, 0.0))
