"""The generic tests check results, not only shapes (issue 30 item 5), in the manner of benchopt's ``test_solver``.

Three properties, each asserted only where the method guarantees it (the
reason is given beside each list):

1. perfect supervision gives ARI 1;
2. the supervision's own objective (:func:`ccexp.objectives.problem_objective`)
   is no worse than that of the two trivial clusterings, all in one and all
   apart;
3. a local search ends at a local optimum under single moves: moving one
   item to another cluster, or to a new one of its own, never lowers the
   objective it minimises (checked by brute force on every item and target).
"""

from __future__ import annotations

import numpy as np
import pytest

import ccexp
from ccexp.objectives import problem_objective
from ccexp.problem import Problem

from test_capabilities import N, _dataset, _problem

#: identical input clusterings: D(C) = 0 at the truth and > 0 elsewhere, so an aggregation algorithm that
#: merges at distance 0 < 1/2 (agglomerative, balls, furthest), picks the best input (best_clustering), or
#: only accepts improving moves from the best input (local_search), returns the truth; cc_exact returns
#: the unique optimum; pivot on a consistent complete graph returns its cliques
PERFECT_CLUSTERINGS = ("agglomerative", "balls", "furthest", "best_clustering", "local_search", "sampling",
                       "cc_exact", "cc_pivot", "cc_maxcor_ls")


def _perfect_clusterings() -> Problem:
    ds = _dataset()
    return Problem(n_items=N, clusterings=np.stack([ds.y, ds.y, ds.y]), meta={})


@pytest.mark.parametrize("name", PERFECT_CLUSTERINGS)
def test_perfect_input_clusterings_give_the_truth(name):
    truth = _dataset().y
    labels = ccexp.make_algorithm(name, random_state=0).fit_problem(_perfect_clusterings()).labels_
    assert ccexp.score(labels, truth)["ari"] == 1.0


def test_complete_noiseless_pairwise_supervision_gives_the_truth_to_the_exact_solver():
    ds = _dataset()
    iu = np.triu_indices(N, 1)
    same = ds.y[iu[0]] == ds.y[iu[1]]
    pairs = np.stack(iu, axis=1)
    problem = Problem(n_items=N, must_link=pairs[same], cannot_link=pairs[~same])
    for name in ("cc_exact", "cc_pivot"):  # the optimum is unique; pivot on a complete consistent graph: its cliques
        labels = ccexp.make_algorithm(name, random_state=0).fit_problem(problem).labels_
        assert ccexp.score(labels, ds.y)["ari"] == 1.0, name


#: methods that minimise the supervision's own objective (correlation clustering and its relatives):
#: their answer is never worse than a clustering that needs no search at all
MINIMISERS = {
    "clusterings": ("agglomerative", "balls", "furthest", "best_clustering", "local_search", "sampling",
                    "cc_exact", "cc_pivot", "cc_maxcor_ls"),
    "triplets": ("ls_ad", "ls_ad_vc", "ls_eq", "ls_eq_vc", "triplet_approx", "triplet_approx_lp",
                 "cc_exact", "cc_pivot", "cc_maxcor_ls"),
    "pairwise": ("cc_exact", "cc_pivot", "cc_maxcor_ls"),
}


def _objective(labels, problem) -> float:
    return float(problem_objective(np.asarray(labels), problem)["objective"])


@pytest.mark.parametrize("kind, name", [(k, n) for k, names in MINIMISERS.items() for n in names])
def test_the_objective_is_no_worse_than_the_trivial_clusterings(kind, name):
    problem = _problem(kind)
    labels = ccexp.make_algorithm(name, random_state=0).fit_problem(problem).labels_
    trivial = min(_objective(np.zeros(N, int), problem), _objective(np.arange(N), problem))
    assert _objective(labels, problem) <= trivial + 1e-9


#: local searches and the objective (and supervision) their single moves descend on; the vertex-cover
#: variants search on the kept triplets T' only, so they are not local optima of s(f, T) (left out)
LOCAL_SEARCHES = (("local_search", "clusterings"), ("ls_ad", "triplets"), ("ls_eq", "triplets"),
                  ("cc_maxcor_ls", "clusterings"), ("cc_maxcor_ls", "pairwise"), ("cc_maxcor_ls", "triplets"))


def _single_moves(labels: np.ndarray):
    """Every clustering one single move away: an item to another cluster, or to a new one of its own."""
    clusters = np.unique(labels)
    new = labels.max() + 1
    for i in range(labels.size):
        for c in [*clusters, new]:
            if c != labels[i] and not (c == new and np.sum(labels == labels[i]) == 1):
                moved = labels.copy()
                moved[i] = c
                yield i, c, moved


@pytest.mark.parametrize("name, kind", LOCAL_SEARCHES)
def test_a_local_search_ends_at_a_local_optimum_under_single_moves(name, kind):
    problem = _problem(kind)
    labels = np.asarray(ccexp.make_algorithm(name, random_state=0).fit_problem(problem).labels_)
    here = _objective(labels, problem)
    better = [(i, c, _objective(m, problem)) for i, c, m in _single_moves(labels) if _objective(m, problem) < here - 1e-9]
    assert not better, f"{name}: moving item {better[0][0]} to cluster {better[0][1]} lowers {here} to {better[0][2]}"
