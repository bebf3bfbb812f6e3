"""``algorithm.max_passes`` from the command line to the records and the kernel (issue 30); what run.json records of
the algorithms that ran is tested in tests/test_run_spec.py."""

import os
import sys
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


#: the grid of :func:`_sweep_in_process`: exp1's ci grid with Ls-AD-VC alone
EXP1_LS_AD_VC = ("experiment=exp1_triplets", "experiment.scale=ci", "experiment.algorithms=[ls_ad_vc]")


def _main_in_process(tmp_path, monkeypatch, *overrides, grid=EXP1_LS_AD_VC):
    """``python -m ccexp`` itself (:func:`ccexp.__main__.main`) in this process, on ``grid`` (one trial).

    ``main`` sets up Hydra's job as Hydra's own main would (its logging: a console handler on the root logger;
    :class:`HydraConfig`): both are put back afterwards, so later tests of this process log as before.
    """
    import logging
    import sys

    import ccexp.__main__ as cli
    from hydra.core.hydra_config import HydraConfig

    if "CCEXP_DATA_DIR" in os.environ:
        monkeypatch.setenv("CCEXP_DATA_DIR", os.environ["CCEXP_DATA_DIR"])
    else:
        monkeypatch.delenv("CCEXP_DATA_DIR", raising=False)
    monkeypatch.setattr(sys, "argv", ["ccexp", *grid, "experiment.trials=1", *overrides,
                                      f"paths.results={tmp_path}", "tracking=off", "report=false", "runner.n_jobs=1",
                                      "runner.progress=false"])
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        cli.main()
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        HydraConfig.instance().cfg = None
    experiment = next(o for o in grid if o.startswith("experiment=")).split("=", 1)[1]
    (records,) = Path(tmp_path, experiment).glob("*/records.parquet")
    return pd.read_parquet(records)


def _calls_to(frame, entry) -> list[tuple[str, str]]:
    """The frames from the call of ``entry`` (a function) down to ``frame``, as (module, function), outermost first."""
    chain = []
    while frame is not None and frame.f_code is not entry.__code__:
        chain.append((frame.f_globals.get("__name__", "?"), frame.f_code.co_name))
        frame = frame.f_back
    assert frame is not None, f"{entry.__qualname__} is not on the stack: {chain}"
    return [(frame.f_globals["__name__"], frame.f_code.co_name), *reversed(chain)]


def test_max_passes_from_the_command_line_reaches_the_records_and_the_kernel(tmp_path, monkeypatch):
    """``algorithm.max_passes=1`` (issue 30): the records say 1, and Algorithm 2's pass kernel runs once per case.

    The same grid with the yaml's default (1000) needs more than one pass where items still move after the
    first (from "all different", every case): so the override is what stops them, not the data.

    And the value's way, counted on the interpreter's stack where it is used: the frame that applies the cap
    (the first frame above the pass kernel's call that holds ``max_passes == 1``: ``TripletLocalSearch._fit``'s
    ``while search.n_passes < max_passes``; the pass itself is ``SearchState.step``) and every frame above it up
    to :func:`ccexp.__main__.main`, run as ``python -m ccexp`` runs it.  A call is an edge between two frames.
    No other package's frame may stand between them (Hydra's main, joblib's dispatch, a wrapper of another
    library): at ``runner.n_jobs=1`` the sweep calls its tasks itself, as joblib's sequential backend would.
    Issue 30 asks for at most 4 calls; 14 calls (13 hops of ours in 7 files) two rounds before, then 7
    (main -> run -> run_sweep -> (joblib) -> run_instance -> fit_problem -> _fit -> triplet_local_search), now 4:
    main -> run_sweep -> run_instance -> fit_problem -> _fit.
    """
    import ccexp.__main__ as cli
    from ccexp.algorithms.triplets import _kernels as K
    from ccexp.runner.execute import warm_up

    warm_up(["ls_ad_vc"])  # compiled before counting: the warm-up fits a tiny problem
    calls, stacks = [], []
    real = K.local_search_pass

    def counting(*args):
        calls.append(1)
        user = sys._getframe(1)  # the pass's frame; the cap is applied where max_passes is a local
        while user is not None and "max_passes" not in user.f_locals:
            user = user.f_back
        if user is not None and user.f_locals["max_passes"] == 1 and not stacks:
            stacks.append(_calls_to(user, cli.main))
        return real(*args)

    monkeypatch.setattr(K, "local_search_pass", counting)
    default = _sweep_in_process(tmp_path / "default", monkeypatch)
    n_default = len(calls)
    assert (default["algorithm.max_passes"] == 1000).all() and (default["n_passes"] > 1).all()
    assert n_default == default["n_passes"].sum() and (default["status"] == "ok").all()
    assert not stacks  # max_passes=1 reached no kernel call before it was given

    one = _main_in_process(tmp_path / "one", monkeypatch, "algorithm.max_passes=1")
    assert len(one) == len(default) > 0
    assert (one["algorithm.max_passes"] == 1).all()  # the records carry the user's value
    assert (one["n_passes"] == 1).all() and len(calls) - n_default == len(one)  # one kernel pass per case
    assert (one["status"] == "max_passes").all()  # stopped by the cap with items still moving

    (stack,) = stacks
    where = " -> ".join(f"{m}.{f}" for m, f in stack)
    assert stack[0] == ("ccexp.__main__", "main") and stack[-1] == ("ccexp.algorithms.triplets.local_search",
                                                                     "_fit"), where
    ours = [f for f in stack if f[0].split(".")[0] == "ccexp"]
    assert len(ours) == len(stack), f"a frame of another package on the way: {where}"
    assert len(stack) - 1 <= 4, f"{len(stack) - 1} calls: {where}"
    # the modules: __main__, the sweep, the task, the family's base, the algorithm
    assert [m for m, _ in stack] == ["ccexp.__main__", "ccexp.runner.sweep", "ccexp.runner.execute",
                                     "ccexp.algorithms.triplets.base", "ccexp.algorithms.triplets.local_search"], where


def test_acc_max_passes_reaches_the_local_search_kernel_in_4_calls(tmp_path, monkeypatch):
    """Aronsson's ``max_passes`` (issue 30: "and every other parameter"), as the test above follows Ukkonen's.

    ``+algorithm.max_passes=1`` (the acc configs leave the key to the preset, so it is added) on acc_random_init's
    ci grid with acc_uniform: every restart's kernel call gets 1 and makes one pass, the records say 1, and the
    kernel, whose loop applies the cap, is 4 calls from :func:`ccexp.__main__.main`: main -> run_sweep ->
    run_instance -> ``ActiveCorrelationClustering.fit_problem`` (Algorithm 1's loop, and Algorithm 2's restarts
    around the one-restart kernel) -> ``local_search_sums``.  It was 7 (main -> run_sweep -> run_instance -> the
    validation wrapper -> fit_problem -> _fit -> _local_search -> local_search_sums).
    """
    import ccexp.__main__ as cli
    from ccexp.algorithms.active import _kernels as K
    from ccexp.runner.execute import warm_up

    warm_up(["acc_uniform"])
    passes, stacks = [], []
    real = K.local_search_sums

    def counting(S, ST, labels, seed, eta, max_passes, M, smax):
        out = real(S, ST, labels, seed, eta, max_passes, M, smax)
        passes.append((max_passes, out[1]))
        if not stacks:
            stacks.append(_calls_to(sys._getframe(1), cli.main))
        return out

    monkeypatch.setattr(K, "local_search_sums", counting)
    grid = ("experiment=acc_random_init", "experiment.scale=ci", "experiment.algorithms=[acc_uniform]")
    one = _main_in_process(tmp_path / "one", monkeypatch, "+algorithm.max_passes=1", grid=grid)
    assert len(one) > 0 and (one["algorithm.max_passes"] == 1).all()
    assert len(passes) > len(one) and set(passes) == {(1, 1)}  # every restart: the cap 1, one pass

    (stack,) = stacks
    where = " -> ".join(f"{m}.{f}" for m, f in stack)
    calls = len(stack) - 1 + 1  # the calls between the frames above, and the kernel's call
    assert calls <= 4, f"{calls} calls: {where} -> local_search_sums"
    assert stack == [("ccexp.__main__", "main"), ("ccexp.runner.sweep", "run_sweep"),
                     ("ccexp.runner.execute", "run_instance"),
                     ("ccexp.algorithms.active.estimator", "fit_problem")], where


def test_each_fit_records_its_cpu_time_and_run_json_sums_them_beside_the_load(tmp_path, monkeypatch):
    """A committed run.json's wall time says how long, not whether the machine was computing: each record carries
    the fit's CPU time (``time.process_time``: every thread of the process) beside its wall time, and the run's entry
    in ``run.json`` sums both over the cases it ran and gives the load average when it started and at its end."""
    import json
    import math

    records = _sweep_in_process(tmp_path, monkeypatch)
    assert len(records) > 1 and (records["status"] == "ok").all()
    cpu, wall = records["fit_cpu_seconds"].astype(float), records["fit_seconds"].astype(float)
    assert cpu.notna().all() and (cpu >= 0).all() and (wall > 0).all()
    (run,) = json.loads(next(Path(tmp_path).glob("exp1_triplets/*/run.json")).read_text())["runs"]
    assert run["status"] == "finished" and run["n_run"] == len(records)
    # the sums of what the records hold, rounded as written
    assert math.isclose(run["fit_seconds_summed"], wall.sum(), abs_tol=1e-3 * len(records))
    assert math.isclose(run["fit_cpu_seconds_summed"], cpu.sum(), abs_tol=1e-3 * len(records))
    load = run["load_average"]
    for when in ("start", "end"):
        assert len(load[when]) == 3 and all(isinstance(x, float) and x >= 0 for x in load[when])
