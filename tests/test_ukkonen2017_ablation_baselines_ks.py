"""The ``--ks`` filter of experiments/ukkonen2017/ablation_baselines.py (issue 34: only the cells still to explain)."""


import pytest
from conftest import load_script


def _driver():
    return load_script("experiments/ukkonen2017/ablation_baselines.py", "ukkonen_ablation_baselines")


def test_ks_keeps_only_those_k_and_every_trial_of_them():
    mod = _driver()
    every = mod.instances("crowdclust", [1.0], 10, [0.2])
    some = mod.instances("crowdclust", [1.0], 10, [0.2], ks=[8, 16])
    # 4 k x 10 trials at a = 1, b = 0.2; 2 of those k kept, all their trials, same cases
    assert len(every) == 40 and len(some) == 20
    assert {c.instance.setting["dataset.k"] for c in some} == {8, 16}
    assert {c.instance.instance_id for c in some} <= {c.instance.instance_id for c in every}
    assert sorted(c.instance.trial for c in some if c.instance.setting["dataset.k"] == 8) == list(range(10))


def test_a_k_outside_table_one_is_refused(capsys):
    mod = _driver()
    with pytest.raises(SystemExit) as err:
        mod.main(["--method", "tste", "--out", "/tmp/never-written.csv", "--ks", "3"])
    assert err.value.code == 2
    assert "k=3" in capsys.readouterr().err


def test_the_default_generator_rule_is_not_an_ablation_variant(capsys):
    # --ambiguous names a rule other than exp1's (rotate); rotate itself is the default run, refused by name
    mod = _driver()
    with pytest.raises(SystemExit) as err:
        mod.main(["--method", "tste", "--out", "/tmp/never-written.csv", "--ambiguous", "rotate"])
    assert err.value.code == 2
    assert "--ambiguous" in capsys.readouterr().err
