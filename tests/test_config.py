"""Every config file composes; registry names and config files agree."""

from importlib import resources

import pytest

import ccexp
from ccexp.runner.config import compose_config, experiment_cases

CONF = resources.files("ccexp.conf")


def _options(group):
    return sorted(p.name[:-5] for p in CONF.joinpath(group).iterdir() if p.name.endswith(".yaml"))


@pytest.mark.parametrize("group", ["dataset", "oracle", "algorithm", "runner", "tracking"])
def test_every_group_option_composes(group):
    for option in _options(group):
        cfg = compose_config([f"{group}={option}"])
        assert cfg[group] is not None


@pytest.mark.parametrize("name", _options("experiment"))
def test_every_experiment_composes_and_expands_at_every_scale(name):
    cfg = compose_config([f"+experiment={name}"])
    assert cfg.experiment.name == name
    first = CONF.joinpath("experiment", f"{name}.yaml").read_text().splitlines()[0]
    assert first.strip() == "# @package _global_"
    for scale in cfg.experiment.presets:
        experiment, cases = experiment_cases(name, scale)
        assert cases and experiment["scale"] == scale
        assert {c.algorithm for c in cases} == set(experiment["algorithms"])


def test_algorithm_configs_match_the_registry():
    assert _options("algorithm") == ccexp.list_algorithms()
    for name in _options("algorithm"):
        cfg = compose_config([f"algorithm={name}"])
        assert cfg.algorithm.name == name
        ccexp.make_algorithm(name, **cfg.algorithm.params)  # every yaml parameter is a real one


def test_dataset_and_oracle_configs_match_the_registries():
    assert set(_options("dataset")) <= set(ccexp.list_datasets())
    assert set(_options("oracle")) == set(ccexp.list_oracles())
    for name in _options("dataset"):
        assert compose_config([f"dataset={name}"]).dataset.name == name


def test_paths_results_is_a_plain_key_and_defaults_are_sane():
    cfg = compose_config(["paths.results=/somewhere"])
    assert cfg.paths.results == "/somewhere"
    cfg = compose_config([])
    assert cfg.runner.n_jobs == -1 and cfg.tracking.mode == "local" and cfg.report is True
    assert compose_config(["tracking=off"]).tracking.mode == "off"
