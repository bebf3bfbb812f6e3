"""Triplets read as relative constraints (ReCon on the same answers) and the study's supervision column."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_data

from ccexp.algorithms.cross.recon_triplets import ReConOnTriplets, triplets_as_relative
from ccexp.algorithms.relative import ReCon
from ccexp.objectives.relative import partition_violations
from ccexp.objectives.triplets import triplet_objective
from ccexp.problem import Problem


def test_triplets_as_relative_is_the_same_answer():
    # (a, b, c) with outlier c  <=>  ab|c with (a, b) the closest pair: one row, unchanged
    T = np.array([[0, 1, 2], [3, 2, 0], [1, 4, 3]])
    R = triplets_as_relative(T, 5)
    assert R.tolist() == T.tolist() and R.dtype == np.int64
    assert R is not T
    with pytest.raises(ValueError, match="triplets"):
        triplets_as_relative([[0, 1, 5]], 5)


def test_ukkonen_reading_says_more_than_liu_reading():
    # one answer: of 0, 1, 2 the outlier is 2 (Liu: 01|2)
    T = np.array([[0, 1, 2]])
    together, apart, right, wrong = [0, 0, 0], [0, 1, 2], [0, 0, 1], [0, 1, 0]
    # Liu's Definition 4.2: only "c with a or b but not all three" violates it
    assert [bool(partition_violations(np.array(f), T)[0]) for f in (together, apart, right, wrong)] == [
        False, False, False, True]
    # Ukkonen's s(f, T): all together or all apart is penalised as well
    costs = [triplet_objective(np.array(f), T) for f in (together, apart, right, wrong)]
    assert costs[2] == 0 and costs[0] > 0 and costs[1] > 0 and costs[3] > 0


def test_recon_triplets_equals_recon_on_the_same_rows():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 8)
    X = rng.normal(size=(24, 2)) + 4.0 * y[:, None]
    T = np.array([[a, b, c] for a, b, c in rng.integers(0, 24, size=(60, 3))
                  if len({a, b, c}) == 3 and y[a] == y[b] != y[c]])
    p = Problem(n_items=24, X=X, triplets=T, meta={"n_clusters": 3})
    ours = ReConOnTriplets().fit_problem(p)
    ref = ReCon(n_clusters=3).fit(X, T)
    assert np.array_equal(ours.labels_, ref.labels_)
    assert ours.record_ == {"supervision": "relative"}
    # it reads the triplets: a problem without them is refused, naming the field
    with pytest.raises(ValueError, match="triplets"):
        ReConOnTriplets().fit_problem(Problem(n_items=24, X=X, meta={"n_clusters": 3}))


def test_supervision_column_from_the_runner():
    """Real runner code on one instance of each kind of the ci grid: every record names its kind."""
    from ccexp.runner.config import experiment_cases
    from ccexp.runner.execute import run_instance

    require_data("iris/iris.data")  # the ci grid's real dataset: skip, naming it, where it is absent
    _, cases = experiment_cases("cross_supervision", "ci")
    by_inst = {}
    for c in cases:
        by_inst.setdefault(c.instance.instance_id, []).append(c)
    wanted = {"cross_triplets", "cross_pairwise", "cross_features"}
    expect = {"ls_ad_vc": "triplets", "triplet_approx": "triplets", "tste_dpmm": "triplets",
              "recon_triplets": "relative", "kmeans": "none", "spectral": "none"}
    seen = set()
    for group in by_inst.values():
        inst = group[0].instance
        name = inst.oracle["name"]
        if name not in wanted or inst.dataset["name"] != "iris" or inst.oracle.get("eps", 0.0) != 0.0 \
                or inst.oracle.get("budget", 1) != 1:
            continue
        group = [c for c in group if c.algorithm not in ("cop_rf", "tste_dpmm")]  # the slow ones
        records = run_instance(group, {"paper": "cross", "scale": "ci"})
        for r in records:
            assert r["status"] != "error", r.get("error")
            want = expect.get(r["algorithm"], "pairwise")
            assert r["supervision"] == want, (r["algorithm"], r["supervision"])
            seen.add(want)
        if name == "cross_triplets":
            # every reader of the instance read the very same answers
            assert len({r["seed"] for r in records}) == 1 and len({r["instance_id"] for r in records}) == 1
    assert seen == {"triplets", "relative", "pairwise", "none"}


def test_grid_pairs_each_kind_with_its_readers():
    from ccexp.runner.config import experiment_cases

    _, cases = experiment_cases("cross_supervision", "ci")
    pairing = {}
    for c in cases:
        pairing.setdefault(c.instance.oracle["name"], set()).add(c.algorithm)
    assert pairing == {
        "cross_features": {"kmeans", "spectral"},
        "cross_triplets": {"ls_ad_vc", "triplet_approx", "tste_dpmm", "recon_triplets"},
        "cross_pairwise": {"cop_kmeans", "cop_rf", "e2cp", "spectral_learning"},
        "cross_active_pairs": {"cop_kmeans", "cop_rf", "e2cp", "spectral_learning"},
        "cross_similarity": {"acc_maxmin", "acc_maxexp", "acc_uniform"},
    }
    # the active readers run to the largest budget of the grid (5 answers per item)
    for c in cases:
        if c.algorithm.startswith("acc_"):
            n = {"iris": 150, "wine": 178}[c.instance.dataset["name"]]
            assert c.params["max_queries"] == 5 * n
