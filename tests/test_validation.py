"""Input validation in the scikit-learn manner (issue 12, item 4).

Each test here failed on main at 52ceb95: float labels merged, a Problem
aliased and froze its caller's arrays, ``score([], [])`` returned 1.0,
triplets of shape (0, 5) passed, a bad index was reported in the wrong row,
wrong keyword arguments raised a bare TypeError, and ``random_state="abc"``
was ignored by the ``ls_*`` estimators.
"""

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ccexp
from ccexp import _validation as V
from ccexp.oracles.active import PairwiseSimilarityOracle
from ccexp.oracles.pairwise import pairwise_constraints
from ccexp.oracles.relative import informative_relative_constraints, random_relative_constraints
from ccexp.oracles.triplets import generate_triplets
from ccexp.registry import ALGORITHMS

FLOAT_Y = np.array([0.1, 0.2, 0.3, 0.1, 0.2, 0.3])  # three classes that int() would merge into one
STR_Y = np.array(["b", "a", "c", "b", "a", "c"])


# ---------------------------------------------------------------- labels


@pytest.mark.parametrize("y", [FLOAT_Y, STR_Y, np.array([2.5, -1.0, 7.0, 2.5, -1.0, 7.0]), [("x", 1), ("y", 2), ("z", 3)] * 2],
                         ids=["floats", "strings", "mixed-floats", "tuples"])
def test_labels_of_any_hashable_type_are_encoded_not_merged(y):
    codes = V.check_labels(_as_label_array(y))
    assert codes.dtype == np.int64
    assert np.unique(codes).size == 3
    # the partition is the input's: same label <=> same code
    raw = _as_label_array(y)
    same_raw = raw[:, None] == raw[None, :]
    assert np.array_equal(codes[:, None] == codes[None, :], same_raw)


def _as_label_array(y):
    if isinstance(y, list):
        arr = np.empty(len(y), dtype=object)
        arr[:] = y
        return arr
    return np.asarray(y)


def test_float_labels_are_not_merged_by_the_similarity_oracle():
    oracle = PairwiseSimilarityOracle(FLOAT_Y, gamma=0.0)
    # items 0, 1 and 2 are in three different classes
    assert oracle.query([0, 1], [1, 2]).tolist() == [-1.0, -1.0]
    assert oracle.query([0], [3]).tolist() == [1.0]
    prob = ccexp.make_problem("pairwise_similarity", ccexp.Dataset(name="mine", y=FLOAT_Y), gamma=0.0)
    assert prob.oracle.query([0, 1], [1, 2]).tolist() == [-1.0, -1.0]


def test_float_labels_reach_every_oracle_as_distinct_classes():
    y_int = np.array([0, 1, 2, 0, 1, 2])
    T_float, _ = generate_triplets(FLOAT_Y, order="sorted", random_state=0)
    T_int, _ = generate_triplets(y_int, order="sorted", random_state=0)
    np.testing.assert_array_equal(T_float, T_int)
    ml_f, cl_f, _ = pairwise_constraints(FLOAT_Y, 10, random_state=0)
    ml_i, cl_i, _ = pairwise_constraints(y_int, 10, random_state=0)
    np.testing.assert_array_equal(ml_f, ml_i)
    np.testing.assert_array_equal(cl_f, cl_i)
    np.testing.assert_array_equal(random_relative_constraints(FLOAT_Y, 5, 0), random_relative_constraints(y_int, 5, 0))
    np.testing.assert_array_equal(informative_relative_constraints(STR_Y, "first"),
                                  informative_relative_constraints(np.array([1, 0, 2, 1, 0, 2]), "first"))


def test_dataset_encodes_non_integer_labels_and_keeps_integer_ones():
    ds = ccexp.Dataset(name="mine", y=FLOAT_Y)
    assert ds.y.dtype == np.int64 and ds.n_classes == 3
    assert ds.y.tolist() == [0, 1, 2, 0, 1, 2]
    assert ccexp.Dataset(name="mine", y=STR_Y).y.tolist() == [1, 0, 2, 1, 0, 2]
    assert ccexp.Dataset(name="mine", y=np.array([5, -3, 5])).y.tolist() == [5, -3, 5]


@pytest.mark.parametrize(
    "y, match",
    [
        (np.array([0.0, np.nan, 1.0]), r"y holds a missing label \(nan\) at index 1"),
        (np.array(["a", None, "b"], dtype=object), r"y holds a missing label \(None\) at index 1"),
        (np.zeros((2, 2)), r"y must be 1-dimensional, got shape \(2, 2\)"),
    ],
)
def test_dataset_refuses_bad_labels(y, match):
    with pytest.raises(ValueError, match=match):
        ccexp.Dataset(name="mine", y=y)


def test_dataset_checks_consistent_lengths():
    with pytest.raises(ValueError, match=r"X has 2 rows, but y has 3 entries"):
        ccexp.Dataset(name="mine", y=np.array([0, 1, 1]), X=np.zeros((2, 2)))


def test_score_accepts_any_labels_without_merging():
    s = ccexp.score(FLOAT_Y, np.array([0, 1, 2, 0, 1, 2]))
    assert s["ari"] == 1.0 and s["n_clusters"] == 3
    assert ccexp.score(STR_Y, FLOAT_Y)["ari"] == 1.0
    assert ccexp.metrics.n_clusters([0.1, 0.2, 0.3]) == 3


def test_objectives_do_not_merge_float_labels():
    prob = ccexp.Problem(n_items=3, triplets=np.array([[0, 1, 2]]))
    # 0.1 and 0.2 are different clusters: {0}, {1}, {2} violates (0, 1 | 2) once; merged it would not
    assert ccexp.score([0.1, 0.2, 0.3], None, problem=prob)["objective"] == ccexp.score([0, 1, 2], None, problem=prob)["objective"]
    assert ccexp.score([0.1, 0.2, 0.3], None, problem=prob)["objective"] == 1


# ---------------------------------------------------------------- score


@pytest.mark.parametrize("labels, y, name", [([], [], "labels"), ([], None, "labels")])
def test_score_refuses_empty_input(labels, y, name):
    with pytest.raises(ValueError, match=f"{name} is empty"):
        ccexp.score(labels, y)


@pytest.mark.parametrize("fn", [ccexp.metrics.adjusted_rand, ccexp.metrics.adjusted_mutual_info,
                                ccexp.metrics.pairwise_precision_recall_f, ccexp.metrics.classification_error])
def test_metrics_refuse_empty_input(fn):
    with pytest.raises(ValueError, match="y_true is empty"):
        fn([], [])


def test_score_names_the_argument_of_a_length_mismatch():
    with pytest.raises(ValueError, match=r"y has 2 entries, expected 3"):
        ccexp.score([0, 1, 1], [0, 1])


# ---------------------------------------------------------------- Problem copies


def test_problem_copies_its_arrays():
    X = np.zeros((3, 2))
    T = np.array([[0, 1, 2]], dtype=np.int64)
    C = np.array([[0, 0, 1]], dtype=np.int64)
    ml = np.array([[0, 1]], dtype=np.int64)
    prob = ccexp.Problem(n_items=3, X=X, triplets=T, must_link=ml, clusterings=C)
    for mine, theirs in ((X, prob.X), (T, prob.triplets), (ml, prob.must_link), (C, prob.clusterings)):
        assert mine.flags.writeable, "the caller's array was made read-only"
        assert not np.shares_memory(mine, theirs)
    X[0, 0] = 5.0
    T[0] = [2, 1, 0]
    assert prob.X[0, 0] == 0.0 and prob.triplets[0].tolist() == [0, 1, 2]
    for arr in (prob.X, prob.triplets, prob.must_link, prob.clusterings):
        assert not arr.flags.writeable


_index_rows = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=6)


@settings(max_examples=50, deadline=None)
@given(rows=_index_rows, dtype=st.sampled_from([np.int64, np.int32, np.intp]),
       X=st.lists(st.floats(-5, 5), min_size=6, max_size=6))
def test_problem_never_aliases_its_inputs(rows, dtype, X):
    T = np.array([r for r in rows if len(set(r)) == 3] or [(0, 1, 2)], dtype=dtype)
    Xa = np.array(X).reshape(6, 1)
    before_T, before_X = T.copy(), Xa.copy()
    prob = ccexp.Problem(n_items=6, triplets=T, X=Xa)
    assert not np.shares_memory(prob.triplets, T) and not np.shares_memory(prob.X, Xa)
    assert T.flags.writeable and Xa.flags.writeable
    np.testing.assert_array_equal(prob.triplets, before_T)
    np.testing.assert_array_equal(prob.X, before_X)


# ---------------------------------------------------------------- shapes and rows


@pytest.mark.parametrize(
    "triplets, match",
    [
        (np.zeros((0, 5), dtype=np.int64), r"triplets must have shape \(m, 3\), got \(0, 5\)"),
        (np.zeros((0, 2), dtype=np.int64), r"triplets must have shape \(m, 3\), got \(0, 2\)"),
        (np.zeros((0, 3, 1), dtype=np.int64), r"triplets must have shape \(m, 3\), got \(0, 3, 1\)"),
        (np.array([0, 1, 2]), r"triplets must have shape \(m, 3\), got \(3,\)"),
    ],
)
def test_shapes_are_checked_exactly(triplets, match):
    with pytest.raises(ValueError, match=match):
        ccexp.Problem(n_items=4, triplets=triplets)


def test_no_rows_of_the_right_width_are_fine():
    assert ccexp.Problem(n_items=4, triplets=np.zeros((0, 3), dtype=np.int64)).triplets.shape == (0, 3)
    assert ccexp.Problem(n_items=4, must_link=[]).must_link.shape == (0, 2)  # an empty list: no constraints


@pytest.mark.parametrize(
    "triplets, match",
    [
        # the bad index is in row 1; row 0 is fine
        ([[0, 1, 2], [3, 0, 1]], r"triplets holds item index 3 \(row 1: \[3, 0, 1\]\), outside \[0, 3\)"),
        # a too-large index in row 0 and a negative one in row 2: the first offending row, with its own value
        ([[0, 1, 7], [0, 1, 2], [-1, 0, 1]], r"triplets holds item index 7 \(row 0: \[0, 1, 7\]\)"),
        ([[0, 1, 2], [0, 1, 2], [-1, 0, 9]], r"triplets holds item index -1 \(row 2: \[-1, 0, 9\]\)"),
    ],
)
def test_bad_index_names_its_own_row(triplets, match):
    with pytest.raises(ValueError, match=match):
        ccexp.Problem(n_items=3, triplets=np.array(triplets))


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(-3, 8), st.integers(-3, 8), st.integers(-3, 8)), min_size=1, max_size=8))
def test_index_error_names_a_row_that_holds_the_value(rows):
    T = np.array(rows, dtype=np.int64)
    bad = (T < 0) | (T >= 5)
    if not bad.any():
        return
    with pytest.raises(ValueError) as err:
        ccexp.Problem(n_items=5, triplets=T)
    first = int(np.flatnonzero(bad.any(axis=1))[0])
    msg = str(err.value)
    assert f"(row {first}: {T[first].tolist()})" in msg
    value = int(msg.split("item index ")[1].split(" ")[0])
    assert value in T[first].tolist() and not 0 <= value < 5


# ---------------------------------------------------------------- keyword arguments


@pytest.mark.parametrize(
    "call, valid",
    [
        (lambda: ccexp.make_algorithm("ls_ad", foo=1), ["init", "item_order", "max_passes", "random_state", "redundant_order", "tie_break", "vc_order", "vertex_cover"]),
        (lambda: ccexp.load_dataset("synthetic_labels", foo=1), ["k", "n", "random_state", "shuffle"]),
        (lambda: ccexp.load_dataset("iris", foo=1), ["random_state", "scale"]),
        (lambda: ccexp.load_dataset("letters3000", foo=1), ["n", "random_state", "sample_seed", "scale"]),
        (lambda: ccexp.make_problem("triplets", ccexp.Dataset(name="m", y=np.arange(4)), foo=1),
         ["ambiguous", "fraction", "noise", "order", "random_state"]),
    ],
)
def test_unknown_keywords_list_the_valid_ones(call, valid):
    with pytest.raises(TypeError) as err:  # still catchable as TypeError, as before
        call()
    assert isinstance(err.value, ValueError) and isinstance(err.value, V.UnknownParameterError)
    msg = str(err.value)
    assert "'foo'" in msg
    assert msg.endswith("valid parameters are: " + ", ".join(valid))


def test_every_registered_loader_names_its_parameters():
    """No factory hides its parameters behind ``**kwargs``: each one can be checked."""
    from ccexp.registry import DATASETS, ORACLES

    for registry in (DATASETS, ORACLES, ALGORITHMS):
        for name in registry.names():
            kinds = {p.kind for p in inspect.signature(registry.get(name)).parameters.values()}
            assert inspect.Parameter.VAR_KEYWORD not in kinds, f"{registry.kind} {name!r} takes **kwargs"


# ---------------------------------------------------------------- random_state


_SUPERVISION = {
    "triplets": ("synthetic_labels", dict(n=8, k=2), "triplets", dict(fraction=0.5)),
    "must_link": ("synthetic_blobs", dict(n=20, k=2, d=2), "pairwise", dict(n_constraints=10)),
    "relative": ("synthetic_blobs", dict(n=20, k=2, d=2), "relative_random", dict(n_constraints=10)),
    "clusterings": ("synthetic_blobs", dict(n=20, k=2, d=2), "clusterings_kmeans", dict(k_min=2, k_max=3)),
    "oracle": ("synthetic_blobs", dict(n=20, k=2, d=2), "pairwise_similarity", dict(gamma=0.1)),
}


def _problem_for(algorithm):
    kind = ALGORITHMS.get(algorithm).supervision
    # cc_exact / cc_pivot / cc_maxcor_ls read any supervision that has a pair objective: give them triplets
    ds_name, ds_params, oracle, oracle_params = _SUPERVISION["triplets" if kind == "any" else kind]
    ds = ccexp.load_dataset(ds_name, random_state=0, **ds_params)
    return ccexp.make_problem(oracle, ds, random_state=0, **oracle_params)


@pytest.mark.parametrize("algorithm", ALGORITHMS.names())
@pytest.mark.parametrize("seed", ["abc", 1.5, -1, [1, 2]])
def test_every_algorithm_refuses_a_bad_random_state(algorithm, seed):
    prob = _problem_for(algorithm)
    with pytest.raises(ValueError, match=r"random_state=.* cannot be used to seed"):
        ccexp.make_algorithm(algorithm, random_state=seed).fit_problem(prob)


@pytest.mark.parametrize("seed", ["abc", 2.5, -1])
@pytest.mark.parametrize("call", [
    lambda s: ccexp.load_dataset("synthetic_labels", n=6, k=2, random_state=s),
    lambda s: ccexp.make_problem("triplets", ccexp.Dataset(name="m", y=np.arange(4) % 2), random_state=s),
    lambda s: ccexp.make_problem("pairwise", ccexp.Dataset(name="m", y=np.arange(4) % 2), n_constraints=2, random_state=s),
    lambda s: PairwiseSimilarityOracle(np.arange(4) % 2, random_state=s),
], ids=["dataset", "triplets", "pairwise", "similarity"])
def test_datasets_and_oracles_refuse_a_bad_random_state(call, seed):
    with pytest.raises(ValueError, match=r"random_state=.* cannot be used to seed"):
        call(seed)


@pytest.mark.parametrize("seed", [None, 0, np.int32(3), np.random.RandomState(0), np.random.default_rng(0),
                                  np.random.SeedSequence(0)])
def test_accepted_seeds(seed):
    rng = V.check_random_state(seed)
    assert isinstance(rng, np.random.Generator)
    ccexp.make_algorithm("ls_ad", random_state=seed).fit(np.array([[0, 1, 2]]))


def test_integer_seeds_keep_numpys_generator_stream():
    """Seeds mean what they meant before: the committed results stay reproducible."""
    assert V.check_random_state(7).random(3).tolist() == np.random.default_rng(7).random(3).tolist()
    g = np.random.default_rng(1)
    assert V.check_random_state(g) is g


# ---------------------------------------------------------------- properties


@settings(max_examples=80, deadline=None)
@given(y=st.lists(st.integers(0, 4), min_size=2, max_size=30), perm_seed=st.integers(0, 2**16))
def test_label_encoding_is_invariant_to_relabelling(y, perm_seed):
    y = np.array(y)
    classes = np.unique(y)
    rng = np.random.default_rng(perm_seed)
    # an injective relabelling into floats and strings
    new = rng.permutation(50)[: classes.size]
    mapping_f = {c: float(v) + 0.5 for c, v in zip(classes, new)}
    mapping_s = {c: f"c{v}" for c, v in zip(classes, new)}
    a = V.check_labels(y)
    for relabelled in (np.array([mapping_f[v] for v in y]), np.array([mapping_s[v] for v in y])):
        b = V.check_labels(relabelled)
        assert np.array_equal(a[:, None] == a[None, :], b[:, None] == b[None, :])
        assert ccexp.score(relabelled, y)["ari"] == 1.0
        assert ccexp.score(y, relabelled)["f_measure"] == 1.0
        assert ccexp.metrics.n_clusters(relabelled) == classes.size
