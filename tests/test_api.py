"""The public API of DESIGN.md and the errors a user can act on."""

import dataclasses

import numpy as np
import pytest

import ccexp


def test_design_example_runs_end_to_end():
    ds = ccexp.load_dataset("synthetic_labels", n=60, k=3, random_state=0)
    prob = ccexp.make_problem("triplets", ds, fraction=0.1, noise=0.2, random_state=0)
    est = ccexp.make_algorithm("ls_ad_vc", random_state=0)
    labels = est.fit_problem(prob).labels_
    s = ccexp.score(labels, ds.y)
    assert set(s) >= {"ari", "ami", "f_measure", "n_clusters"}
    s2 = ccexp.score(labels, ds.y, problem=prob)
    assert s2["objective"] == est.objective_
    assert {"synthetic_labels"} <= set(ccexp.list_datasets())
    assert {"triplets", "recorded"} <= set(ccexp.list_oracles())
    assert {"ls_eq", "ls_ad", "ls_eq_vc", "ls_ad_vc", "triplet_approx"} <= set(ccexp.list_algorithms())


def test_users_own_triplets():
    T = np.array([[0, 1, 2], [0, 1, 3], [2, 3, 0], [2, 3, 1], [4, 5, 0], [4, 5, 2]])
    prob = ccexp.Problem(n_items=6, triplets=T)
    labels = ccexp.make_algorithm("ls_ad_vc").fit_problem(prob).labels_
    assert labels[0] == labels[1] and labels[2] == labels[3] and labels[4] == labels[5]
    assert len(set(labels.tolist())) == 3
    # natural inputs, no Problem
    np.testing.assert_array_equal(ccexp.algorithms.triplets.LsADVC().fit(T).labels_, labels)


@pytest.mark.parametrize(
    "triplets, match",
    [
        ([[0, 1, 5]], r"triplets holds item index 5 \(row 0: \[0, 1, 5\]\), outside \[0, 4\)"),
        ([[0, -1, 2]], r"triplets holds item index -1"),
        ([[0, 1, 1]], r"triplets repeats an item within row 0: \[0, 1, 1\]"),
        ([[0.0, 1.0, 2.0]], r"triplets must be an integer array of item indices, got dtype float64"),
        ([[0, 1]], r"triplets must have shape \(m, 3\), got \(1, 2\)"),
        ([[True, False, True]], r"triplets must be an integer array"),
    ],
)
def test_bad_triplets_raise_naming_argument_and_value(triplets, match):
    with pytest.raises(ValueError, match=match):
        ccexp.Problem(n_items=4, triplets=np.array(triplets))
    with pytest.raises(ValueError, match=match):
        ccexp.algorithms.triplets.LsADVC().fit(np.array(triplets), n_items=4)


def test_other_problem_fields_are_validated():
    with pytest.raises(ValueError, match="n_items must be an integer >= 1, got 0"):
        ccexp.Problem(n_items=0)
    with pytest.raises(ValueError, match=r"X holds a non-finite value \(nan\) at row 1, column 0"):
        ccexp.Problem(n_items=2, X=np.array([[0.0], [np.nan]]))
    with pytest.raises(ValueError, match="must_link repeats an item"):
        ccexp.Problem(n_items=3, must_link=np.array([[1, 1]]))
    with pytest.raises(ValueError, match="clusterings use -1 for a missing value"):
        ccexp.Problem(n_items=2, clusterings=np.array([[0, -2]]))


def test_problem_is_frozen_and_read_only():
    prob = ccexp.Problem(n_items=3, triplets=np.array([[0, 1, 2]]))
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'n_items'"):
        prob.n_items = 4
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        prob.triplets[0, 0] = 2


@pytest.mark.parametrize(
    "call, kind",
    [
        (lambda: ccexp.load_dataset("nope"), "dataset"),
        (lambda: ccexp.make_problem("nope", None), "oracle"),
        (lambda: ccexp.make_algorithm("nope"), "algorithm"),
    ],
)
def test_unknown_names_list_the_valid_ones(call, kind):
    with pytest.raises(ValueError, match=f"unknown {kind} 'nope'; valid {kind}s are: ") as err:
        call()
    valid = {"dataset": ccexp.list_datasets, "oracle": ccexp.list_oracles, "algorithm": ccexp.list_algorithms}[kind]()
    assert all(v in str(err.value) for v in valid)


def test_algorithm_needs_its_supervision_kind():
    prob = ccexp.Problem(n_items=3, must_link=np.array([[0, 1]]))
    with pytest.raises(ValueError, match="LsADVC needs a problem with triplets, but this problem carries 'pairwise'"):
        ccexp.make_algorithm("ls_ad_vc").fit_problem(prob)


def test_synthetic_labels_validation():
    assert np.bincount(ccexp.load_dataset("synthetic_labels", n=10, k=3, random_state=0).y).tolist() == [4, 3, 3]
    with pytest.raises(ValueError, match="k must be at most n=3, got k=4"):
        ccexp.load_dataset("synthetic_labels", n=3, k=4, random_state=0)


def test_recorded_oracle_passes_triplets_through():
    ds = ccexp.Dataset(name="mine", y=None, triplets=np.array([[0, 1, 2], [1, 2, 3]]))
    prob = ccexp.make_problem("recorded", ds)
    assert prob.n_items == 4 and prob.triplets.shape == (2, 3)


def test_synthetic_labels_shuffle():
    blocks = ccexp.load_dataset("synthetic_labels", n=9, k=3, shuffle=False).y
    assert blocks.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    a = ccexp.load_dataset("synthetic_labels", n=60, k=4, random_state=1).y
    b = ccexp.load_dataset("synthetic_labels", n=60, k=4, random_state=1).y
    c = ccexp.load_dataset("synthetic_labels", n=60, k=4, random_state=2).y
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.bincount(a).tolist() == [15, 15, 15, 15]
