"""Every registered algorithm declares its parameters (issue 30, item 4).

Each estimator states scikit-learn ``_parameter_constraints`` for exactly
the parameters of its ``__init__`` (presets: their parent's list), its
defaults satisfy them, and at fit time a value that satisfies none of a
parameter's constraints is refused with a ``ValueError`` naming the
parameter and the class, as :func:`sklearn.utils.estimator_checks.check_param_validation`
checks it for scikit-learn's estimators: a value of no accepted type, then
for each constraint the out-of-range value that
:func:`~sklearn.utils._param_validation.generate_invalid_param_val` derives
from it (below an interval's bound, a string outside the options) when no
other constraint of the parameter accepts it.  The fits run on the tiny
problems of tests/test_capabilities.py.  Plugins installed in the
environment are registered algorithms too, so they are held to the same
checks.

Every parameter value the configs use passes too: every algorithm config
here, and (slow tier) the parameters of every experiment's cases at every
scale and variant, as the runner builds them.
"""

from __future__ import annotations

import inspect
import re
from functools import lru_cache
from numbers import Integral, Real

import numpy as np
import pytest
from sklearn.utils._param_validation import (
    Interval, InvalidParameterError, generate_invalid_param_val, make_constraint,
)
from test_capabilities import _problem

import ccexp
from ccexp.algorithms.base import RANDOM_STATE, validate_params
from ccexp.registry import ALGORITHMS
from ccexp.runner.config import compose_config, experiment_cases

NAMES = ALGORITHMS.names()


def _constraints(name) -> dict:
    return getattr(ALGORITHMS.get(name), "_parameter_constraints", None)


@pytest.mark.parametrize("name", NAMES)
def test_every_algorithm_declares_a_constraint_for_exactly_its_parameters(name):
    cls = ALGORITHMS.get(name)
    constraints = _constraints(name)
    assert isinstance(constraints, dict), f"{name} ({cls.__name__}) declares no _parameter_constraints"
    params = [p for p in inspect.signature(cls).parameters]
    assert set(constraints) == set(params), (
        f"{name}: constraints without a parameter {sorted(set(constraints) - set(params))}, "
        f"parameters without a constraint {sorted(set(params) - set(constraints))}")
    # random_state is ours (ccexp._validation.check_random_state: Generators and SeedSequences too)
    assert constraints.get("random_state", RANDOM_STATE) == RANDOM_STATE


@pytest.mark.parametrize("name", NAMES)
def test_the_constraints_follow_scikit_learns_rules_and_the_defaults_satisfy_them(name):
    for param, constraints in _constraints(name).items():
        if constraints == "no_validation":
            continue
        made = [make_constraint(c) for c in constraints]  # an unknown kind of constraint raises here
        # scikit-learn's rule (check_param_validation): an int interval beside a real one needs RealNotInt
        types = {c.type for c in made if isinstance(c, Interval)}
        assert not (Integral in types and Real in types), f"{name}.{param}: Integral and Real intervals mixed"
    validate_params(ALGORITHMS.get(name)())  # the registry's defaults


class _BadType:
    """A value of no type any constraint accepts (scikit-learn's check uses the same)."""

    def __repr__(self):
        return "BadType()"


def _invalid_values(constraints) -> list:
    """A value of no accepted type, then every value derived from one constraint that no constraint accepts."""
    made = [make_constraint(c) for c in constraints]
    out = [_BadType()]
    for c in made:
        try:
            bad = generate_invalid_param_val(c)
        except NotImplementedError:  # "boolean", a type, None: only a wrong type is invalid
            continue
        if not any(other.is_satisfied_by(bad) for other in made):
            out.append(bad)
    return out


def _cases():
    for name in NAMES:
        for param, constraints in (_constraints(name) or {}).items():
            if constraints != "no_validation":
                for i, value in enumerate(_invalid_values(constraints)):
                    yield pytest.param(name, param, value, id=f"{name}-{param}-{i}")


@lru_cache(maxsize=None)
def _tiny_problem(name):
    cls = ALGORITHMS.get(name)
    return _problem(cls.reads[0], features=cls.needs_features)


@pytest.mark.parametrize("name, param, value", list(_cases()))
def test_an_invalid_value_is_refused_at_fit_time_naming_the_parameter(name, param, value):
    est = ccexp.make_algorithm(name, random_state=0)
    est.set_params(**{param: value})  # no check at construction (scikit-learn's convention) ...
    pattern = rf"The '{param}' parameter of {type(est).__name__} must be .* Got {re.escape(repr(value))} instead\."
    with pytest.raises(InvalidParameterError, match=pattern) as err:  # ... but at fit time
        est.fit_problem(_tiny_problem(name))
    assert isinstance(err.value, ValueError)


def test_every_constrained_parameter_has_a_value_derived_from_its_constraint_where_one_exists():
    # the parametrisation above is not empty by accident: the numeric and string parameters get more
    # than the wrong type (e.g. Ls-AD-VC's max_passes 0 and tie_break 'not first or ...')
    derived = {(c.values[0], c.values[1]) for c in _cases() if not isinstance(c.values[2], _BadType)}
    for name, param in [("ls_ad_vc", "max_passes"), ("ls_ad_vc", "tie_break"), ("balls", "alpha"),
                        ("sampling", "algorithm"), ("local_search", "init"), ("ncobras", "confidence"),
                        ("qecc", "batch_size"), ("tste_dpmm", "dp_concentration"), ("triplet_approx_lp", "c")]:
        assert (name, param) in derived, (name, param)


def test_an_aggregation_algorithm_names_another_one_as_the_registry_has_them():
    # the options are read at fit time: every registered aggregation algorithm, never itself
    from ccexp.algorithms.aggregation import LocalSearch, Sampling

    init = Sampling._parameter_constraints["algorithm"][0]
    assert "sampling" not in init.options and {"furthest", "agglomerative", "local_search"} <= set(init.options)
    assert "rock" not in init.options  # a categorical baseline, not an aggregator of the family
    init = LocalSearch._parameter_constraints["init"][0]
    assert init.options[:3] == ("singletons", "random", "one") and "local_search" not in init.options
    C = np.array([[0, 0, 1, 1], [0, 1, 1, 1]])
    with pytest.raises(ValueError, match="The 'algorithm' parameter of Sampling must be a str among"):
        Sampling(algorithm="rock").fit(C)
    # the wrapped algorithm's parameters are checked as its own fit checks them
    with pytest.raises(ValueError, match="The 'alpha' parameter of Balls"):
        Sampling(algorithm="balls", algorithm_params={"alpha": 0.9}, sample_size=2).fit(C)
    with pytest.raises(ValueError, match="The 'alpha' parameter of Balls"):
        LocalSearch(init="balls", init_params={"alpha": 0.9}).fit(C)
    assert LocalSearch(init="balls", init_params={"alpha": 0.25}).fit(C).labels_.shape == (4,)


def test_a_relation_between_two_valid_values_is_still_checked_by_hand():
    from ccexp.algorithms.triplets.crowdclust import CrowdClustDPMM

    with pytest.raises(ValueError, match="item_prior='mixture' needs inference='vb'"):
        CrowdClustDPMM(inference="map", item_prior="mixture").fit(np.array([[0, 1, 2]]))


# ------------------------------------------------------------------ the configs' values


def _experiment_runs():
    from importlib import resources

    conf = resources.files("ccexp.conf").joinpath("experiment")
    for name in sorted(p.name[:-5] for p in conf.iterdir() if p.name.endswith(".yaml")):
        yield pytest.param(name, id=name)


@pytest.mark.parametrize("name", NAMES)
def test_every_algorithm_config_satisfies_the_constraints(name):
    cfg = compose_config([f"algorithm={name}"])
    params = {k: v for k, v in dict(cfg.algorithm).items() if k not in ("name", "_target_")}
    from omegaconf import OmegaConf

    params = OmegaConf.to_container(OmegaConf.create(params), resolve=True)
    validate_params(ccexp.make_algorithm(name, **params))


@pytest.mark.slow  # expands every grid again (about 2 min in all; tests/test_config.py expands them in the default tier)
@pytest.mark.parametrize("name", list(_experiment_runs()))
def test_every_experiments_algorithm_parameters_satisfy_the_constraints(name):
    """algorithm_params and swept algorithm.* keys, at every scale and variant, as the runner builds them."""
    cfg = compose_config([f"experiment={name}"])
    seen = set()
    for variant in [None, *(cfg.experiment.get("variants") or {})]:
        for scale in cfg.experiment.presets:
            _, cases = experiment_cases(name, scale, [f"experiment.variant={variant}"] if variant else [])
            for case in cases:
                key = (case.algorithm, repr(sorted(case.params.items())))
                if key in seen:
                    continue
                seen.add(key)
                est = ccexp.make_algorithm(case.algorithm, **case.params)
                validate_params(est)
                inner = {"sampling": ("algorithm", "algorithm_params"), "local_search": ("init", "init_params")}
                if case.algorithm in inner:  # the wrapped aggregation algorithm's parameters too
                    which, its = (getattr(est, k) for k in inner[case.algorithm])
                    if which in ALGORITHMS and which != case.algorithm:
                        validate_params(ALGORITHMS.get(which)(**dict(its or {})))
    assert seen
