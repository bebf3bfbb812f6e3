"""What a run may not ask for is refused in one line before anything runs (issue 33).

Before, each of these ran (or crashed) as the issue describes it:

- ``experiment.sweep.dataset.k=4``: ``TypeError: 'int' object is not iterable`` (a traceback);
- ``experiment.sweep.dataset.k=[]``: "0 cases" and exit 0;
- ``experiment.trials=${foo}``: ``omegaconf.errors.InterpolationKeyError`` (a traceback);
- ``experiment.name=agg_outliers`` stored agg_robustness's records as agg_outliers; ``../../x`` a traceback;
- ``+foo.bar=1``, ``+experiment.foo=1``, ``+tracking.foo=1``, ``+paths.foo=1``: accepted and ignored;
  ``+runner.foo=1``: ``TypeError`` from run_sweep;
- ``experiment.trials=10000000000000``: nothing printed, memory past 6 GB;
- ``dataset.n=5000`` with all triplets: numpy asked for 155 GiB in a worker and the sweep aborted;
- a dataset without what the oracle needs: a ``ValueError`` in a worker, the sweep aborted;
- an instance that cannot be built (out of memory): the sweep aborted instead of recording it;
- a read-only results folder, a file where a folder belongs, a symlink loop, a full disk: tracebacks;
- a data file with a wrong checksum: a ``ValueError`` traceback;
- ``runner=dask runner.address=<dead>``: 35 s, then a raw ``OSError``;
- ``-m`` with a sweep value: "add --multirun" with the flag already there.
"""

from __future__ import annotations

import errno
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import ccexp.__main__ as cli
from ccexp.runner.compose import ConfigError, compose_config
from ccexp.runner.config import experiment_cases, resolve_run, with_algorithm_choice
from ccexp.runner.grid import count_cases, expand
from ccexp.runner.preflight import check_dask_address, check_instances, check_results_folder
from ccexp.runner.sweep import RunnerOptions, run_sweep, sweep_spec

from _sweeps import DATASET, ORACLE, SMALL
from conftest import require_data

EXP1 = ["experiment=exp1_triplets", "experiment.scale=ci"]


def _refused(*extra, base=EXP1) -> str:
    ov = with_algorithm_choice([*base, *extra])
    with pytest.raises(ConfigError) as err:
        resolve_run(compose_config(ov), ov)
    msg = str(err.value)
    assert "\n" not in msg
    return msg


# --- the grid ----------------------------------------------------------------------------------------


def test_a_swept_key_takes_a_nonempty_list():
    assert "a swept key takes a list of values (write experiment.sweep.dataset.k=[4])" in _refused(
        "experiment.sweep.dataset.k=4")
    assert "experiment.sweep.dataset.k=[] sweeps no value, so the grid would run no case" in _refused(
        "experiment.sweep.dataset.k=[]")


def test_a_grid_of_several_sweeps_names_the_grid():
    msg = _refused("experiment.sweep.1.oracle.budget=[]", base=["experiment=cross_supervision", "experiment.scale=ci"])
    assert msg.startswith("experiment.sweep.1.oracle.budget=[] sweeps no value")


def test_an_interpolation_to_a_missing_key_is_one_line():
    assert _refused("experiment.trials=${foo}") == "experiment.trials: Interpolation key 'foo' not found"


@pytest.mark.parametrize("name", ["agg_outliers", "../../x"])
def test_experiment_name_cannot_be_set(name):
    msg = _refused(f"experiment.name={name}", base=["experiment=agg_robustness", "experiment.scale=ci"])
    assert "experiment.name cannot be set" in msg and "experiment=NAME" in msg


@pytest.mark.parametrize(("override", "words"), [
    ("+foo.bar=1", "+foo.bar=1: nothing in ccexp reads 'foo'"),
    ("+experiment.foo=1", "+experiment.foo=1: no part of ccexp reads experiment.foo"),
    ("+runner.foo=1", "+runner.foo=1: no part of ccexp reads runner.foo; the runner's keys are n_jobs"),
    ("+tracking.foo=1", "+tracking.foo=1: no part of ccexp reads tracking.foo"),
    ("+paths.foo=1", "+paths.foo=1: no part of ccexp reads paths.foo"),
    ("++experiment.preset=x", "no part of ccexp reads experiment.preset"),
])
def test_a_key_nothing_reads_is_refused_with_or_without_plus(override, words):
    assert words in _refused(override)


def test_keys_the_experiment_yaml_declares_are_read():
    """acc_kmeans_init's own ``preset`` variable (read by its interpolations) may be set; issue 28's variants too."""
    ov = ["experiment=acc_kmeans_init", "experiment.scale=ci", "experiment.preset=authors"]
    spec = resolve_run(compose_config(ov), ov)
    assert {c.params["preset"] for c in spec.cases() if c.algorithm.startswith("acc_")} == {"authors"}


def test_a_grid_too_large_for_memory_is_refused_with_the_estimate():
    t0 = time.perf_counter()
    msg = _refused("experiment.trials=10000000000000")
    assert time.perf_counter() - t0 < 60  # refused from the count, not after expanding (a guard against a hang)
    assert "cases (trials=10000000000000); holding them alone takes about" in msg and "available" in msg


def test_the_case_count_bounds_every_experiments_grid():
    for name in cli.list_experiments():
        experiment, cases = experiment_cases(name, "ci")
        assert count_cases(experiment) >= len(cases) > 0, name


def test_a_large_grid_shows_its_progress_while_it_expands(capsys):
    experiment = dict(SMALL, trials=3)
    cases = expand(experiment, DATASET, ORACLE, progress=count_cases(experiment))
    err = capsys.readouterr().err
    assert "small: expanding the grid" in err and f"/{count_cases(experiment)}" in err
    assert len(cases) <= count_cases(experiment)


def test_multirun_jobs_are_hydras_split():
    jobs = cli._multirun_jobs(["experiment=exp1_triplets", "experiment.scale=ci,quick", "experiment.trials=1"])
    assert jobs == [["experiment=exp1_triplets", "experiment.scale=ci", "experiment.trials=1"],
                    ["experiment=exp1_triplets", "experiment.scale=quick", "experiment.trials=1"]]


# --- before the first case: the data, the memory, the folder ----------------------------------


def test_a_dataset_without_what_the_oracle_needs_is_refused_before_the_sweep():
    _, cases = experiment_cases("agg_robustness", "ci", ["dataset=synthetic_labels"])
    with pytest.raises(ConfigError, match="oracle 'clusterings_linkage' needs the dataset's features; dataset "
                                          "'synthetic_labels' has none"):
        check_instances(cases)


def test_a_case_too_large_for_memory_is_refused_with_the_estimate():
    _, cases = experiment_cases("exp1_triplets", "ci", ["dataset.n=5000", "experiment.sweep.oracle.fraction=[1.0]",
                                                         "experiment.sweep.dataset.k=[4]"])
    with pytest.raises(ConfigError) as err:
        check_instances(cases)
    msg = str(err.value)
    assert "(5,000 items) with oracle 'triplets'" in msg and "TiB of memory, more than the" in msg
    check_instances(cases[:1], available=2**60)  # fits a big enough machine


def test_an_instance_that_cannot_be_built_is_an_error_of_its_cases(tmp_path, monkeypatch):
    """Out of memory while drawing the supervision: recorded per case, the sweep goes on (it aborted)."""
    import ccexp.runner.execute as execute

    real = execute.build_problem

    def build(inst, targets=None):
        if inst.setting.get("dataset.k") == 4:
            raise MemoryError("Unable to allocate 155. GiB for an array with shape (20820835000,)")
        return real(inst, targets)

    monkeypatch.setattr(execute, "build_problem", build)
    res = run_sweep(sweep_spec(SMALL, DATASET, ORACLE), tmp_path, RunnerOptions(n_jobs=1, progress=False))
    df = res.records
    bad = df[df["dataset.k"] == 4]
    assert len(bad) and (bad["status"] == "error").all() and len(df) == res.n_cases
    assert bad["error"].str.startswith("MemoryError: Unable to allocate 155. GiB").all()
    assert bad["error"].str.contains("while building the instance").all()
    assert (df.loc[df["dataset.k"] == 2, "status"] == "ok").all()


def test_a_file_where_the_folder_belongs_and_a_symlink_loop(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="a file stands where a folder belongs"):
        check_results_folder(tmp_path / "file", tmp_path / "file" / "exp1_triplets" / "ci")
    os.symlink(tmp_path / "b", tmp_path / "a")
    os.symlink(tmp_path / "a", tmp_path / "b")
    with pytest.raises(ConfigError, match="a symbolic link loop"):
        check_results_folder(tmp_path / "a", tmp_path / "a" / "exp1_triplets" / "ci")


@pytest.mark.parametrize(("code", "words"), [(errno.EACCES, "permission denied"), (errno.EROFS, "read-only"),
                                             (errno.ENOSPC, "no space left on the device")])
def test_a_folder_the_run_cannot_write_is_refused(tmp_path, monkeypatch, code, words):
    """Simulated (tests run as root, who may write a read-only folder); the real one below when not root."""
    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code), str(tmp_path / "r"))

    monkeypatch.setattr("ccexp.runner.preflight.tempfile.mkstemp", refuse)
    with pytest.raises(ConfigError) as err:
        check_results_folder(tmp_path / "r", tmp_path / "r" / "x" / "ci")
    assert words in str(err.value) and "paths.results=" in str(err.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_folder_is_refused(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    with pytest.raises(ConfigError, match="permission denied"):
        check_results_folder(ro, ro / "exp1_triplets" / "ci")


def test_a_dead_dask_address_is_refused_in_seconds():
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    with pytest.raises(ConfigError, match=f"runner.address=tcp://127.0.0.1:{port}: no Dask scheduler answers"):
        check_dask_address(f"tcp://127.0.0.1:{port}", timeout=2)
    assert time.perf_counter() - t0 < 30  # a guard against the 35 s of before, not a timing claim
    with pytest.raises(ConfigError, match="write tcp://HOST:PORT"):
        check_dask_address("tcp://no-port")


# --- the command line: one line, exit 2 ------------------------------------------------------------


def _run_cli(overrides, capsys, monkeypatch):
    # run() sets CCEXP_DATA_DIR for its workers: restore it after the test, and never set it to ""
    # when it was unset (paths.data would then be "" and refused before the guard under test runs)
    if "CCEXP_DATA_DIR" in os.environ:
        monkeypatch.setenv("CCEXP_DATA_DIR", os.environ["CCEXP_DATA_DIR"])
    else:
        monkeypatch.delenv("CCEXP_DATA_DIR", raising=False)
    cfg = compose_config(overrides)
    with pytest.raises(SystemExit) as exc:
        cli.run_cli(cfg, overrides)
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert exc.value.code == 2 and len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


def test_a_full_disk_during_the_sweep_is_one_line(tmp_path, capsys, monkeypatch):
    from ccexp.runner.store import ResultStore

    def full(self, records):
        raise OSError(errno.ENOSPC, "No space left on device", str(self.parts_dir / "part-x.parquet"))

    monkeypatch.setattr(ResultStore, "append", full)
    line = _run_cli([*EXP1, "experiment.sweep.dataset.k=[4]", "experiment.sweep.oracle.fraction=[0.1]",
                     "experiment.algorithms=[ls_eq]", "tracking=off", "report=false", "runner.n_jobs=1",
                     "runner.progress=false", f"paths.results={tmp_path}"], capsys, monkeypatch)
    assert line.startswith("ccexp: error: no space left on the device (") and "rerun the same command" in line


def test_a_data_file_with_a_wrong_checksum_is_one_line(tmp_path, capsys, monkeypatch):
    src = require_data("iris/iris.data")
    data = tmp_path / "data"
    (data / "iris").mkdir(parents=True)
    shutil.copy(src, data / "iris" / "iris.data")
    with open(data / "iris" / "iris.data", "a") as fh:
        fh.write("5.0,3.0,1.5,0.2,Iris-setosa\n")
    line = _run_cli(["experiment=coprf_perfect", "experiment.scale=ci", "experiment.sweep.dataset.name=[iris]",
                     "experiment.algorithms=[spectral]", "tracking=off", "report=false", "runner.n_jobs=1",
                     f"paths.results={tmp_path / 'r'}", f"paths.data={data}"], capsys, monkeypatch)
    assert line.startswith("error: ") and "iris.data: sha256" in line and "does not match the original" in line
    assert not list((tmp_path / "r").rglob("records.parquet"))


@pytest.mark.slow
def test_multirun_runs_each_job_into_its_own_folder(tmp_path):
    """``-m`` with ``experiment.trials=1,2`` (refused before with "add --multirun", the flag being there)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    args = [*EXP1, "experiment.sweep.dataset.k=[4]", "experiment.sweep.oracle.fraction=[0.1]", "experiment.trials=1,2",
            "experiment.algorithms=[ls_eq]", "tracking=off", "report=false", "runner.n_jobs=1", "runner.progress=false",
            f"paths.results={tmp_path / 'r'}", "-m"]
    proc = subprocess.run([sys.executable, "-m", "ccexp", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folders = sorted((tmp_path / "r" / "exp1_triplets").iterdir())
    assert len(folders) == 2  # one results folder per job (two grids: 1 and 2 trials)
    assert sorted(len(pd.read_parquet(f / "records.parquet")) for f in folders) == [2, 4]
    assert not (tmp_path / "multirun").exists()  # Hydra's record of the multirun stays under the results folder
    assert list((tmp_path / "r" / "multirun").rglob("multirun.yaml"))


def test_a_key_under_a_swept_group_reaches_hydras_sweep_level_config_as_add_or_override():
    # Hydra composes a multirun's sweep-level config without the swept experiment=a,b (the root holds experiment:
    # null), where experiment.scale=ci failed: "Key 'experiment' is not in struct" (before this fix, exit 1)
    argv = ["experiment=agg_robustness,agg_outliers", "experiment.scale=ci", "runner.n_jobs=1", "-m",
            "algorithm.tie_break=stay", "+experiment.foo=1", "~experiment.trials"]
    assert cli._sweep_level_safe(argv) == ["experiment=agg_robustness,agg_outliers", "++experiment.scale=ci",
                                           "runner.n_jobs=1", "-m", "algorithm.tie_break=stay", "+experiment.foo=1",
                                           "~experiment.trials"]
    # no swept group: nothing to rewrite (experiment.scale=ci,quick is itself the sweep)
    argv = ["experiment=exp1_triplets", "experiment.scale=ci,quick", "experiment.trials=1", "-m"]
    assert cli._sweep_level_safe(argv) == argv


@pytest.mark.slow
def test_multirun_over_experiments_with_a_key_of_theirs(tmp_path):
    """``-m experiment=agg_robustness,agg_outliers experiment.scale=ci``: one ci folder per experiment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    args = ["-m", "experiment=agg_robustness,agg_outliers", "experiment.scale=ci", "tracking=off", "report=false",
            "runner.n_jobs=1", "runner.progress=false", f"paths.results={tmp_path / 'r'}"]
    proc = subprocess.run([sys.executable, "-m", "ccexp", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = {f.parent.parent.name: len(pd.read_parquet(f)) for f in (tmp_path / "r").rglob("ci/records.parquet")}
    expected = {name: len(experiment_cases(name, "ci")[1]) for name in ("agg_robustness", "agg_outliers")}
    assert got == expected and all(expected.values())
    # a key that is not there is still refused in one line, before any job runs
    bad = subprocess.run([sys.executable, "-m", "ccexp", *[a.replace("scale", "scal") for a in args]], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600, env=env)
    assert bad.returncode == 2 and bad.stderr.strip().startswith("ccexp: error: Could not override 'experiment.scal'")


def test_a_folder_named_ccexp_in_the_current_folder_is_named_not_read_as_the_package(tmp_path):
    """Running from the folder that holds a clone: "valid algorithms are:" with an empty list, before."""
    (tmp_path / "ccexp" / "ccexp").mkdir(parents=True)  # a clone: the repository folder, no __init__.py
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_") and k != "PYTHONPATH"}
    probe = subprocess.run([sys.executable, "-c", "import ccexp; print(getattr(ccexp, '__file__', None))"],
                           cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    if probe.stdout.strip() != "None":
        pytest.skip("this install's ccexp is not shadowed by a folder of the current directory (not an editable one)")
    for module in ("ccexp",):  # ccexp.report, ccexp.data and ccexp.list call the same refuse_if_shadowed
        proc = subprocess.run([sys.executable, "-m", module, "experiment=exp1_triplets" if module == "ccexp" else "all"],
                              cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert proc.returncode == 2 and len(lines) == 1, proc.stderr
        assert f"the folder {tmp_path / 'ccexp'} (no __init__.py: a clone of the repository?) shadows" in lines[0]


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; the guard is prctl's")
def test_a_killed_driver_takes_its_workers_with_it(tmp_path):
    """Issue 33, item 15: after ``kill -9`` of the driver its loky workers were still alive 5.5 minutes later."""
    # two long cases (the exact solver on 80 items, up to 10 minutes each): the workers are busy when killed
    args = ["experiment=cc_gaps", "experiment.scale=ci", "experiment.algorithms=[cc_exact]",
            "experiment.sweep.0.dataset.n=[80]", "experiment.algorithm_params.cc_exact.time_limit=600",
            "runner.n_jobs=2", "tracking=off", "report=false", "runner.progress=false", f"paths.results={tmp_path}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    driver = subprocess.Popen([sys.executable, "-m", "ccexp", *args], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 300  # a guard against a hang on a loaded machine, not a timing claim
        while time.monotonic() < deadline and driver.poll() is None:
            workers = [p for p in _children(driver.pid)
                       if b"popen_loky" in Path(f"/proc/{p}/cmdline").read_bytes()]
            if len(workers) == 2:
                break
            time.sleep(0.5)
        assert len(workers) == 2, "the driver started no loky workers"
        # each has taken its first case (the guard is set as a case starts, right after ccexp, and with it
        # numba's llvmlite, is imported to unpickle it)
        while time.monotonic() < deadline and not all(
                b"llvmlite" in Path(f"/proc/{p}/maps").read_bytes() for p in workers if _alive(p)):
            time.sleep(0.5)
        time.sleep(2)
        everyone = _children(driver.pid)
        driver.kill()
        driver.wait()
        deadline = time.monotonic() + 60  # a worker still importing exits when its import ends
        while time.monotonic() < deadline and any(_alive(p) for p in everyone):
            time.sleep(0.5)
        left = {p: Path(f"/proc/{p}/cmdline").read_bytes()[:120] for p in everyone if _alive(p)}
        assert not left, f"processes of the driver outlived it: {left}"
    finally:
        driver.kill()
        for p in workers:
            if _alive(p):
                os.kill(p, 9)


def test_a_dead_dask_address_through_the_command_is_one_line(tmp_path, capsys, monkeypatch):
    # without the dask extra the command refuses earlier, naming the extra (tests/test_runner_dask.py);
    # .ci/run reruns this file once the extras are installed (it greps for importorskip)
    pytest.importorskip("distributed", reason="runner=dask needs the dask extra (pip install -e '.[dask]')")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    line = _run_cli([*EXP1, "runner=dask", f"runner.address=tcp://127.0.0.1:{port}", "tracking=off", "report=false",
                     f"paths.results={tmp_path}"], capsys, monkeypatch)
    assert line.startswith(f"ccexp: error: runner.address=tcp://127.0.0.1:{port}: no Dask scheduler answers")


def test_the_paths_printed_exist_from_where_the_user_stands(tmp_path, monkeypatch, caplog):
    """With hydra.job.chdir=true, Hydra runs the job in hydra.run.dir: a relative paths.results is under it, and
    the last line printed a relative path that did not exist from the user's folder (issue 33)."""
    import logging

    job = tmp_path / "job"
    job.mkdir()
    monkeypatch.chdir(job)  # what Hydra's chdir does before calling the task
    monkeypatch.setenv("CCEXP_DATA_DIR", os.environ.get("CCEXP_DATA_DIR", ""))
    ov = [*EXP1, "experiment.sweep.dataset.k=[4]", "experiment.sweep.oracle.fraction=[0.1]", "experiment.trials=1",
          "experiment.algorithms=[ls_eq]", "tracking=off", "report=false", "runner.n_jobs=1", "runner.progress=false",
          "paths.results=r"]
    with caplog.at_level(logging.INFO, logger="ccexp"):
        out = cli.run(compose_config(ov), ov)
    assert Path(out["directory"]).is_absolute() and Path(out["directory"]).parent.parent == job / "r"
    [line] = [m for m in caplog.messages if "records.parquet" in m and " -> " in m]
    printed = Path(line.rsplit(" -> ", 1)[1])
    monkeypatch.chdir(tmp_path)  # back where the user stands
    assert printed.is_absolute() and printed.is_file()


def test_a_swept_value_the_estimator_refuses_stops_the_run_before_its_first_case(tmp_path, capsys, monkeypatch):
    """Hydra reads `.inf` as the string '.inf' (its grammar writes `inf`). A sweep over it started, every case
    holding it failed, and the store died on the mixed column 38 s later (exit 1). Now the value is checked as
    the estimator's fit checks it, in one line, and no case runs."""
    line = _run_cli(["+experiment=acc_parameters", "experiment.scale=ci",
                     "experiment.sweep=[{oracle:{gamma:[0.4]},algorithm:{tau:[5,.inf]}}]",
                     "experiment.algorithms=[acc_maxexp]", "tracking=off", "report=false", "runner.n_jobs=1",
                     "runner.progress=false", f"paths.results={tmp_path}"], capsys, monkeypatch)
    assert line.startswith("ccexp: error: acc_parameters: algorithm 'acc_maxexp': The 'tau' parameter of ")
    assert "Got '.inf' instead." in line
    assert not list(tmp_path.rglob("*.parquet"))
    # the value Hydra's grammar does read as infinity runs
    from ccexp.runner.preflight import check_algorithm_values

    ov = ["experiment=acc_parameters", "experiment.scale=ci",
          "experiment.sweep=[{oracle:{gamma:[0.4]},algorithm:{tau:[5,inf]}}]", "experiment.algorithms=[acc_maxexp]"]
    spec = resolve_run(compose_config(ov), ov)
    cases = spec.cases()
    assert {c.params.get("tau") for c in cases} == {5, float("inf")}
    check_algorithm_values(cases, targets=spec.targets)
