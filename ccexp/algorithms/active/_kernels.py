"""Numba kernels of active correlation clustering (Aronsson & Chehreghani 2024), gathered.

The estimator, the local search and the strategies call them as ``K.<name>``;
they live in :mod:`._local_search_kernels` and :mod:`._maxcor_sums` (Algorithm 2),
:mod:`._selection_kernels` (the triangles of the query strategies, Section 3)
and :mod:`._batch_kernels` (the batch: top-B cuts, fills, uncertainty's
least-|S| edges, the running-mean update).  All work on
the dense symmetric similarity matrix ``S`` (float64, ``S[u, u] = 0``) and
integer label arrays.
"""

from ...cc.labels import relabel_first_appearance
from ._local_search_kernels import (
    abs_max,
    max_correlation_plain,
    max_correlation,
    local_search_run_plain,
    random_labels,
)
from ._maxcor_sums import build_sums, local_search_run, local_search_sums, maxcor_pass, maxcor_state, seed_visits
from ._selection_kernels import (
    Credits,
    zero_credits,
    MAXEXP,
    MAXEXP_UNPRUNED,
    MAXMIN,
    expected_cost,
    violating_edges,
    sample_prefix,
    score_bad_triangles,
    sign_bits,
    take_scores,
)
from ._batch_kernels import (
    fill_random,
    least_queried,
    least_queried_plain,
    apply_answers,
    eligible_magnitudes,
    least_magnitude_cut,
    least_magnitude_cut_and_count,
    kth_largest,
    count_at_magnitude,
    pick_at_magnitude,
)

__all__ = [
    "Credits",
    "zero_credits",
    "abs_max",
    "MAXEXP",
    "MAXEXP_UNPRUNED",
    "MAXMIN",
    "apply_answers",
    "build_sums",
    "count_at_magnitude",
    "eligible_magnitudes",
    "expected_cost",
    "fill_random",
    "kth_largest",
    "least_magnitude_cut",
    "least_magnitude_cut_and_count",
    "least_queried",
    "least_queried_plain",
    "local_search_run",
    "local_search_run_plain",
    "local_search_sums",
    "max_correlation",
    "max_correlation_plain",
    "maxcor_pass",
    "maxcor_state",
    "pick_at_magnitude",
    "random_labels",
    "relabel_first_appearance",
    "sample_prefix",
    "score_bad_triangles",
    "seed_visits",
    "sign_bits",
    "take_scores",
    "violating_edges",
]
