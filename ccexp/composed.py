"""Oracles composed with an algorithm: the pairs an active learner asks, handed over as constraints.

The cross-supervision study (``conf/experiment/cross_supervision.yaml``)
feeds the pairwise-constraint readers the pairs an active strategy of
Aronsson & Chehreghani (2024) chose.  Building that problem runs an
algorithm against an oracle, so it sits above both families (which never
import each other, ``tests/test_layers.py``) and below the public API,
which imports it so that ``cross_active_pairs`` is registered.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_random_state, unknown_name_error
from .algorithms.active.estimator import ActiveCorrelationClustering
from .problem import Problem
from .problem_oracle import PairwiseSimilarityOracle
from .oracles.cross import QueryLog, labels_and_k, n_answers, noise_parameter, pairs_to_constraints, problem_meta
from .registry import ORACLES

ACTIVE_STRATEGIES = ("maxmin", "maxexp", "uniform")


@ORACLES.register("cross_active_pairs", produces="pairwise", needs=("y", "X"))
def cross_active_pairs(dataset, budget=1.0, eps=0.0, strategy="maxmin", lam=0.1, random_state=None) -> Problem:
    """The pairs an active strategy queries in ``round(budget * n)`` answers, as must-link / cannot-link.

    Runs Algorithm 1 of Aronsson & Chehreghani (2024) with query strategy
    ``strategy`` (their ``paper`` preset, random sigma_0) against the noisy
    similarity oracle (``gamma = 2 * eps``) until the budget is spent, logs
    every query (:class:`QueryLog`) and hands the queried pairs with their
    answers (:func:`pairs_to_constraints`) and the features to the
    pairwise-constraint readers.  Repeated queries of a pair cost an answer
    each but give one constraint, so ``n_constraints <= n_answers``.
    """
    if strategy not in ACTIVE_STRATEGIES:
        raise unknown_name_error("strategy", strategy, ACTIVE_STRATEGIES)
    y, k = labels_and_k(dataset, "cross_active_pairs")
    if dataset.X is None:
        raise ValueError(f"the cross_active_pairs oracle hands algorithms the features; dataset {dataset.name!r} has none")
    _, gamma = noise_parameter("active_pairs", eps)
    rng = check_random_state(random_state)
    n = y.shape[0]
    m = n_answers(budget, n)
    if m > n * (n - 1) // 2:
        raise ValueError(f"budget={budget!r} asks for {m} queries, more than the {n * (n - 1) // 2} pairs of {n} items")
    oracle = PairwiseSimilarityOracle(y, gamma=gamma, lam=lam, random_state=rng)
    log = QueryLog(oracle)
    seed = int(rng.integers(0, 2**31 - 1))
    ActiveCorrelationClustering(strategy, max_queries=m, lam=lam, random_state=seed).fit(log)
    ml, cl = pairs_to_constraints(log.pairs(), log.answers())
    pairs = np.concatenate([ml, cl])
    wrong = int(np.sum((y[pairs[:, 0]] == y[pairs[:, 1]]) != np.r_[np.ones(len(ml), bool), np.zeros(len(cl), bool)]))
    return Problem(n_items=n, X=dataset.X, must_link=ml, cannot_link=cl,
                   meta=problem_meta("active_pairs", k, log.n_queries, eps, n_constraints=int(len(pairs)),
                              n_wrong=wrong, strategy=strategy))
