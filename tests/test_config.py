"""Every config file composes; configs and factory signatures agree; every override takes effect or is refused.

Composition is in-process (fast); tests/test_cli.py runs the command line itself.
"""

import inspect
from importlib import resources

import pytest

import ccexp
from ccexp.runner.config import (
    ConfigError,
    check_params,
    compose_config,
    experiment_cases,
    factory_parameters,
    group_config,
    list_options,
    resolve_run,
    with_algorithm_choice,
)
from ccexp.runner.layout import experiment_dir, scale_label

CONF = resources.files("ccexp.conf")


def _options(group):
    return sorted(p.name[:-5] for p in CONF.joinpath(group).iterdir() if p.name.endswith(".yaml"))


def _spec(*overrides):
    ov = with_algorithm_choice(list(overrides))
    return resolve_run(compose_config(ov), ov)


def _refusal(*overrides) -> str:
    with pytest.raises(ConfigError) as err:
        _spec(*overrides)
    message = str(err.value)
    assert "\n" not in message  # one line
    return message


@pytest.mark.parametrize("group", ["dataset", "oracle", "algorithm", "runner", "tracking"])
def test_every_group_option_composes(group):
    """Choosing ``group=option`` gives exactly that option's file (no key lost, added or changed)."""
    from omegaconf import OmegaConf

    for option in _options(group):
        cfg = compose_config([f"{group}={option}"])
        own = OmegaConf.to_container(OmegaConf.load(str(CONF.joinpath(group, f"{option}.yaml"))), resolve=False)
        assert own, (group, option)
        assert OmegaConf.to_container(cfg[group], resolve=False) == own, (group, option)


@pytest.mark.parametrize("name", _options("experiment"))
def test_every_experiment_composes_and_expands_at_every_scale(name):
    cfg = compose_config([f"experiment={name}"])
    assert cfg.experiment.name == name
    first = CONF.joinpath("experiment", f"{name}.yaml").read_text().splitlines()[0]
    assert first.strip() == "# @package _global_"
    for scale in cfg.experiment.presets:
        experiment, cases = experiment_cases(name, scale)
        assert cases and experiment["scale"] == scale
        assert {c.algorithm for c in cases} == set(experiment["algorithms"])


def test_experiment_is_a_plain_choice_and_the_plus_spelling_still_works():
    plain = experiment_cases("exp1_triplets", "ci")[1]
    plus = _spec("+experiment=exp1_triplets", "experiment.scale=ci").cases()
    assert [c.case_id for c in plain] == [c.case_id for c in plus]
    assert compose_config([]).get("experiment") is None


def test_algorithm_configs_match_the_registry():
    assert _options("algorithm") == ccexp.list_algorithms()
    for name in _options("algorithm"):
        cfg = compose_config([f"algorithm={name}"])
        assert cfg.algorithm.name == name
        ccexp.make_algorithm(name, **{k: v for k, v in cfg.algorithm.items() if k not in ("name", "_target_")})


def test_dataset_and_oracle_configs_match_the_registries():
    assert set(_options("dataset")) <= set(ccexp.list_datasets())
    assert set(_options("oracle")) == set(ccexp.list_oracles())
    for name in _options("dataset"):
        assert compose_config([f"dataset={name}"]).dataset.name == name


def _plain(v):
    return list(v) if isinstance(v, tuple) else v


#: yaml values equal to the signature's default in value but not in type: written as they are, because a
#: case's id hashes the composed value (600 and 600.0 are different JSON), and rewriting them as
#: ``${default:}`` would change the ids of every committed cc_exact and triplet_approx_lp case
_LITERAL_BY_TYPE = {("algorithm", "cc_exact", "time_limit"), ("algorithm", "triplet_approx_lp", "lp_time_limit")}


@pytest.mark.parametrize("group", ["algorithm", "dataset", "oracle"])
def test_every_config_reads_its_defaults_from_the_signature(group):
    """A default is declared once, in the factory's signature (issue 30).

    A yaml key is a parameter of the factory; its value is ``${default:}`` (the signature's, read when the
    config is resolved) or a value the yaml sets on purpose, never a copy of the default.
    """
    from omegaconf import OmegaConf

    from ccexp.runner.compose import config_text

    registry = {"algorithm": ccexp.list_algorithms, "dataset": ccexp.list_datasets, "oracle": ccexp.list_oracles}[group]()
    checked = from_signature = 0
    for name in _options(group):
        assert name in registry
        raw = OmegaConf.to_container(OmegaConf.create(config_text(group, name)), resolve=False)
        conf = group_config(group, name)
        assert conf["name"] == name
        signature = factory_parameters(group, name)
        if signature is None:  # a loader taking **params (checked by its own spec)
            continue
        for key, written in raw.items():
            if key in ("name", "_target_"):
                continue
            assert key in signature, f"conf/{group}/{name}.yaml: {key!r} is not a parameter of the {group}"
            default = _plain(signature[key])
            if written == "${default:}":
                assert default is not inspect.Parameter.empty
                assert conf[key] == default and type(conf[key]) is type(default), f"{group} {name}: {key}"
                from_signature += 1
            elif (group, name, key) not in _LITERAL_BY_TYPE:
                assert written != default or type(written) is not type(default), (
                    f"conf/{group}/{name}.yaml: {key}: {written!r} restates the signature's default; write ${{default:}}")
        required = [k for k, d in signature.items() if d is inspect.Parameter.empty and k not in conf]
        assert not required, f"{group} {name}: required parameters {required} are not in its config"
        checked += 1
    assert checked >= len(_options(group)) // 2
    assert from_signature > 0


def test_a_default_without_a_target_or_a_parameter_is_refused_naming_the_key():
    from omegaconf import OmegaConf
    from omegaconf.errors import InterpolationResolutionError

    import ccexp.runner.compose  # noqa: F401  (registers the resolver)

    with pytest.raises(InterpolationResolutionError, match=r"max_passes: \$\{default:\} needs a _target_"):
        OmegaConf.to_container(OmegaConf.create({"a": {"max_passes": "${default:}"}}), resolve=True)
    target = "ccexp.algorithms.triplets.local_search.LsADVC"
    with pytest.raises(InterpolationResolutionError, match=rf"no_such: \$\{{default:\}} but {target} has no default"):
        OmegaConf.to_container(OmegaConf.create({"a": {"_target_": target, "no_such": "${default:}"}}), resolve=True)
    got = OmegaConf.to_container(OmegaConf.create({"a": {"_target_": target, "tie_break": "${default:}"}}), resolve=True)
    assert got["a"]["tie_break"] == inspect.signature(ccexp.algorithms.triplets.local_search.LsADVC).parameters["tie_break"].default


def test_an_override_replaces_a_default_read_from_the_signature():
    cfg = compose_config(["algorithm=ls_ad_vc", "algorithm.max_passes=7"])
    assert cfg.algorithm.max_passes == 7
    assert compose_config(["algorithm=ls_ad_vc"]).algorithm.max_passes == 1000


def test_the_listing_of_one_name_gives_its_parameters_and_where_each_value_comes_from(capsys):
    from ccexp.list import main

    assert main(["algorithms", "ls_ad_vc"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("ls_ad_vc: ") and "Ukkonen 2017" in lines[0]
    assert lines[1].split() == ["parameter", "value", "from", "about"]
    rows = {line.split()[0]: line.split(maxsplit=3)[1:] for line in lines[2:]}
    assert sorted(rows) == sorted(k for k in group_config("algorithm", "ls_ad_vc") if k != "name")
    assert rows["max_passes"][:2] == ["1000", "signature"]
    assert rows["tie_break"][0] == "first" and rows["tie_break"][2].startswith("first (line 8 as written)")
    assert main(["algorithms", "cc_exact"]) == 0
    rows = {line.split()[0]: line.split()[1:3] for line in capsys.readouterr().out.splitlines()[2:]}
    assert rows["time_limit"] == ["600", "yaml"]
    assert main(["datasets", "no_such_set"]) == 2
    assert "unknown dataset 'no_such_set'; valid datasets are: " in capsys.readouterr().err


@pytest.mark.parametrize("group", ["algorithm", "dataset", "oracle"])
def test_unknown_keys_are_refused_for_every_registered_name(group):
    for name in _options(group):
        if factory_parameters(group, name) is None:
            continue
        with pytest.raises(ConfigError, match=rf"unknown parameter 'no_such_param' of {group} '{name}'; valid parameters are: "):
            check_params(group, name, {"no_such_param": 1})


# --- overrides: take effect or are refused (findings "Overrides silently ignored", issue 12)


def test_a_swept_oracle_key_is_refused_with_what_to_write():
    assert _refusal("experiment=exp1_triplets", "oracle.noise=0.1") == (
        "oracle.noise is swept by exp1_triplets over [0.0, 0.1, 0.2]; to fix it write experiment.sweep.oracle.noise=[0.1]")
    assert "experiment.sweep.dataset.k=[4]" in _refusal("experiment=exp1_triplets", "experiment.scale=ci", "dataset.k=4")


def test_the_written_sweep_takes_effect_in_the_cases():
    spec = _spec("experiment=exp1_triplets", "experiment.scale=ci", "experiment.sweep.oracle.noise=[0.1]")
    assert {c.instance.oracle["noise"] for c in spec.cases()} == {0.1}
    assert spec.custom and spec.label.startswith("ci+custom-")


def test_an_unswept_dataset_key_takes_effect():
    spec = _spec("experiment=exp1_triplets", "experiment.scale=ci", "dataset.n=60")
    assert {c.instance.dataset["n"] for c in spec.cases()} == {60}


def test_a_key_of_a_swept_dataset_name_is_refused():
    msg = _refusal("experiment=coprf_perfect", "dataset.scale=standard")
    assert "write experiment.sweep.dataset.scale=[standard]" in msg
    assert "experiment.sweep.dataset.name=[wine]" in _refusal("experiment=coprf_perfect", "dataset=wine")


def test_algorithm_param_sets_the_single_algorithm():
    spec = _spec("experiment=exp1_triplets", "experiment.scale=ci", "experiment.algorithms=[ls_eq]", "algorithm.tie_break=stay")
    assert {c.params["tie_break"] for c in spec.cases()} == {"stay"}
    assert {c.algorithm for c in spec.cases()} == {"ls_eq"}
    # a parameter ls_ad_vc (the root default) does not have: composed on acc_maxexp's config
    spec = _spec("experiment=acc_parameters", "experiment.scale=ci", "experiment.algorithms=[acc_maxexp]", "algorithm.lam=0.2")
    assert {c.params["lam"] for c in spec.cases()} == {0.2}


def test_algorithm_param_with_several_algorithms_is_refused_or_names_one():
    msg = _refusal("experiment=exp1_triplets", "algorithm.tie_break=stay")
    assert "experiment.algorithm_params.<name>.tie_break" in msg and "runs 7 algorithms" in msg
    spec = _spec("experiment=exp1_triplets", "experiment.scale=ci", "algorithm=ls_eq", "algorithm.tie_break=stay")
    by_alg = {c.algorithm: c.params.get("tie_break") for c in spec.cases()}
    assert by_alg["ls_eq"] == "stay" and by_alg["ls_ad_vc"] == "first"


def test_unknown_algorithm_key_is_refused():
    msg = _refusal("experiment=exp1_triplets", "experiment.algorithms=[ls_eq]", "+algorithm.no_such_param=3")
    assert "unknown parameter 'no_such_param' of algorithm 'ls_eq'" in msg
    assert "item_order, max_passes, redundant_order, tie_break" in msg
    msg = _refusal("experiment=exp1_triplets", "+experiment.algorithm_params.ls_eq.no_such_param=3")
    assert "'no_such_param'" in msg


def test_a_swept_algorithm_key_is_refused():
    msg = _refusal("experiment=acc_parameters", "algorithm=acc_maxexp", "algorithm.epsilon=0.1")
    assert msg.startswith("algorithm.epsilon is swept by acc_parameters over [0.0, 0.2, 0.4]")


def test_deletions_are_honoured_not_turned_into_none():
    # ~experiment.trials: the default of one trial (main at 52ceb95 made it None and crashed)
    spec = _spec("experiment=exp1_triplets", "experiment.scale=ci", "~experiment.trials")
    assert {c.instance.trial for c in spec.cases()} == {0}
    # ~algorithm.<param>: the estimator's own default, recorded like any value
    spec = _spec("experiment=exp1_triplets", "experiment.scale=ci", "experiment.algorithms=[ls_eq]", "~algorithm.max_passes")
    default = factory_parameters("algorithm", "ls_eq")["max_passes"]
    assert {c.params["max_passes"] for c in spec.cases()} == {default}


@pytest.mark.parametrize("override, expected", [
    ("report=flase", "report must be true or false, got 'flase'"),
    ("experiment.trials=0", "experiment.trials must be >= 1, got 0"),
    ("experiment.trials=-2", "experiment.trials must be >= 1, got -2"),
    ("experiment.trials=two", "experiment.trials must be an integer"),
    ("experiment.algorithms=[]", "experiment.algorithms must be a non-empty list"),
    ("experiment.scale=huge", "unknown scale 'huge' for experiment 'exp1_triplets'; valid scales: ci, paper, quick"),
    ("runner.n_jobs=0", "runner.n_jobs must be a non-zero integer"),
    ("runner.progress=maybe", "runner.progress must be true or false"),
    ("tracking.mode=offf", "tracking.mode must be local, server or off"),
])
def test_run_options_are_typed(override, expected):
    assert expected in _refusal("experiment=exp1_triplets", override)


def test_no_experiment_says_how_to_choose_one():
    msg = _refusal()
    assert "python -m ccexp experiment=NAME" in msg and "exp1_triplets" in msg


# --- results keyed by scale (LAYOUT.md)


def test_preset_runs_keep_their_scale_label_and_changed_grids_do_not():
    assert _spec("experiment=exp1_triplets", "experiment.scale=ci").label == "ci"
    assert _spec("experiment=exp1_triplets").label == "paper"
    # an override that leaves the grid as it is keeps the preset's folder
    assert _spec("experiment=exp1_triplets", "experiment.scale=ci", "experiment.trials=2").label == "ci"
    changed = [_spec("experiment=exp1_triplets", *ov).label for ov in (
        ["experiment.trials=3"], ["experiment.algorithms=[ls_ad_vc]"], ["dataset.n=100"],
        ["experiment.sweep.oracle.noise=[0.1]"], ["+experiment.algorithm_params.ls_eq.max_passes=5"])]
    assert all(label.startswith("paper+custom-") for label in changed)
    assert len(set(changed)) == len(changed)  # different grids, different folders
    assert experiment_dir("r", "exp1_triplets", changed[0]).parent.as_posix() == "r/exp1_triplets"


def test_scale_label_refuses_paths():
    assert scale_label("ci") == "ci"
    with pytest.raises(ValueError, match=r"scale must be a plain folder name, got '\.\./paper'"):
        scale_label("../paper")


def test_paths_results_is_a_plain_key_and_defaults_are_sane():
    cfg = compose_config(["paths.results=/somewhere"])
    assert cfg.paths.results == "/somewhere"
    cfg = compose_config([])
    assert cfg.runner.n_jobs == -1 and cfg.tracking.mode == "local" and cfg.report is True
    assert compose_config(["tracking=off"]).tracking.mode == "off"


def test_list_options_is_the_conf_folder():
    assert list_options("experiment") == _options("experiment")


def test_runner_dask_without_the_dask_extra_is_refused_in_one_line(monkeypatch):
    """Issue 32: it ended in an ImportError's traceback from inside the sweep."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    message = _refusal("experiment=exp1_triplets", "experiment.scale=ci", "runner=dask")
    assert "runner=dask needs dask.distributed" in message and "pip install 'ccexp[dask]'" in message
    monkeypatch.setattr(importlib.util, "find_spec", real)
    if real("distributed") is not None:  # with the extra the same overrides resolve
        _spec("experiment=exp1_triplets", "experiment.scale=ci", "runner=dask")
