"""A checkout composes its own ``conf/``, whatever checkout the environment's editable install points at.

``setup.py`` installs ``conf/`` as the package ``ccexp.conf``; an editable
install maps that name to its own checkout for any ``ccexp`` on the path.
Before :func:`ccexp._installed.bind_checkout_conf`, a second clone run with
the same environment (``python -m ccexp`` from its folder, or on
``PYTHONPATH``) composed the *first* clone's configs while its records and
``run.json`` named the second clone's commit: a rerun of an old commit
silently ran today's configuration (found rerunning agg_scalability at
d6a4320, whose wrapped algorithm then visited the items in today's random
order instead of that commit's file order).

The test copies the package and a changed ``conf/`` into a fresh folder
(a second checkout) and runs real processes there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ccexp

ROOT = Path(ccexp.__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def second_checkout(tmp_path_factory) -> Path:
    """A copy of this checkout's package and configs whose exp1_triplets runs 3 trials (10 here)."""
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("ccexp is installed from a wheel here, not run from a checkout")
    other = tmp_path_factory.mktemp("second_checkout")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
    shutil.copytree(ROOT / "ccexp", other / "ccexp", ignore=ignore)
    shutil.copytree(ROOT / "conf", other / "conf", ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", other / "pyproject.toml")
    yaml = other / "conf" / "experiment" / "exp1_triplets.yaml"
    text = yaml.read_text()
    assert "\n  trials: 10\n" in text  # the value this test changes
    yaml.write_text(text.replace("\n  trials: 10\n", "\n  trials: 3\n"))
    return other


def _python(code: str, cwd: Path, pythonpath: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip().splitlines()[-1]


COMPOSE = ("import ccexp; from importlib import resources; from ccexp.runner.compose import compose_config; "
           "cfg = compose_config(['experiment=exp1_triplets']); "
           "print(ccexp.__file__, resources.files('ccexp.conf'), cfg.experiment.trials)")


@pytest.mark.parametrize("how", ["PYTHONPATH", "cwd"])
def test_a_second_checkout_composes_its_own_conf(second_checkout, how):
    # on PYTHONPATH from elsewhere, or from its own folder as `python -m ccexp` puts it first on sys.path
    # (`python -c` puts its folder first on sys.path, as `python -m` does)
    cwd, pythonpath = (second_checkout.parent, str(second_checkout)) if how == "PYTHONPATH" else (second_checkout, None)
    package, conf, trials = _python(COMPOSE, cwd, pythonpath).split()
    assert Path(package).resolve() == (second_checkout / "ccexp" / "__init__.py").resolve()
    assert Path(conf).resolve() == (second_checkout / "conf").resolve()
    assert trials == "3"


def test_this_checkout_still_composes_its_own_conf():
    package, conf, trials = _python(COMPOSE, ROOT, None).split()
    assert Path(conf).resolve() == (ROOT / "conf").resolve()
    assert trials == "10"


def test_the_cli_of_a_second_checkout_runs_its_own_experiment_config(second_checkout):
    # the command a user types in the second clone: --cfg job prints the composed config, nothing runs
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-m", "ccexp", "+experiment=exp1_triplets", "--cfg", "job"],
                          cwd=second_checkout, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "\n  trials: 3\n" in proc.stdout
