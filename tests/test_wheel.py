"""ccexp as a package: a wheel, installed into a fresh venv outside the repository (issue 32, item 4).

The slow test builds the wheel from a clone of the committed tree with
``python -m build``, installs it with pip into a new virtual environment,
makes that environment's site-packages read-only (a read-only bind mount
in a mount namespace of its own: as root, file modes alone do not stop a
write), and then, from an empty folder, runs what a user of the package
runs: the ``ccexp`` console script at ``scale=ci``, the report, the help
page, and a run with the example plugin installed beside it.  Everything
must come from the installed package (configs, each paper's
``reference.csv`` and README, the paper runs' ``run.json``); results go to
``./results`` of that folder; numba's cache goes to the user's cache folder
(``ccexp/_kernel_cache.py``) and the second run loads every kernel from it (``NUMBA_DEBUG_CACHE``
shows no kernel saved again).  The wall times of the two runs are printed
(``-s``), never asserted.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from ccexp._installed import format_seconds

ROOT = Path(__file__).resolve().parents[1]

#: run argv with ``site`` mounted read-only, in a mount namespace of its own (needs root, as CI is)
_READ_ONLY = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"'


def _read_only_works(tmp: Path) -> str | None:
    """None when a read-only bind mount can be made here, else why not."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return "needs unshare and mount (util-linux)"
    probe = tmp / "probe"
    probe.mkdir()
    proc = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", _READ_ONLY, "sh", str(probe),
                           "touch", str(probe / "x")], capture_output=True, text=True)
    if proc.returncode == 0 or "Read-only file system" not in proc.stderr:
        return f"cannot make a read-only bind mount here (unshare --mount as root): {proc.stderr.strip()[:200]}"
    return None


def _run(args, cwd, env, site=None, timeout=1200):
    """``args`` in ``cwd``; with ``site``, that folder read-only for the command."""
    if site is not None:
        args = ["unshare", "--mount", "--propagation", "private", "sh", "-c", _READ_ONLY, "sh", str(site), *args]
    t0 = time.perf_counter()
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    proc.seconds = time.perf_counter() - t0
    assert proc.returncode == 0, f"{args}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.mark.slow
def test_the_wheel_runs_from_an_empty_folder_with_a_read_only_site_packages(tmp_path):
    why = _read_only_works(tmp_path)
    if why:
        pytest.skip(why)
    pytest.importorskip("build", reason="python -m build needs the build package (pip install -e '.[dev]')")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MLFLOW_", "CCEXP_", "NUMBA_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"))  # numba's user-wide cache

    # the wheel, from the committed tree as a clone has it
    source = tmp_path / "source"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(source)], check=True)
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", tmp_path / "dist", source], tmp_path,
         {**env, "PATH": os.environ["PATH"]})
    [wheel] = (tmp_path / "dist").glob("ccexp-*.whl")

    # a fresh venv outside the repository, the wheel and the example plugin installed by pip
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python, bindir = venv / "bin" / "python", venv / "bin"
    env["PATH"] = f"{bindir}{os.pathsep}{os.environ['PATH']}"
    _run([python, "-m", "pip", "install", "--quiet", wheel], tmp_path, env)
    _run([python, "-m", "pip", "install", "--quiet", source / "examples" / "ccexp_plugin_example"], tmp_path, env)
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True, env=env).stdout.strip())
    assert site.is_relative_to(venv) and not site.is_relative_to(ROOT)
    package = site / "ccexp"
    assert (package / "experiments" / "ukkonen2017" / "reference.csv").is_file()
    assert (package / "experiments" / "ukkonen2017" / "ablations.csv").is_file()  # what --check holds a measured row to
    assert (package / "experiments" / "aronsson2024" / "fresh_seeds.csv").is_file()  # ... and a chance row to
    assert (package / "conf" / "experiment" / "exp1_triplets.yaml").is_file()
    before = sorted(p.relative_to(site) for p in site.rglob("*"))

    work = tmp_path / "work"  # the user's empty folder
    work.mkdir()
    ci = ["experiment.scale=ci", "runner.n_jobs=1", "runner.progress=false"]
    first = _run([bindir / "ccexp", "experiment=exp1_triplets", *ci], work, env, site)
    out = work / "results" / "exp1_triplets" / "ci"
    assert (out / "records.parquet").is_file() and (work / "results" / "mlflow.db").is_file()
    comparison = (out / "comparison.md").read_text()
    # the paper's numbers came from the installed reference.csv: rows judged, none "not run" for want of them
    assert re.search(r"verdicts: \d+ reproduced", comparison) and "reference numbers not found" not in comparison
    cache = tmp_path / "cache" / "ccexp" / "numba"  # $XDG_CACHE_HOME/ccexp/numba/kernels-<fingerprint>
    assert list(cache.rglob("*.nbi")), "numba cached nothing in the user's cache folder"

    # again, into another results folder (every case runs): every kernel comes from the cache
    second = _run([bindir / "ccexp", "experiment=exp1_triplets", *ci, "paths.results=results2"], work,
                  {**env, "NUMBA_DEBUG_CACHE": "1"}, site)
    debug = second.stdout + second.stderr
    assert "[cache] data loaded from" in debug
    saved = [line for line in debug.splitlines() if "[cache] data saved to" in line]
    assert saved == [], f"the second run compiled {len(saved)} kernels again, e.g. {saved[:3]}"
    print(f"\nwheel: first run {first.seconds:.1f} s (numba compiles into {cache}), "
          f"second run {second.seconds:.1f} s (every kernel from the cache)")

    # the report and the reproduction page, from the stored records and the installed reference numbers
    report = _run([python, "-m", "ccexp.report", "all", "--scale", "ci"], work, env, site)
    assert "REPRODUCTION.md" in report.stdout and (work / "results" / "REPRODUCTION.md").is_file()
    assert "exp1_triplets" in (work / "results" / "REPRODUCTION.md").read_text()
    # the help page quotes the paper runs' run.json the wheel carries: the clone's committed one. Not
    # this checkout's file: the README's own set-up line (CI's first step) reruns exp1_triplets at paper
    # scale here and rewrites results/exp1_triplets/paper/run.json with its own wall time
    committed = json.loads((source / "results" / "exp1_triplets" / "paper" / "run.json").read_text())
    quoted = f"{int(committed['n_cases']):,} cases, {format_seconds(float(committed['wall_seconds']))}"
    help_page = _run([bindir / "ccexp", "--help"], work, env, site).stdout
    assert quoted in help_page and "not run" not in help_page.split("== Scales")[0], help_page

    # the example plugin's algorithm, in the experiment, from the installed packages
    run = _run([bindir / "ccexp", "experiment=exp1_triplets", "experiment.algorithms=[vote_linkage]", *ci,
                "tracking=off"], work, env, site)
    [records] = (work / "results" / "exp1_triplets").glob("ci+custom-*/records.parquet")
    rec = pd.read_parquet(records)
    assert set(rec["algorithm"]) == {"vote_linkage"} and (rec["status"] == "ok").all(), run.stderr[-2000:]
    assert set(rec["code_version"]) == {"0.1.0"}  # the package's version: no git checkout was asked

    # nothing was written into site-packages, and everything went where the user is
    assert sorted(p.relative_to(site) for p in site.rglob("*")) == before
    assert not list(work.glob("outputs")) and not list(work.glob("multirun"))
    assert {p.name for p in work.iterdir()} == {"results", "results2"}
