"""``python -m ccexp.reproduce``: the plan, the two lanes and reproduce.json (issue 31), with stand-in processes."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from ccexp import reproduce
from ccexp.reproduce import Job, paper_experiments, plan, run_all, summary
from conftest import require_experiment_data


def test_the_plan_covers_the_five_papers_and_marks_the_timing_experiments(tmp_path):
    names = paper_experiments()
    assert len(names) == 17 and "cc_gaps" not in names and "cross_supervision" not in names
    jobs = plan(names, variants=True, committed=tmp_path)
    timing = {j.experiment for j in jobs if j.timing}
    assert timing == {"recon_runtime", "acc_xi_runtime", "agg_scalability"}
    variants = {(j.experiment, j.variant) for j in jobs if j.variant}
    assert ("acc_random_init", "authors") in variants and ("acc_kmeans_init", "authors") in variants
    assert {j.label for j in jobs} >= {"paper", "paper+authors"}


@pytest.fixture
def stand_ins(monkeypatch):
    """Each job is a process that sleeps, records its n_jobs and writes a run.json as a sweep would."""
    def command(job, results, n_jobs):
        out = results / job.experiment / job.label
        code = (f"import json, pathlib, time; time.sleep({0.5 if job.timing else 0.2}); "
                f"p = pathlib.Path({str(out)!r}); p.mkdir(parents=True, exist_ok=True); "
                f"(p / 'run.json').write_text(json.dumps({{'n_cases': 3, 'n_errors': 0, 'n_jobs': {n_jobs}, "
                f"'peak_rss_bytes': {{'driver': 100, 'workers': 50}}}}))")
        return [sys.executable, "-c", code] if job.experiment != "broken" else [sys.executable, "-c", "raise SystemExit(3)"]

    monkeypatch.setattr(reproduce, "_command", command)


def test_a_timing_job_runs_on_a_core_of_its_own_beside_the_others(tmp_path, stand_ins):
    jobs = [Job("t1", timing=True), Job("a", expected_seconds=10), Job("b", expected_seconds=20)]
    run_all(jobs, tmp_path, cores=2, progress=False)
    by = {j.experiment: j for j in jobs}
    assert by["t1"].n_jobs == 1 and by["t1"].returncode == 0
    # the longest other job starts first, beside the timing one, on the one core left
    assert by["b"].n_jobs == 1
    assert all(j.run["n_cases"] == 3 for j in jobs)


@pytest.fixture
def timed_stand_ins(monkeypatch):
    """Each job waits as ``WAIT`` says and writes when it started and ended into its run.json.

    A number is seconds; a job's name waits until that job has written its run.json (at most 60 s), so the
    order of events does not depend on how loaded the machine is.
    """
    def command(job, results, n_jobs):
        out = results / job.experiment / job.label
        wait = WAIT[job.experiment]
        if isinstance(wait, str):
            other = results / wait / "paper" / "run.json"
            sleep = (f"t = time.time()\nwhile not pathlib.Path({str(other)!r}).exists() and time.time() - t < 60: "
                     f"time.sleep(0.05)")
        else:
            sleep = f"time.sleep({wait})"
        code = (f"import json, pathlib, time\nt0 = time.time()\n{sleep}\n"
                f"p = pathlib.Path({str(out)!r}); p.mkdir(parents=True, exist_ok=True)\n"
                f"(p / 'run.json').write_text(json.dumps({{'started': t0, 'ended': time.time(), 'n_jobs': {n_jobs}}}))")
        return [sys.executable, "-c", code]

    monkeypatch.setattr(reproduce, "_command", command)


WAIT = {"t1": 0.2, "long": "c", "b": 0.2, "c": 0.2, "x": "y", "y": 0.2}


def test_a_core_freed_by_the_timing_job_takes_the_next_job_at_once(tmp_path, timed_stand_ins):
    """List scheduling: the long job started beside the timing one keeps its one core, and the core the timing
    job frees runs the next jobs while it goes on (the first version left that core idle until the long job
    ended; here the long job waits for the last one, so that version would run it 60 s and fail)."""
    jobs = [Job("t1", timing=True), Job("long", expected_seconds=100), Job("b", expected_seconds=50),
            Job("c", expected_seconds=10)]
    run_all(jobs, tmp_path, cores=2, progress=False)
    by = {j.experiment: j for j in jobs}
    assert all(j.returncode == 0 for j in jobs)
    assert by["long"].run["started"] < by["t1"].run["ended"]  # beside the timing job
    for name in ("b", "c"):
        assert by[name].run["started"] < by["long"].run["ended"], name  # on the freed core, beside "long"
        assert by[name].run["started"] >= by["t1"].run["ended"], name  # never beside the timing job as a third
    assert by["long"].run["ended"] - by["long"].run["started"] < 60  # it did not have to wait for its own end
    assert [by[n].n_jobs for n in ("t1", "long", "b", "c")] == [1, 1, 1, 1]


def test_the_last_job_to_start_takes_every_core_left(tmp_path, timed_stand_ins):
    jobs = [Job("x", expected_seconds=20), Job("y", expected_seconds=10)]
    run_all(jobs, tmp_path, cores=3, progress=False)
    assert [j.n_jobs for j in jobs] == [1, 2]
    assert jobs[1].run["started"] < jobs[0].run["ended"]  # side by side


def test_on_one_core_the_jobs_run_one_after_another(tmp_path, stand_ins):
    jobs = [Job("t1", timing=True), Job("a")]
    run_all(jobs, tmp_path, cores=1, progress=False)
    assert [j.n_jobs for j in jobs] == [1, 1]


def test_reproduce_json_gives_per_experiment_times_memory_and_failures(tmp_path, stand_ins):
    jobs = [Job("a"), Job("broken"), Job("a", variant="authors")]
    run_all(jobs, tmp_path, cores=2, progress=False)
    out = summary(jobs, 12.0, 1.0, tmp_path)
    assert out["failed"] == ["broken"]
    runs = {r["experiment"]: r for r in out["paper_experiments"]["runs"]}
    assert runs["a"]["peak_rss_bytes"] == {"driver": 100, "workers": 50} and runs["a"]["n_cases"] == 3
    assert len(out["variants"]["runs"]) == 1 and out["variants"]["runs"][0]["variant"] == "authors"
    assert out["machine"] and "code_version" in out["git"]
    json.dumps(out, default=str)


def test_the_cli_refuses_an_unknown_experiment(capsys):
    with pytest.raises(SystemExit) as err:
        reproduce.main(["--only", "nope", "--dry-run"])
    assert err.value.code == 2 and "not a paper experiment: nope" in capsys.readouterr().err
    assert reproduce.main(["--only", "exp1_triplets", "--dry-run"]) == 0
    assert "experiment=exp1_triplets" in capsys.readouterr().out


def test_a_timing_experiment_runs_one_case_at_a_time_whatever_n_jobs_says(monkeypatch):
    import ccexp.__main__ as main_mod
    from ccexp.runner.compose import compose_config

    require_experiment_data("agg_scalability", "ci")  # run() builds the first instance before the sweep
    seen = {}

    def fake_sweep(spec, results, options=None, code=None):
        seen["n_jobs"] = options.n_jobs
        raise SystemExit(0)

    monkeypatch.setattr(main_mod, "run_sweep", fake_sweep)
    ov = ["experiment=agg_scalability", "experiment.scale=ci", "runner.n_jobs=2", "tracking=off"]
    with pytest.raises(SystemExit):
        main_mod.run(compose_config(ov), ov)
    assert seen["n_jobs"] == 1


_DRIVER = r'''
import json, os, pathlib, signal, sys
# a process started with SIGINT ignored (an xdist worker, a background job of a shell) passes that on and
# Python then installs no KeyboardInterrupt handler: give the driver the one a terminal's python has
signal.signal(signal.SIGINT, signal.default_int_handler)
from ccexp import reproduce

def command(job, results, n_jobs):
    """A stand-in experiment: writes its pid, then waits; SIGTERM ends it as it ends a sweep (run.json)."""
    out = results / job.experiment / job.label
    code = ("import json, os, pathlib, signal, sys, time\n"
            f"p = pathlib.Path({str(out)!r}); p.mkdir(parents=True, exist_ok=True)\n"
            "def stop(signum, frame):\n"
            "    (p / 'run.json').write_text(json.dumps({'status': 'interrupted', 'signum': signum}))\n"
            "    os._exit(128 + signum)\n"
            "signal.signal(signal.SIGTERM, stop)\n"
            "signal.signal(signal.SIGINT, stop)\n"
            "(p / 'pid').write_text(str(os.getpid()))\n"
            "time.sleep(300)\n")
    return [sys.executable, "-c", code]

reproduce._command = command
reproduce._INTERRUPT_GRACE = 2.0  # a SIGINT to the driver alone: the stand-ins wait 2 s, not 10, for SIGTERM
sys.exit(reproduce.main(["--results", sys.argv[1], "--jobs", "2", "--no-progress",
                         "--only", "exp1_triplets", "coprf_perfect", "recon_runtime"]))
'''


@pytest.mark.parametrize("signum, group", [(signal.SIGTERM, False), (signal.SIGINT, False), (signal.SIGINT, True)],
                         ids=["kill", "sigint-to-the-driver", "ctrl-c-at-a-terminal"])
def test_a_signal_to_the_reproduction_stops_its_experiments_and_says_so(tmp_path, signum, group):
    """``kill`` (or Ctrl-C) of ``python -m ccexp.reproduce``, real processes: the experiments running then are
    stopped as a sweep is stopped (each writes its run.json), none is left computing, reproduce.json says
    ``interrupted`` and the exit status is the shell's for the signal.  (SIGTERM used to end only the driver:
    its experiments ran on, orphaned.)  Ctrl-C at a terminal reaches the whole process group: the experiments
    then stop on their own signal and are not sent a second one."""
    results = tmp_path / "r"
    proc = subprocess.Popen([sys.executable, "-c", _DRIVER, str(results)], stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    pids = [results / name / "paper" / "pid" for name in ("recon_runtime", "coprf_perfect")]
    deadline = time.time() + 60
    while not all(p.exists() and p.read_text() for p in pids) and time.time() < deadline:
        time.sleep(0.05)
    assert all(p.exists() for p in pids), "the two experiments did not start"
    children = [int(p.read_text()) for p in pids]
    if group:
        os.killpg(proc.pid, signum)  # as a terminal's Ctrl-C: the driver and every experiment
    else:
        proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, err
    assert f"interrupted ({signal.Signals(signum).name}); 0 of 3 experiments ended" in err
    for pid in children:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # gone, not orphaned
    out = json.loads((results / "reproduce.json").read_text())
    assert out["status"] == "interrupted"
    runs = {r["experiment"]: r for r in out["paper_experiments"]["runs"]}
    stopped_by = signum if group else signal.SIGTERM  # their own Ctrl-C, or the SIGTERM passed on
    assert runs["recon_runtime"]["returncode"] == runs["coprf_perfect"]["returncode"] == 128 + stopped_by
    assert runs["exp1_triplets"]["returncode"] is None  # never started
    for name in ("recon_runtime", "coprf_perfect"):
        run = json.loads((results / name / "paper" / "run.json").read_text())
        assert run["status"] == "interrupted" and run["signum"] == stopped_by
