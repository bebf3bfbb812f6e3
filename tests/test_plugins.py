"""Plugins: entry points loaded into the registries, and the example package installed for real.

The fast tests feed :class:`ccexp.registry.Registry` entry points made by
hand (``importlib.metadata.EntryPoint``); the slow one pip-installs
``examples/ccexp_plugin_example`` into a fresh virtual environment and runs
its algorithm in ``exp1_triplets`` (and in each ``cross_*`` experiment, once
one exists in ``conf/experiment/``) at ``scale=ci`` through
``python -m ccexp``, as a user would.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import site
import subprocess
import sys
import venv
from importlib.metadata import EntryPoint
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ccexp.registry as registry_module
from ccexp.problem import Problem
from ccexp.registry import ALGORITHMS, Registry
from ccexp.runner.config import experiment_cases

from conftest import require_experiment_data

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "ccexp_plugin_example"


def _registry(monkeypatch, *entries, declares="algorithm") -> Registry:
    """A registry of group ``test.group`` whose entry points are ``entries`` (name, "module:object")."""
    eps = [EntryPoint(name, value, "test.group") for name, value in entries]
    monkeypatch.setattr(registry_module, "entry_points", lambda group: eps if group == "test.group" else [])
    return Registry("algorithm", group="test.group", declares=declares)


def test_an_entry_point_is_registered_under_its_name_with_its_origin(monkeypatch):
    reg = _registry(monkeypatch, ("my_ls", "ccexp.algorithms.triplets.local_search:LsAD"))
    from ccexp.algorithms.triplets.local_search import LsAD

    assert reg.names() == ["my_ls"]
    assert reg.get("my_ls") is LsAD
    assert reg.origin("my_ls") == ("the entry point my_ls = 'ccexp.algorithms.triplets.local_search:LsAD' "
                                   "of an unknown package (group test.group)")


def test_a_name_clash_skips_the_plugin_naming_both_origins(monkeypatch, caplog):
    reg = _registry(monkeypatch, ("ls_ad_vc", "ccexp.algorithms.triplets.local_search:LsAD"))

    @reg.register("ls_ad_vc")
    class Mine:
        reads = ("triplets",)
        needs_features = False

    with caplog.at_level(logging.WARNING, logger="ccexp"):
        assert reg.names() == ["ls_ad_vc"] and reg.get("ls_ad_vc") is Mine  # the one registered first stays
    [msg] = [m for m in caplog.messages if "skipped a plugin" in m]
    assert "algorithm 'ls_ad_vc' is registered twice: by test_plugins." in msg
    assert "Mine and by the entry point ls_ad_vc = 'ccexp.algorithms.triplets.local_search:LsAD'" in msg


def test_a_plugin_named_like_a_builtin_is_skipped_and_the_builtin_kept(monkeypatch, caplog):
    """Issue 33: it raised, and so broke every command; now one warning, the built-in untouched."""
    from ccexp.algorithms.constrained.cop_kmeans import COPKMeans

    eps = [EntryPoint("cop_kmeans", "ccexp.algorithms.triplets.local_search:LsAD", "ccexp.algorithms")]
    reg = Registry("algorithm", group="ccexp.algorithms", declares="algorithm")
    reg._items, reg._origins = dict(ALGORITHMS._items), dict(ALGORITHMS._origins)  # ccexp's own, as at import
    monkeypatch.setattr(registry_module, "entry_points", lambda group: eps if group == "ccexp.algorithms" else [])
    with caplog.at_level(logging.WARNING, logger="ccexp"):
        assert reg.get("cop_kmeans") is COPKMeans
    [msg] = [m for m in caplog.messages if "skipped a plugin" in m]
    assert "\n" not in msg and re.search(r"algorithm 'cop_kmeans' is registered twice: by "
                                         r"ccexp\.algorithms\.constrained\.cop_kmeans\.COPKMeans and by the entry point", msg)


def test_a_plugin_without_its_declaration_is_skipped(monkeypatch, caplog):
    reg = _registry(monkeypatch, ("bare", "ccexp.algorithms.base:ProblemEstimator"),
                    ("fine", "ccexp.algorithms.triplets.local_search:LsAD"))
    with caplog.at_level(logging.WARNING, logger="ccexp"):
        assert reg.names() == ["fine"]
    assert any("algorithm 'bare' declares no reads" in m for m in caplog.messages)
    with pytest.raises(ValueError, match="algorithm 'bare' is not available: its plugin was skipped .*declares no reads"):
        reg.get("bare")
    oracles = _registry(monkeypatch, ("bare", "ccexp.oracles.pairwise:pairwise_constraints"), declares="oracle")
    with pytest.raises(ValueError, match="oracle 'bare' declares no produces"):
        oracles.get("bare")


def test_a_plugin_that_fails_to_import_is_skipped_with_one_warning(monkeypatch, caplog):
    """Issue 33: a plugin raising on import broke every command, the built-in algorithms too."""
    reg = _registry(monkeypatch, ("gone", "ccexp_no_such_module:Thing"),
                    ("fine", "ccexp.algorithms.triplets.local_search:LsAD"))
    with caplog.at_level(logging.WARNING, logger="ccexp"):
        assert reg.names() == ["fine"]
    [msg] = [m for m in caplog.messages if "skipped a plugin" in m]
    assert re.search(r"the entry point gone = 'ccexp_no_such_module:Thing' of an unknown package "
                     r"\(group test.group\) failed to load: ModuleNotFoundError", msg)
    with pytest.raises(ValueError, match="algorithm 'gone' is not available: its plugin was skipped"):
        reg.get("gone")


@pytest.mark.slow
def test_a_plugin_that_raises_on_import_leaves_the_command_working(tmp_path):
    """A real installed entry point whose module raises: the built-in experiment still runs (one warning)."""
    pkg = tmp_path / "site" / "broken_plugin"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('the plugin is broken')\n")
    dist = tmp_path / "site" / "broken_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[ccexp.algorithms]\nbroken = broken_plugin:Thing\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "site"), env.get("PYTHONPATH", "")])
    args = ["experiment=exp1_triplets", "experiment.scale=ci", "experiment.sweep.dataset.k=[4]",
            "experiment.sweep.oracle.fraction=[0.1]", "experiment.algorithms=[ls_eq]", "experiment.trials=1",
            "tracking=off", "report=false", "runner.n_jobs=1", "runner.progress=false", f"paths.results={tmp_path / 'r'}"]
    proc = subprocess.run([sys.executable, "-m", "ccexp", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert out.count("skipped a plugin") >= 1 and "RuntimeError: the plugin is broken" in out
    assert "Traceback" not in out


# ------------------------------------------------------------------ the example's algorithm, in this process


@pytest.fixture
def vote_linkage(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    from ccexp_plugin_example.vote_linkage import VoteLinkage, vote_similarity

    return VoteLinkage, vote_similarity


def test_vote_linkage_by_hand(vote_linkage):
    VoteLinkage, vote_similarity = vote_linkage
    # triplets 01|2 and 34|2 and ab|c relative 01|3: items 0, 1 together; 3, 4 together; 2 alone
    p = Problem(n_items=5, triplets=np.array([[0, 1, 2], [3, 4, 2]]), relative=np.array([[0, 1, 3]]))
    S = vote_similarity(p)
    assert S[0, 1] == 1.0 and S[3, 4] == 1.0 and S[0, 2] == -1.0 and S[1, 3] == -1.0 and S[0, 4] == 0.0
    est = VoteLinkage().fit_problem(p)
    # d(0,1) = d(3,4) = 0 merge; {0,1} vs {3,4}: mean of d(0,3) = 1, d(1,3) = 1, d(0,4) = d(1,4) = 1/2 -> 3/4: stop
    np.testing.assert_array_equal(est.labels_, [0, 0, 1, 2, 2])
    # pairwise: one must-link and one cannot-link; the cannot-linked pair stays apart, the rest are singletons
    p = Problem(n_items=3, X=np.zeros((3, 1)), must_link=np.array([[0, 2]]), cannot_link=np.array([[0, 1]]))
    np.testing.assert_array_equal(VoteLinkage().fit_problem(p).labels_, [0, 1, 0])
    with pytest.raises(ValueError, match=r"The 'threshold' parameter of VoteLinkage must be a float in the range \(0\.0, 1\.0\]\. Got 0"):
        VoteLinkage(threshold=0).fit_problem(p)


def test_vote_linkage_meets_the_generic_checks(vote_linkage):
    """The checks of tests/test_capabilities.py, for the example (not registered in this environment)."""
    from ccexp.capabilities import check_declaration
    from test_capabilities import N, _problem

    VoteLinkage, _ = vote_linkage
    check_declaration(VoteLinkage, "vote_linkage")
    # and those of tests/test_parameter_constraints.py
    assert set(VoteLinkage._parameter_constraints) == set(VoteLinkage().get_params())
    for value in ("0.5", 0.0, 1.5):
        with pytest.raises(ValueError, match="The 'threshold' parameter of VoteLinkage"):
            VoteLinkage(threshold=value).fit_problem(_problem("triplets"))
    for kind in VoteLinkage.reads:
        prob = _problem(kind)
        a, b = VoteLinkage(random_state=3), VoteLinkage(random_state=3)
        assert a.fit_problem(prob) is a
        assert a.labels_.shape == (N,) and np.issubdtype(a.labels_.dtype, np.integer)
        np.testing.assert_array_equal(a.labels_, b.fit_problem(prob).labels_)


# ------------------------------------------------------------------ installed for real


def _fresh_venv(path: Path) -> Path:
    """A new virtual environment that sees this one's packages (ccexp included) behind its own.

    ``python -m venv --system-site-packages`` would expose the base
    interpreter's packages, not this environment's when the tests run in a
    virtual environment; so a ``.pth`` line adds this environment's
    site-packages with :func:`site.addsitedir` (which also runs their
    ``.pth`` files: ccexp's editable install).  The plugin itself goes into
    the new environment only.
    """
    venv.create(path, with_pip=False)
    python = path / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    parents = [p for p in site.getsitepackages() if Path(p).is_dir()] or [site.getusersitepackages()]
    Path(purelib, "_ccexp_parent_env.pth").write_text(
        "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in parents) + "\n")
    return python


def _ccexp(python: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CCEXP_RESULTS_DIR": str(tmp / "results")}
    env.pop("MLFLOW_TRACKING_URI", None)
    return subprocess.run([python, "-m", *args], capture_output=True, text=True, cwd=tmp, env=env, timeout=900)


@pytest.mark.slow
def test_the_example_plugin_installs_and_runs_in_the_experiments(tmp_path):
    python = _fresh_venv(tmp_path / "venv")
    # built from a copy: setuptools writes build/ and *.egg-info beside the sources
    source = shutil.copytree(EXAMPLE, tmp_path / "source", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    pip = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
                          str(source)], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr
    # not in this environment: the plugin reached the new one only
    assert "vote_linkage" not in ALGORITHMS

    listing = _ccexp(python, tmp_path, "ccexp.list", "algorithms")
    assert listing.returncode == 0, listing.stderr
    row = next(line for line in listing.stdout.splitlines() if line.startswith("vote_linkage "))
    assert row.split()[1:3] == ["triplets,relative,pairwise", "no"]
    assert "[plugin ccexp-plugin-example 0.1.0] Vote linkage (example plugin)" in row

    common = ["experiment.scale=ci", "runner.n_jobs=1", "runner.progress=false", "report=false", "tracking=off",
              f"paths.results={tmp_path / 'results'}"]
    run = _ccexp(python, tmp_path, "ccexp", "experiment=exp1_triplets", "experiment.algorithms=[vote_linkage]", *common)
    assert run.returncode == 0, run.stdout + run.stderr
    [records] = (tmp_path / "results" / "exp1_triplets").glob("ci+custom-*/records.parquet")
    rec = pd.read_parquet(records)
    # one case per instance of the ci grid (32 today; it was 30), as for any triplet reader
    n_instances = len(experiment_cases("exp1_triplets", "ci", ["experiment.algorithms=[ls_ad]"])[1])
    assert len(rec) == n_instances and set(rec.algorithm) == {"vote_linkage"} and (rec.status == "ok").all()
    # every triplet, no noise: average linkage cut at 1/2 returns the classes when every pair within a class
    # has a positive mean vote and every pair across a negative one.  A pair within gets +1 from each of the
    # n - n_k outliers outside its class (and at most n_k - 2 votes from inside), a pair across gets -1 from the
    # 2 n_k - 2 3-sets whose third item shares a class with it, and the rotate rule's all-different 3-sets
    # (Section V-A) put it together in one rotation of three: so both signs hold at k = 4 and 8, n = 160
    full = rec[(rec["oracle.fraction"] == 1.0) & (rec["oracle.noise"] == 0.0)]
    assert len(full) >= 2 and (full.ari == 1.0).all(), full[["dataset.k", "trial", "ari"]]

    # a cross-supervision experiment, once one exists (helper cross's issue-15 item 1): the plugin joins
    # the grids whose oracles give a kind it reads
    for conf in sorted((ROOT / "conf" / "experiment").glob("cross_*.yaml")):
        require_experiment_data(conf.stem, "ci")  # real datasets: skip, naming the file, where they are absent
        run = _ccexp(python, tmp_path, "ccexp", f"experiment={conf.stem}", "experiment.algorithms=[vote_linkage]", *common)
        assert run.returncode == 0, run.stdout + run.stderr
        [records] = (tmp_path / "results" / conf.stem).glob("ci+custom-*/records.parquet")
        rec = pd.read_parquet(records)
        assert len(rec) and set(rec.algorithm) == {"vote_linkage"} and (rec.status == "ok").all()


def test_the_documented_algorithm_runs_and_agrees_with_the_example(vote_linkage):
    """docs/extending.md's 40-line VoteLinkage: executed as written, same partitions as the example package's."""
    import re

    from ccexp.capabilities import check_declaration
    from sklearn.metrics import adjusted_rand_score
    from test_capabilities import _problem

    text = (ROOT / "docs" / "extending.md").read_text()
    code = next(block for block in re.findall(r"```python\n(.*?)```", text, re.S) if "class VoteLinkage" in block)
    namespace: dict = {}
    exec(compile(code, "docs/extending.md", "exec"), namespace)  # noqa: S102 - our own documentation
    Documented = namespace["VoteLinkage"]
    Example, _ = vote_linkage
    check_declaration(Documented, "vote_linkage")
    for kind in Documented.reads:
        prob = _problem(kind)
        ours, theirs = Documented().fit_problem(prob).labels_, Example().fit_problem(prob).labels_
        assert adjusted_rand_score(ours, theirs) == 1.0
