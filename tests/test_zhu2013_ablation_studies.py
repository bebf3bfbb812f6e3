"""experiments/zhu2013/ablation.py's studies (issue 34): every setting a variant names takes effect, and the
fifth round's premise that the clustering forest does not depend on how the columns are scaled."""

import inspect

import numpy as np
import pytest
from conftest import load_script
from hypothesis import given, settings
from hypothesis import strategies as st

from ccexp.algorithms.constrained.forest import forest_affinity
from ccexp.registry import ALGORITHMS


def _studies():
    return load_script("experiments/zhu2013/ablation.py", "zhu2013_ablation").STUDIES


def _parameters(algorithm: str) -> set[str]:
    return set(inspect.signature(ALGORITHMS.get(algorithm).__init__).parameters) - {"self"}


@pytest.mark.parametrize("study", sorted(_studies()))
def test_every_setting_of_a_variant_is_a_parameter_of_a_method_of_its_study(study):
    """The driver passes a variant's setting only to the methods that have it (``fit_one``): a misspelt or
    foreign name would refit the default under the variant's name, so each must belong to one of the study's
    methods at least."""
    spec = _studies()[study]
    have = {a: _parameters(a) for a in spec["algorithms"]}
    for variant, (params, reason) in spec["variants"].items():
        assert reason.strip(), f"{study}/{variant}: a variant needs its reason"
        for key in params:
            assert any(key in p for p in have.values()), f"{study}/{variant}: {key!r} is no method's parameter"


def test_the_features_study_changes_the_scaling_of_each_of_its_methods():
    """``scale_none`` must reach all four distance-based methods, and only the forest methods are left out."""
    spec = _studies()["features"]
    assert spec["variants"]["scale_none"][0] == {"scale": "none"}
    for a in spec["algorithms"]:
        assert "scale" in _parameters(a), a
        assert ALGORITHMS.get(a)().get_params()["scale"] == "symmetric"  # the default the study starts from
    assert not {"forest_e2cp", "cop_rf"} & set(spec["algorithms"])


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(8, 24), d=st.integers(1, 4),
       powers=st.lists(st.integers(-6, 6), min_size=4, max_size=4), constrained=st.booleans())
def test_forest_affinity_does_not_depend_on_a_power_of_two_scale_of_each_column(seed, n, d, powers, constrained):
    """Midpoint cuts and pseudo points uniform in the bounding box map one to one under x -> 2^e x per column
    (exact in floating point), so the clustering forest and the COP-RF give the same affinity: why the fifth
    round of experiments/zhu2013/README.md leaves the two forest methods out."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Xs = X * np.exp2(np.array(powers[:d], dtype=float))
    kw = {}
    if constrained:
        y = rng.integers(0, 2, n)
        pairs = rng.choice(n, size=(6, 2))
        pairs = pairs[pairs[:, 0] != pairs[:, 1]]
        same = y[pairs[:, 0]] == y[pairs[:, 1]]
        kw = {"must_link": pairs[same], "cannot_link": pairs[~same], "n_filter": 5}
    A, _ = forest_affinity(X, n_trees=8, random_state=seed, **kw)
    B, _ = forest_affinity(Xs, n_trees=8, random_state=seed, **kw)
    np.testing.assert_array_equal(A, B)
