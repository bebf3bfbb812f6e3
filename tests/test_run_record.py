"""``algorithm.max_passes`` from the command line to the records and the kernel (issue 30); what run.json records of
the algorithms that ran is tested in tests/test_run_spec.py."""

import os
from pathlib import Path

import pandas as pd


def _sweep_in_process(tmp_path, monkeypatch, *overrides):
    """``python -m ccexp`` on exp1's ci grid with Ls-AD-VC alone, in this process (one case at a time)."""
    import ccexp.__main__ as cli
    from ccexp.runner.config import compose_config, with_algorithm_choice

    # run() sets CCEXP_DATA_DIR from paths.data: the monkeypatch puts it back as it was
    if "CCEXP_DATA_DIR" in os.environ:
        monkeypatch.setenv("CCEXP_DATA_DIR", os.environ["CCEXP_DATA_DIR"])
    else:
        monkeypatch.delenv("CCEXP_DATA_DIR", raising=False)
    ov = with_algorithm_choice(["experiment=exp1_triplets", "experiment.scale=ci", "experiment.algorithms=[ls_ad_vc]",
                                "experiment.trials=1", *overrides, f"paths.results={tmp_path}", "tracking=off",
                                "report=false", "runner.n_jobs=1", "runner.progress=false"])
    summary = cli.run(compose_config(ov), ov)
    return pd.read_parquet(Path(summary["directory"]) / "records.parquet")


def test_max_passes_from_the_command_line_reaches_the_records_and_the_kernel(tmp_path, monkeypatch):
    """``algorithm.max_passes=1`` (issue 30): the records say 1, and Algorithm 2's pass kernel runs once per case.

    The same grid with the yaml's default (1000) needs more than one pass where items still move after the
    first (from "all different", every case): so the override is what stops them, not the data.
    """
    from ccexp.algorithms.triplets import _kernels as K
    from ccexp.runner.execute import warm_up

    warm_up(["ls_ad_vc"])  # compiled before counting: the warm-up fits a tiny problem
    calls = []
    real = K.local_search_pass

    def counting(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(K, "local_search_pass", counting)
    default = _sweep_in_process(tmp_path / "default", monkeypatch)
    n_default = len(calls)
    assert (default["algorithm.max_passes"] == 1000).all() and (default["n_passes"] > 1).all()
    assert n_default == default["n_passes"].sum() and (default["status"] == "ok").all()

    one = _sweep_in_process(tmp_path / "one", monkeypatch, "algorithm.max_passes=1")
    assert len(one) == len(default) > 0
    assert (one["algorithm.max_passes"] == 1).all()  # the records carry the user's value
    assert (one["n_passes"] == 1).all() and len(calls) - n_default == len(one)  # one kernel pass per case
    assert (one["status"] == "max_passes").all()  # stopped by the cap with items still moving
