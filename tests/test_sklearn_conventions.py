"""scikit-learn's estimator conventions (issue 16, item 4).

Every feature-based estimator of the registry (a
:class:`~ccexp.algorithms.base.FeatureEstimator`: ``fit(X, y=None, *,
<supervision>=None)``) passes :func:`sklearn.utils.estimator_checks`' whole
API battery; a check that cannot apply to one would be declared in its
``_expected_failed_checks`` with the reason (none is today).  Presets are
subclasses that change defaults only (``defaults=``), and their signatures
are what ``get_params``, ``clone`` and the configs read.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from ccexp.algorithms import make_algorithm
from ccexp.algorithms.active.estimator import ActiveCorrelationClustering
from ccexp.algorithms.base import FeatureEstimator, ProblemEstimator
from ccexp.algorithms.relative.recon import ReCon
from ccexp.algorithms.triplets.local_search import TripletLocalSearch
from ccexp.problem import Problem
from ccexp.registry import ALGORITHMS

FEATURE_BASED = sorted(n for n in ALGORITHMS.names() if issubclass(ALGORITHMS.get(n), FeatureEstimator))
#: smaller forests than the paper's 1000 trees, to keep each check well under a second
SMALL = {"cop_rf": {"n_trees": 10, "n_filter": 5}, "forest_e2cp": {"n_trees": 10}}


def _instance(name):
    # the registry's defaults (n_clusters None: the problem's k, else 8 for a bare fit(X), as KMeans);
    # only the forests are smaller
    return make_algorithm(name, **SMALL.get(name, {}))


def test_the_feature_based_estimators_are_found_in_the_registry():
    assert {"kmeans", "kmeans_svm", "cop_kmeans", "spectral", "spectral_learning", "e2cp", "forest_e2cp",
            "cop_rf", "hierarchical", "recon", "recon_svm", "recon_triplets"} == set(FEATURE_BASED)


@pytest.mark.parametrize("name", FEATURE_BASED)
def test_fit_takes_X_y_then_the_supervision_as_keywords(name):
    params = list(inspect.signature(ALGORITHMS.get(name).fit).parameters.values())
    assert [p.name for p in params[:3]] == ["self", "X", "y"] and params[2].default is None
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is None for p in params[3:])


@pytest.mark.parametrize("name", FEATURE_BASED + ["rock", "limbo", "acc_maxexp", "acc_uniform", "cc_exact", "cc_pivot",
                                  "cc_maxcor_ls"])
def test_every_parameter_has_a_constraint(name):
    est = make_algorithm(name)
    assert set(type(est)._parameter_constraints) == set(est.get_params())


@parametrize_with_checks([_instance(n) for n in FEATURE_BASED],
                         expected_failed_checks=lambda est: est._expected_failed_checks)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_supervision_passed_as_keywords_is_used():
    """must_link reaches the algorithm as a keyword (it used to sit where sklearn passes y)."""
    X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 0.0], [5.1, 0.0]])
    free = make_algorithm("cop_kmeans", n_clusters=2, random_state=0).fit(X)
    assert free.labels_[0] == free.labels_[1] != free.labels_[2]
    # a cannot-link inside the left pair and a must-link across: COP-KMeans must obey both
    est = make_algorithm("cop_kmeans", n_clusters=2, random_state=0).fit(X, must_link=[[1, 2]], cannot_link=[[0, 1]])
    assert est.status_ == "ok" and est.labels_[1] == est.labels_[2] and est.labels_[0] != est.labels_[1]
    # y is ignored, as scikit-learn's clusterers ignore it
    np.testing.assert_array_equal(make_algorithm("kmeans", n_clusters=2, random_state=0).fit(X, y=[1, 1, 1, 1]).labels_,
                                  make_algorithm("kmeans", n_clusters=2, random_state=0).fit(X).labels_)


@pytest.mark.parametrize("name, param, value", [
    ("spectral", "n_neighbors", 0), ("cop_kmeans", "order", "backwards"), ("e2cp", "alpha", 1.0),
    ("cop_rf", "cl_rule", "both"), ("recon", "on_inconsistent", "ignore"), ("kmeans", "n_clusters", 0),
    ("hierarchical", "min_branch_size", "big"), ("rock", "theta", 1.0), ("limbo", "phi", -1.0),
    ("acc_maxexp", "tau", 0), ("cc_exact", "solver", "gurobi"), ("cc_pivot", "n_runs", 0),
    ("cc_maxcor_ls", "n_restarts", -1),
])
def test_bad_parameters_are_refused_with_a_value_error_naming_them(name, param, value):
    est = make_algorithm(name, **{param: value})
    X = np.random.default_rng(0).random((10, 2))
    arg = np.zeros((2, 10), dtype=np.int64) if est.supervision in ("clusterings", "oracle") else X
    with pytest.raises(ValueError, match=f"'{param}' parameter"):
        if hasattr(est, "fit"):
            est.fit(arg)
        else:  # the correlation-clustering readers of every kind: fit_problem only
            est.fit_problem(Problem(n_items=10, clusterings=np.zeros((2, 10), dtype=np.int64)))


def test_bad_X_names_X():
    with pytest.raises(ValueError, match="Input X contains NaN"):
        make_algorithm("kmeans", n_clusters=2).fit(np.array([[0.0], [np.nan], [1.0]]))
    with pytest.raises(ValueError, match="must_link holds item index 7"):
        make_algorithm("spectral", n_clusters=2).fit(np.zeros((4, 2)), must_link=[[0, 7]])


# ------------------------------------------------------------------ presets


@pytest.mark.parametrize("name, parent, changed", [
    ("ls_eq", TripletLocalSearch, {"init": "equal", "vertex_cover": False}),
    ("ls_ad", TripletLocalSearch, {"init": "different", "vertex_cover": False}),
    ("ls_eq_vc", TripletLocalSearch, {"init": "equal", "vertex_cover": True}),
    ("ls_ad_vc", TripletLocalSearch, {"init": "different", "vertex_cover": True}),
    ("recon_svm", ReCon, {"metric": "svm"}),
    ("acc_uniform", ActiveCorrelationClustering, {"strategy": "uniform"}),
    ("acc_maxmin", ActiveCorrelationClustering, {"strategy": "maxmin"}),
])
def test_a_preset_is_its_parents_parameter_list_with_other_defaults(name, parent, changed):
    cls = ALGORITHMS.get(name)
    assert issubclass(cls, parent)
    own = inspect.signature(cls).parameters
    base = inspect.signature(parent).parameters
    assert list(own) == list(base)
    for p in own:
        assert own[p].default == changed.get(p, base[p].default), p
    est = cls()
    assert est.get_params() == {p: own[p].default for p in own}
    assert repr(est) == f"{cls.__name__}()"  # the new defaults are the defaults
    other = cls(**{p: base[p].default for p in changed})  # back to the parent's values, by keyword
    assert other.get_params() == parent().get_params()
    assert clone(other).get_params() == other.get_params()


def test_a_preset_refuses_defaults_for_parameters_its_parent_lacks():
    with pytest.raises(TypeError, match="unknown parameters"):
        class Bad(ReCon, defaults={"metrik": "svm"}):  # noqa: F841
            pass


def test_a_preset_takes_its_parents_positional_order():
    assert ALGORITHMS.get("ls_eq")("different", True).get_params()["vertex_cover"] is True
    assert isinstance(ALGORITHMS.get("ls_eq")(), ProblemEstimator)


# ------------------------------------------------------------------ aggregation orientation


@pytest.mark.parametrize("name", sorted(n for n in ALGORITHMS.names() if ALGORITHMS.get(n).supervision == "clusterings"))
def test_every_aggregation_estimator_reads_m_clusterings_by_n_items(name):
    """One orientation across the family: rows are input clusterings, columns items (as problem.clusterings)."""
    from ccexp.problem import Problem

    C = np.array([[0, 0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 1, 2, 2], [0, 0, 0, 0, 1, 1, 1]])  # m = 3, n = 7
    est = make_algorithm(name)
    labels = est.fit(C).labels_
    assert labels.shape == (7,)
    np.testing.assert_array_equal(est.fit_problem(Problem(n_items=7, clusterings=C)).labels_, labels)
