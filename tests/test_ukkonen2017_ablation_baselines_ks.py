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


@pytest.mark.parametrize("option, named", [
    (["--ks", "3"], "k=3"),  # a k outside Table I
    # --ambiguous names a rule other than exp1's (rotate); rotate itself is the default run, refused by name
    (["--ambiguous", "rotate"], "--ambiguous"),
])
def test_a_refused_option_exits_2_naming_it(option, named, capsys, tmp_path):
    mod = _driver()
    with pytest.raises(SystemExit) as err:
        mod.main(["--method", "tste", "--out", str(tmp_path / "never-written.csv"), *option])
    assert err.value.code == 2
    assert named in capsys.readouterr().err
