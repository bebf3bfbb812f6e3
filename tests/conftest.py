import json
import os
import pathlib
import subprocess
import sys

import pytest
from filelock import FileLock

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))

# Tests never reach the network and never log to a user's MLflow server.
for var in ("MLFLOW_TRACKING_URI", "MLFLOW_REGISTRY_URI"):
    os.environ.pop(var, None)


def run_cli(args, cwd, timeout=900, env=None):
    """Run ``python -m ccexp ARGS`` in a subprocess; fail the test with its output on error.

    ``timeout`` guards against a hang; it is no timing check (the exp1 ci sweep took seven minutes at a
    load average of 18 on two cores, where 300 s used to be the limit).
    """
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "ccexp", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=full_env
    )
    if proc.returncode != 0:
        pytest.fail(f"python -m ccexp {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="session")
def committed_results() -> pathlib.Path:
    """``results/`` as committed (``git archive HEAD results``), not the working tree's.

    The README's main job is a paper-scale run that rewrites ``results/exp1_triplets/paper/`` with what the
    installed code gives, legitimately (issue 32): tests of the committed reports (the README blocks, the
    gate's causes) read them as committed.  Outside a git checkout (an unpacked sdist) the folder as it is.
    """
    from ccexp.report.__main__ import _committed_results  # the same extraction --check falls back on

    root = HERE.parent
    return _committed_results(root) or root / "results"


@pytest.fixture(scope="session")
def exp1_ci_run(tmp_path_factory):
    """The one end-to-end ``scale=ci`` run of exp1_triplets (report + embedded MLflow) of a session.

    Shared by the slow tier's CLI, MLflow and Ukkonen reproduction tests: they read its records, report and
    ``mlflow.db``, or rerun a copy of its finished folder (nothing left to run); none runs the sweep again.

    Under pytest-xdist (``-n``) every worker has its own session, so the first worker to get here runs the
    sweep into the temporary root the workers share, under a file lock, and the others wait for it and read
    its folder and saved output (pytest-xdist's documented recipe for a once-per-run fixture).
    """
    def run(out):
        return run_cli(
            ["+experiment=exp1_triplets", "experiment.scale=ci", f"paths.results={out}", "runner.n_jobs=2",
             "tracking=local"],
            cwd=out, timeout=900,  # a guard against a hang (not a timing check), generous for a loaded machine
        )

    if "PYTEST_XDIST_WORKER" not in os.environ:  # a plain session (no -n, or -p no:xdist)
        out = tmp_path_factory.mktemp("exp1_ci")
        return out, run(out)
    root = tmp_path_factory.getbasetemp().parent  # shared by the workers of this run
    out, saved = root / "exp1_ci", root / "exp1_ci.json"
    with FileLock(str(root / "exp1_ci.lock")):
        if not saved.is_file():
            out.mkdir(exist_ok=True)
            proc = run(out)
            saved.write_text(json.dumps({"args": proc.args, "stdout": proc.stdout, "stderr": proc.stderr}))
    done = json.loads(saved.read_text())
    return out, subprocess.CompletedProcess(done["args"], 0, done["stdout"], done["stderr"])


def load_script(relpath: str, name: str | None = None):
    """Import a script of the repository that is not a package module (``scripts/x.py``, ``experiments/<paper>/x.py``)."""
    import importlib.util

    path = pathlib.Path(__file__).resolve().parents[1] / relpath
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def require_data(relpath: str) -> pathlib.Path:
    """The path of a real data file under $CCEXP_DATA_DIR, or skip naming the file."""
    from ccexp.data.files import data_dir

    path = data_dir() / relpath
    if not path.is_file():
        pytest.skip(f"needs the data file {relpath} under CCEXP_DATA_DIR={data_dir()} (set CCEXP_DATA_DIR, or run `python -m ccexp.data fetch`)")
    return path


def experiment_data_files(name: str, scale: str | None = None, overrides=()) -> list[str]:
    """The real data files (``<dataset>/<file>``) that experiment ``name`` reads at ``scale``."""
    from ccexp.data.manifest import build_manifest, select
    from ccexp.runner.config import experiment_cases

    _, cases = experiment_cases(name, scale, overrides)
    manifest = build_manifest()
    known = {d for e in manifest.values() for d in e.datasets}
    names = sorted({str(c.instance.dataset.get("name")) for c in cases} & known)
    return [relpath for relpath, e in select(manifest, names).items() if not e.source_only] if names else []


def require_experiment_data(name: str, scale: str | None = None, overrides=()) -> None:
    """Skip, naming the first missing file, unless every data file of the experiment's grid is there."""
    for relpath in experiment_data_files(name, scale, overrides):
        require_data(relpath)
