"""A run composes its configuration once (issue 30, item 1: "Compose once").

Each experiment's defaults list names, under ``_groups``, every algorithm it
runs and every dataset and oracle it sweeps, at every scale and variant; the
runner takes them from the root composition (:func:`take_group_configs`)
instead of composing them again.  Counted here on Hydra's ``compose``, with
the process's cache of group configs emptied first, so each count is what a
fresh ``python -m ccexp`` process does.
"""

import collections
import subprocess
import sys

import pytest
from omegaconf import OmegaConf

import ccexp.runner.compose as compose_module
from ccexp.runner.compose import GROUPS_KEY, ConfigError, compose_config, list_options
from ccexp.runner.config import resolve_run, with_algorithm_choice


@pytest.fixture
def counted(monkeypatch):
    """Hydra compositions and group configs read, in a process with no group config composed yet."""
    monkeypatch.setattr(compose_module, "_COMPOSED", {})
    counts = collections.Counter()
    read = set()
    real_compose, real_cached = compose_module.compose, compose_module._group_config_cached

    def compose(*args, **kwargs):
        counts["compose"] += 1
        return real_compose(*args, **kwargs)

    def cached(group, name):
        read.add((group, name))
        return real_cached(group, name)

    monkeypatch.setattr(compose_module, "compose", compose)
    monkeypatch.setattr(compose_module, "_group_config_cached", cached)
    return counts, read


def _resolve(overrides):
    ov = with_algorithm_choice(overrides)
    return resolve_run(compose_config(ov), ov)


def _setups(name):
    experiment = compose_config([f"experiment={name}"]).experiment
    variants = [None, *(experiment.get("variants") or {})]
    return [(scale, variant) for variant in variants for scale in experiment.presets]


@pytest.mark.parametrize("name", list_options("experiment"))
def test_every_scale_and_variant_of_an_experiment_composes_once(name, counted):
    counts, read = counted
    declared = {(g, n) for g, names in compose_config([f"experiment={name}"])[GROUPS_KEY].items() for n in names}
    used = set()
    for scale, variant in _setups(name):
        compose_module._COMPOSED.clear()
        read.clear()
        counts.clear()
        ov = [f"experiment={name}", f"experiment.scale={scale}"] + ([f"experiment.variant={variant}"] if variant else [])
        spec = _resolve(ov)
        assert spec.expanded, (scale, variant)
        missing = sorted(read - declared)
        assert not missing, f"conf/experiment/{name}.yaml at {scale} (variant {variant}) builds configs its " \
                            f"defaults do not name: add " + ", ".join(f"'- /{g}@_groups.{g}.{n}: {n}'" for g, n in missing)
        assert counts["compose"] == 1, f"{name} at {scale} (variant {variant}) composed {counts['compose']} times"
        used |= read
    # what the defaults list names is what the experiment builds: none missing (counted above), none stale
    assert declared == used, f"conf/experiment/{name}.yaml: _groups names {sorted(declared - used)} that no " \
                             f"scale or variant builds"


def test_the_groups_hold_each_config_as_choosing_it_alone_composes_it():
    cfg = compose_config(["experiment=exp1_triplets"])
    for group, names in cfg[GROUPS_KEY].items():
        for name in names:
            alone = compose_config([f"{group}={name}"])[group]
            assert OmegaConf.to_container(cfg[GROUPS_KEY][group][name], resolve=True) == \
                OmegaConf.to_container(alone, resolve=True), (group, name)


def test_a_grid_override_composes_the_preset_once_more_to_name_its_folder(counted):
    counts, _ = counted
    spec = _resolve(["experiment=recon_runtime", "experiment.scale=ci", "experiment.trials=2"])
    assert spec.custom and counts["compose"] == 2
    compose_module._COMPOSED.clear()
    # the same value as the preset's: the records belong in the preset's folder
    trials = compose_config(["experiment=recon_runtime"]).experiment.presets.ci.get("trials", 1)
    counts.clear()
    spec = _resolve(["experiment=recon_runtime", "experiment.scale=ci", f"experiment.trials={trials}"])
    assert not spec.custom and counts["compose"] == 2


def test_an_algorithm_the_user_adds_is_composed_then(counted):
    counts, read = counted
    spec = _resolve(["experiment=agg_outliers", "experiment.scale=ci",
                     "experiment.algorithms=[agglomerative,best_clustering]"])
    assert set(spec.algorithms) == {"agglomerative", "best_clustering"}
    assert ("algorithm", "best_clustering") in read
    # the root, the preset (a changed grid: to name its folder), and best_clustering, which agg_outliers does not
    # declare
    assert spec.custom and counts["compose"] == 3
    alone = compose_config(["algorithm=best_clustering"]).algorithm
    expected = {k: v for k, v in OmegaConf.to_container(alone, resolve=True).items() if k not in ("name", "_target_")}
    assert spec.algorithms["best_clustering"] == expected


@pytest.mark.parametrize("override", ["_groups.algorithm.recon.split=height", "+_groups.algorithm.recon.foo=1",
                                      "~_groups.algorithm.recon.split"])
def test_an_override_of_the_groups_is_refused_in_one_line(override):
    ov = ["experiment=recon_runtime", override]
    with pytest.raises(ConfigError) as err:
        resolve_run(compose_config(ov), ov)
    assert str(err.value).startswith(f"{override}: _groups holds the configs the experiment builds")
    assert "\n" not in str(err.value)


def test_the_command_line_refuses_an_override_of_the_groups():
    run = subprocess.run([sys.executable, "-m", "ccexp", "experiment=recon_runtime", "experiment.scale=ci",
                          "_groups.algorithm.recon.split=height"], capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0, run.stderr
    assert "_groups" in run.stderr


def test_an_experiment_variable_is_allowed_where_an_interpolation_reads_it():
    # the acc experiments' preset: read by ${experiment.preset} in their oracle and algorithm parameters
    spec = _resolve(["experiment=acc_parameters", "experiment.scale=ci", "experiment.preset=authors"])
    assert spec.oracle["preset"] == "authors"
    # exp1 has no interpolation of experiment.preset: nothing would read it
    with pytest.raises(ConfigError, match="no part of ccexp reads experiment.preset"):
        _resolve(["experiment=exp1_triplets", "experiment.scale=ci", "+experiment.preset=authors"])
    # a variable the command line adds and interpolates itself is read
    spec = _resolve(["experiment=exp1_triplets", "experiment.scale=ci", "+experiment.size=40",
                     "dataset.n=${experiment.size}"])
    assert spec.dataset["n"] == 40


@pytest.mark.parametrize("name", list_options("experiment"))
def test_an_experiment_of_one_algorithm_composes_that_algorithm_as_the_root_s(name):
    # so that `python -m ccexp experiment=NAME --cfg job` shows the algorithm that runs, not the root default
    cfg = compose_config([f"experiment={name}"])
    if len(cfg.experiment.algorithms) == 1:
        assert cfg.algorithm.name == cfg.experiment.algorithms[0]


def test_a_parameter_of_the_one_algorithm_reaches_it(counted):
    spec = _resolve(["experiment=recon_runtime", "experiment.scale=ci", "algorithm.split=height"])
    assert spec.algorithms["recon"]["split"] == "height" and spec.custom
