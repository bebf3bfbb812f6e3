"""No answer from no input, no array sized by an index alone (issue 33, items 9 and 14).

Before: ``make_algorithm("ls_ad_vc").fit(np.empty((0, 3), int))`` returned labels for one invented item
(so did ls_eq and triplet_approx); limbo and rock clustered 5 items from zero input clusterings;
``LsADVC().fit([[2**31 - 1, 0, 1]])`` sized its arrays from the largest index and was killed at 22.7 GB.
"""

from __future__ import annotations

import numpy as np
import pytest

import ccexp
from ccexp.algorithms.triplets import LsADVC

TRIPLET_ALGORITHMS = ["ls_ad_vc", "ls_eq", "ls_ad", "ls_eq_vc", "triplet_approx", "triplet_approx_lp", "tste_dpmm",
                      "crowdclust_dpmm"]


@pytest.mark.parametrize("name", TRIPLET_ALGORITHMS)
def test_no_triplet_is_refused(name):
    with pytest.raises(ValueError, match=r"triplets must hold at least one triplet \(a, b, c\), got shape \(0, 3\)"):
        ccexp.make_algorithm(name).fit(np.empty((0, 3), int))
    with pytest.raises(ValueError, match="at least one triplet"):
        ccexp.make_algorithm(name).fit(np.empty((0, 3), int), n_items=5)


@pytest.mark.parametrize("name", ["limbo", "rock", "agglomerative", "balls", "furthest", "local_search",
                                  "best_clustering", "sampling"])
def test_no_input_clustering_is_refused_by_every_aggregator(name):
    with pytest.raises(ValueError, match=r"clusterings must hold at least one clustering \(m >= 1\), got m = 0"):
        ccexp.make_algorithm(name).fit(np.empty((0, 5), int))


def test_an_index_alone_does_not_size_the_arrays():
    with pytest.raises(ValueError, match=r"the largest index, 2147483647, would make 2,147,483,648 items for the 3 "
                                         r"the triplets name.*pass n_items=N"):
        LsADVC().fit([[2**31 - 1, 0, 1]])
    # an index is fine when the data bound it: items no triplet names are their own clusters
    labels = LsADVC(random_state=0).fit([[0, 1, 9]]).labels_
    assert labels.shape == (10,)
    labels = LsADVC(random_state=0).fit([[0, 1, 2], [3, 4, 5]], n_items=8).labels_
    assert labels.shape == (8,)
