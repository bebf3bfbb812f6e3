"""A missing data file ends a run with one line naming CCEXP_DATA_DIR and the fetch command (issue 12, item 8)."""

import pickle
import subprocess
import sys

import pytest

import ccexp
from ccexp.data import MissingDataError


def test_missing_file_error_is_one_actionable_line(tmp_path, monkeypatch):
    monkeypatch.setenv("CCEXP_DATA_DIR", str(tmp_path))
    with pytest.raises(MissingDataError) as err:
        ccexp.load_dataset("iris")
    msg = str(err.value)
    assert "\n" not in msg
    assert "iris/iris.data" in msg and "CCEXP_DATA_DIR" in msg
    assert "`python -m ccexp.data fetch --datasets iris`" in msg
    assert isinstance(err.value, FileNotFoundError)  # what callers caught before


def test_missing_data_error_survives_the_worker_boundary():
    """joblib re-raises a worker's exception in the driver after pickling it."""
    err = MissingDataError("iris: data file 'iris/iris.data' not found")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is MissingDataError and str(back) == str(err)


@pytest.mark.slow
def test_cli_prints_one_line_and_exits_2(tmp_path):
    data = tmp_path / "empty"
    data.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "ccexp", "+experiment=coprf_perfect", "experiment.scale=ci", "runner.n_jobs=2",
         "tracking=off", "report=false", f"paths.results={tmp_path / 'results'}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**__import__("os").environ, "CCEXP_DATA_DIR": str(data)},
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    assert "CCEXP_DATA_DIR" in errors[0] and "python -m ccexp.data fetch" in errors[0]
