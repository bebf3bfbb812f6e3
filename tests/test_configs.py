"""Every algorithm, dataset and oracle config composes and instantiates to its declared object (issue 30, item 1).

lightning-hydra-template's ``tests/test_configs.py``: each ``conf/<group>/<name>.yaml``
is composed by Hydra, its ``_target_`` is located, and the object is built
from the composed config the way the runner builds it
(:func:`ccexp.runner.objects.build`, ``hydra.utils.instantiate``).  A real
dataset whose file is not under ``CCEXP_DATA_DIR`` is skipped, naming it.
"""

import functools
from importlib import resources

import numpy as np
import pytest
from hydra.utils import get_object
from omegaconf import OmegaConf

import ccexp
from ccexp.capabilities import dataset_fit_error
from ccexp.data import Dataset, MissingDataError
from ccexp.problem import Problem
from ccexp.registry import ALGORITHMS, DATASETS, ORACLES
from ccexp.runner.compose import ConfigError, compose_config
from ccexp.runner.objects import build, split_target

CONF = resources.files("ccexp.conf")


def _options(group):
    return sorted(p.name[:-5] for p in CONF.joinpath(group).iterdir() if p.name.endswith(".yaml"))


@functools.lru_cache(maxsize=None)
def _composed_yaml(group: str, name: str) -> str:
    return OmegaConf.to_yaml(compose_config([f"{group}={name}"])[group], resolve=True)


def _composed(group: str, name: str) -> dict:
    """``conf/<group>/<name>.yaml`` as Hydra composes it with ``<group>=<name>`` (``_target_`` included)."""
    return OmegaConf.to_container(OmegaConf.create(_composed_yaml(group, name)))


@pytest.mark.parametrize("group", ["algorithm", "dataset", "oracle"])
def test_every_config_names_its_registered_object(group):
    registry = {"algorithm": ALGORITHMS, "dataset": DATASETS, "oracle": ORACLES}[group]
    for name in _options(group):
        conf = _composed(group, name)
        assert isinstance(conf.get("_target_"), str), f"conf/{group}/{name}.yaml has no _target_"
        assert get_object(conf["_target_"]) is registry.get(name), f"conf/{group}/{name}.yaml: {conf['_target_']}"


@pytest.mark.parametrize("name", _options("algorithm"))
def test_every_algorithm_config_instantiates(name):
    target, conf = split_target("algorithm", _composed("algorithm", name))
    est = build(target, conf, random_state=0)
    assert type(est) is ALGORITHMS.get(name)
    params = est.get_params()
    assert {k: params[k] for k in conf if k != "name"} == {k: v for k, v in conf.items() if k != "name"}


def _dataset(name: str) -> Dataset:
    target, conf = split_target("dataset", _composed("dataset", name))
    try:
        return build(target, conf, random_state=np.random.default_rng(0))
    except MissingDataError as err:
        pytest.skip(str(err).splitlines()[0])


@pytest.mark.parametrize("name", _options("dataset"))
def test_every_dataset_config_instantiates(name):
    dataset = _dataset(name)
    assert isinstance(dataset, Dataset) and dataset.n_items > 0


#: small datasets to build each oracle's problem on (name, parameters): synthetic first, then real ones
#: (skipped when absent)
_ORACLE_DATASETS = (("synthetic_blobs", {"n": 24, "k": 3, "d": 2}), ("synthetic_labels", {"n": 24, "k": 3}),
                    ("house_votes", None), ("food100", None), ("nature", None))
#: what every experiment of an oracle sets because its yaml leaves the choice open: the relative oracles
#: take n_constraints or fraction, neither by default (conf/experiment/recon_*.yaml set fraction)
_EXPERIMENT_SETS = {"relative_random": {"fraction": 1.0}, "relative_informative": {"fraction": 1.0}}


@pytest.mark.parametrize("name", _options("oracle"))
def test_every_oracle_config_instantiates(name):
    target, conf = split_target("oracle", _composed("oracle", name))
    conf.update(_EXPERIMENT_SETS.get(name, {}))
    for ds_name, small in _ORACLE_DATASETS:
        if small is None:
            dataset = _dataset(ds_name)
        else:
            ds_target, _ = split_target("dataset", _composed("dataset", ds_name))
            dataset = build(ds_target, small, random_state=np.random.default_rng(0))
        if dataset_fit_error(dataset, name) is None:
            break
    else:
        pytest.fail(f"no dataset of {[d for d, _ in _ORACLE_DATASETS]} feeds oracle {name!r}")
    problem = build(target, conf, dataset, random_state=np.random.default_rng(0))
    assert isinstance(problem, Problem)
    assert problem.n_items == dataset.n_items


def test_a_target_that_is_not_the_registered_object_is_refused_in_one_line():
    conf = _composed("algorithm", "ls_ad_vc")
    with pytest.raises(ConfigError, match=r"^algorithm 'ls_ad_vc': _target_ 'ccexp.algorithms.triplets.local_search.LsAD' "
                                          r"is not the algorithm registered as 'ls_ad_vc'"):
        split_target("algorithm", dict(conf, _target_="ccexp.algorithms.triplets.local_search.LsAD"))
    with pytest.raises(ConfigError, match="cannot be imported"):
        split_target("algorithm", dict(conf, _target_="ccexp.no_such_module.LsADVC"))


def test_a_config_without_target_builds_the_registered_object():
    """A plugin's yaml from before ``_target_`` (docs/extending.md) keeps working."""
    conf = {k: v for k, v in _composed("algorithm", "ls_eq").items() if k != "_target_"}
    target, conf = split_target("algorithm", conf)
    assert get_object(target) is ALGORITHMS.get("ls_eq")
    assert type(build(target, conf, random_state=0)) is ccexp.algorithms.triplets.local_search.LsEQ
