"""Every registered algorithm on a tiny problem of each kind it declares (in the manner of benchopt's generic tests).

Per (algorithm, kind): ``fit_problem`` returns the estimator, ``labels_`` is
one integer label per item, and two fits under the same seed give the same
labels.  Plus: the declarations themselves (every algorithm and oracle
declares, in the vocabulary of :data:`ccexp.capabilities.KINDS`), every
oracle's problems carry the kind it declares, and the runner refuses an
experiment pairing an algorithm with an oracle of a kind it cannot read.
Plugins installed in the environment are registered algorithms too, so
they are held to the same checks.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import ccexp
from ccexp.capabilities import KINDS, algorithm_reads, check_declaration, oracle_produces, pairing_error, problem_kind
from ccexp.problem import Problem
from ccexp.registry import ALGORITHMS, ORACLES
from ccexp.runner.config import ConfigError, compose_config, resolve_run

N, K = 24, 3


def _dataset() -> ccexp.Dataset:
    """24 items in three well-separated 2-d blobs, with categorical codes and recorded triplets: every oracle runs on it."""
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(K), N // K)
    X = rng.normal(scale=0.3, size=(N, 2)) + 4.0 * np.stack([np.cos(y * 2.1), np.sin(y * 2.1)], axis=1)
    categorical = np.stack([y, (y + (rng.random(N) < 0.2)) % K], axis=1)
    # recorded triplets: a and b from one blob, the outlier c from another
    a = rng.integers(0, N, 60)
    b = (a // (N // K)) * (N // K) + (a + 1 + rng.integers(0, N // K - 1, 60)) % (N // K)
    c = (a + N // K * rng.integers(1, K, 60)) % N
    return ccexp.Dataset(name="tiny", y=y, X=X, categorical=categorical, triplets=np.stack([a, b, c], axis=1))


#: a tiny problem of each kind: oracle and parameters
_ORACLE_OF_KIND = {
    "triplets": ("triplets", dict(fraction=0.3, noise=0.1)),
    "relative": ("relative_random", dict(n_constraints=20)),
    "pairwise": ("pairwise", dict(n_constraints=20)),
    "similarity": ("pairwise_similarity", dict(gamma=0.1)),
    "clusterings": ("clusterings_kmeans", dict(k_min=2, k_max=4)),
}

#: the same kinds with the items' features, for the readers that need them (the stock
#: triplet oracle hands over triplets only; the cross-supervision one adds the features)
_FEATURE_ORACLE_OF_KIND = {"triplets": ("cross_triplets", dict(budget=2.0, eps=0.1))}

#: every registered oracle's parameters on the tiny dataset (defaults where they fit)
_ORACLE_PARAMS = {
    "pairwise": dict(n_constraints=20),
    "relative_random": dict(n_constraints=20),
    "relative_informative": dict(fraction=0.5),
    "triplets": dict(fraction=0.3),
    "clusterings_kmeans": dict(k_min=2, k_max=4),
    "clusterings_linkage": dict(k=3),
}


def _problem(kind: str, features: bool = False) -> Problem:
    ds = _dataset()
    if kind == "none":  # features only, with the k every baseline of the papers is given
        return Problem(n_items=N, X=ds.X, meta={"n_clusters": K})
    oracle, params = (_FEATURE_ORACLE_OF_KIND if features and kind in _FEATURE_ORACLE_OF_KIND
                      else _ORACLE_OF_KIND)[kind]
    return ccexp.make_problem(oracle, ds, random_state=0, **params)


def _cases():
    for name in ALGORITHMS.names():
        cls = ALGORITHMS.get(name)
        for kind in getattr(cls, "reads", None) or ("(undeclared)",):
            yield pytest.param(name, kind, id=f"{name}-{kind}")


def test_problems_of_the_test_carry_their_kind():
    for kind in KINDS:
        assert problem_kind(_problem(kind)) == kind


@pytest.mark.parametrize("name", ALGORITHMS.names())
def test_every_algorithm_declares_what_it_reads(name):
    check_declaration(ALGORITHMS.get(name), name)


@pytest.mark.parametrize("name", ORACLES.names())
def test_every_oracle_declares_the_kind_it_gives_and_gives_it(name):
    check_declaration(ORACLES.get(name), name, "oracle")
    problem = ccexp.make_problem(name, _dataset(), random_state=0, **_ORACLE_PARAMS.get(name, {}))
    assert problem_kind(problem) == oracle_produces(name)


@pytest.mark.parametrize("name, kind", list(_cases()))
def test_every_algorithm_fits_every_kind_it_reads(name, kind):
    cls = ALGORITHMS.get(name)
    problem = _problem(kind, features=cls.needs_features)
    if cls.needs_features:
        assert problem.X is not None, f"the tiny {kind} problem has no features for {name}"
    labels = []
    for _ in range(2):
        est = ccexp.make_algorithm(name, random_state=7)
        assert est.fit_problem(problem) is est
        lab = np.asarray(est.labels_)
        assert lab.shape == (N,)
        assert np.issubdtype(lab.dtype, np.integer)
        labels.append(lab)
    np.testing.assert_array_equal(labels[0], labels[1], err_msg=f"{name} on {kind}: same seed, different labels")


def _permuted(problem: Problem, perm: np.ndarray) -> Problem:
    """``problem`` with item ``perm[i]`` renamed ``i`` (the items presented in another order)."""
    if problem.clusterings is not None:
        return Problem(n_items=problem.n_items, clusterings=problem.clusterings[:, perm], meta=problem.meta)
    raise NotImplementedError("permuting this kind of problem: extend _permuted for the new deterministic reader")


def _deterministic_cases():
    for name in ALGORITHMS.names():
        cls = ALGORITHMS.get(name)
        if getattr(cls, "deterministic", False):
            for kind in cls.reads:
                yield pytest.param(name, kind, id=f"{name}-{kind}")


@pytest.mark.parametrize("name, kind", list(_deterministic_cases()))
def test_a_deterministic_algorithm_ignores_the_seed_and_the_order_of_the_items(name, kind):
    # issue 28: SE 0 stays only where a test shows that the result depends on neither
    problem = _problem(kind, features=ALGORITHMS.get(name).needs_features)
    labels = ALGORITHMS.get(name)(random_state=0).fit_problem(problem).labels_
    assert np.array_equal(ALGORITHMS.get(name)(random_state=12345).fit_problem(problem).labels_, labels)
    for seed in range(3):
        perm = np.random.default_rng(seed).permutation(problem.n_items)
        shuffled = ALGORITHMS.get(name)(random_state=0).fit_problem(_permuted(problem, perm)).labels_
        back = np.empty_like(shuffled)
        back[perm] = shuffled
        # the same partition, whatever the labels' names
        assert np.array_equal(back[:, None] == back[None, :], labels[:, None] == labels[None, :])


def test_best_clustering_is_declared_deterministic_and_an_order_dependent_one_is_not():
    assert len(list(_deterministic_cases())) >= 1
    assert ALGORITHMS.get("best_clustering").deterministic
    assert not ALGORITHMS.get("agglomerative").deterministic  # its merges depend on the item order


def test_declarations_are_refused_when_malformed():
    class NoReads:
        needs_features = False

    class Unknown:
        reads = ("tripletz",)
        needs_features = False

    class NotATuple:
        reads = "triplets"
        needs_features = False

    class NoFeatureFlag:
        reads = ("triplets",)

    for cls, match in ((NoReads, "declares no reads"), (Unknown, "unknown kind 'tripletz'"),
                       (NotATuple, "non-empty tuple"), (NoFeatureFlag, "needs_features=None")):
        with pytest.raises(ValueError, match=match):
            check_declaration(cls, "mine")

    def oracle(dataset, random_state=None):  # pragma: no cover - never called
        raise AssertionError

    with pytest.raises(ValueError, match="declares no produces"):
        check_declaration(oracle, "mine", "oracle")
    oracle.produces = ("pairwise",)
    with pytest.raises(ValueError, match="must be one of triplets, relative"):
        check_declaration(oracle, "mine", "oracle")
    oracle.produces = "none"  # features only: the unsupervised readers' oracle
    check_declaration(oracle, "mine", "oracle")


def test_pairing_by_the_declarations():
    assert pairing_error("ls_ad_vc", "triplets") is None
    assert pairing_error("kmeans", "relative_random") is None  # a features-only baseline runs beside any kind
    assert pairing_error("cc_pivot", "pairwise") is None
    assert pairing_error("recon", "pairwise") == (
        "algorithm 'recon' reads relative, needs features; oracle 'pairwise' gives pairwise")
    assert "reads triplets, pairwise, clusterings or similarity" in pairing_error("cc_exact", "relative_random")
    assert algorithm_reads("acc_maxexp") == ("similarity",)


def test_the_runner_refuses_an_algorithm_that_cannot_read_the_oracle():
    ov = ["experiment=exp1_triplets", "experiment.scale=ci", "experiment.algorithms=[ls_ad,cop_kmeans]"]
    with pytest.raises(ConfigError) as err:
        resolve_run(compose_config(ov), ov)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith("exp1_triplets: algorithm 'cop_kmeans' reads pairwise, needs features; "
                          "oracle 'triplets' gives triplets")


def test_the_listing_names_every_algorithm_what_it_reads_and_its_paper(capsys):
    from ccexp.list import main

    assert main(["algorithms", "--full"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["algorithm", "reads", "features", "paper"]
    by_name = {line.split()[0]: line.split(maxsplit=3)[1:] for line in lines[1:]}
    assert sorted(by_name) == ALGORITHMS.names()
    for name, (reads, features, paper) in by_name.items():
        assert reads == ",".join(algorithm_reads(name))
        assert features == ("yes" if ALGORITHMS.get(name).needs_features else "no")
    assert by_name["cop_rf"][2].startswith("COP-RF (Zhu, Loy, Gong 2013)")
    assert "Ukkonen 2017" in by_name["ls_ad_vc"][2]


@pytest.mark.parametrize("what, header", [("oracles", ["oracle", "gives", "paper"]), ("datasets", ["dataset", "about"])])
def test_the_listing_of_oracles_and_datasets(capsys, what, header):
    from ccexp.list import main
    from ccexp.registry import DATASETS

    main([what])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == header
    assert [line.split()[0] for line in lines[1:]] == (ORACLES if what == "oracles" else DATASETS).names()
    if what == "oracles":
        assert {line.split()[0]: line.split()[1] for line in lines[1:]}["pairwise_similarity"] == "similarity"


# ------------------------------------------------- grids that pair kinds and readers (ccexp.runner.config.place_by_declaration)


def _pairs(*overrides):
    ov = [*overrides, "experiment.scale=ci"]
    spec = resolve_run(compose_config(ov), ov)
    return spec, {(c.algorithm, c.instance.oracle["name"]) for c in spec.cases()}


@pytest.mark.slow  # resolves every experiment (about a minute on the loaded machine)
def test_placement_leaves_every_experiment_preset_as_it_was():
    from ccexp.runner.config import list_options
    from ccexp.runner.grid import expand

    for name in list_options("experiment"):
        spec, _ = _pairs(f"experiment={name}")
        before = expand(spec.experiment, spec.dataset, spec.oracle, algorithms=spec.algorithms)
        assert [c.case_id for c in spec.cases()] == [c.case_id for c in before], name


def test_one_algorithm_of_a_multi_grid_experiment_runs_where_the_experiment_runs_it():
    spec, pairs = _pairs("experiment=recon_random", "experiment.algorithms=[recon]")
    full, full_pairs = _pairs("experiment=recon_random")
    assert pairs == {("recon", "relative_random")}
    assert {c.case_id for c in spec.cases()} <= {c.case_id for c in full.cases()}  # the same cases, fewer algorithms
    assert len(spec.cases()) == sum(c.algorithm == "recon" for c in full.cases())


def test_an_algorithm_no_grid_lists_joins_the_grids_of_kinds_it_reads():
    # cc_gaps pairs each oracle with its readers in four grids; cc_pivot reads all four kinds but similarity is
    # swept in none of them here, ls_ad only reads triplets, kmeans reads none (and runs beside every kind)
    _, pairs = _pairs("experiment=cc_gaps", "experiment.algorithms=[balls,ls_ad]")
    assert pairs == {("balls", "clusterings_kmeans"), ("ls_ad", "triplets")}
    _, pairs = _pairs("experiment=cc_gaps", "experiment.algorithms=[balls,kmeans]")
    assert pairs == {("balls", "clusterings_kmeans")} | {("kmeans", o) for o in
                                                         ("triplets", "clusterings_kmeans", "pairwise", "pairwise_similarity")}
    with pytest.raises(ConfigError, match=r"recon_random: algorithm 'ls_ad' reads triplets, and no grid of the "
                                          r"experiment gives that \(its grids give relative"):
        _pairs("experiment=recon_random", "experiment.algorithms=[recon,ls_ad]")


def test_the_cli_runs_the_grids_as_placed(monkeypatch, tmp_path):
    """``experiment.algorithms=[a]`` on a multi-grid experiment: the sweep gets the placed grids.

    Before the fix ``ccexp.__main__.run`` handed ``run_sweep`` the configured
    experiment, whose grids still listed their other readers, and the sweep
    refused it ("sweep grid algorithms ['kmeans', 'spectral'] are not in the
    experiment's algorithms") although ``RunSpec.cases()`` had placed them.
    """
    import ccexp.__main__ as cli

    ov = ["experiment=cross_supervision", "experiment.scale=ci", "experiment.algorithms=[kmeans]", "tracking=off",
          f"paths.results={tmp_path}"]
    seen = {}
    monkeypatch.setattr(cli, "check_instances", lambda cases, targets=None: None)  # loads the real datasets: not what is tested
    # run() sets CCEXP_DATA_DIR: the monkeypatch puts it back as it was, set or not (set to '' it was a bad paths.data)
    if "CCEXP_DATA_DIR" in os.environ:
        monkeypatch.setenv("CCEXP_DATA_DIR", os.environ["CCEXP_DATA_DIR"])
    else:
        monkeypatch.delenv("CCEXP_DATA_DIR", raising=False)

    def fake_run_sweep(spec, results, options=None, code=None):
        seen["cases"] = spec.cases
        return {"n_cases": len(seen["cases"]), "n_run": 0, "seconds": 0.0, "out_dir": str(results)}

    monkeypatch.setattr(cli, "run_sweep", fake_run_sweep)
    spec = resolve_run(compose_config(ov), ov)
    try:
        cli.run(compose_config(ov), ov)
    except (AttributeError, KeyError, TypeError):
        pass  # the fake summary lacks what the log line after the sweep reads; the sweep's input is what counts
    assert [c.case_id for c in seen["cases"]] == [c.case_id for c in spec.cases()]
    assert {c.algorithm for c in seen["cases"]} == {"kmeans"}
