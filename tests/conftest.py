import os
import pathlib
import subprocess
import sys

import pytest

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
def exp1_ci_run(tmp_path_factory):
    """The one end-to-end ``scale=ci`` run of exp1_triplets (report + embedded MLflow) of a session.

    Shared by the slow tier's CLI, MLflow and Ukkonen reproduction tests: they read its records, report and
    ``mlflow.db``, or rerun a copy of its finished folder (nothing left to run); none runs the sweep again.
    """
    out = tmp_path_factory.mktemp("exp1_ci")
    proc = run_cli(
        ["+experiment=exp1_triplets", "experiment.scale=ci", f"paths.results={out}", "runner.n_jobs=2", "tracking=local"],
        cwd=out, timeout=900,  # a guard against a hang (not a timing check), generous for a loaded machine
    )
    return out, proc


def require_data(relpath: str) -> pathlib.Path:
    """The path of a real data file under $CCEXP_DATA_DIR, or skip naming the file."""
    from ccexp.data.files import data_dir

    path = data_dir() / relpath
    if not path.is_file():
        pytest.skip(f"needs the data file {relpath} under CCEXP_DATA_DIR={data_dir()} (set CCEXP_DATA_DIR, or run `python -m ccexp.data fetch`)")
    return path
