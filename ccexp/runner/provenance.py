"""What ran, where, on what code: the provenance written to ``run.json`` and to MLflow.

:func:`git_state` describes the code (commit, and whether tracked source files
differ from it), :func:`machine` the computer, :func:`package_versions` the
libraries, :func:`peak_rss` the memory high-water marks.  The sweep computes
them once, before any case runs, so the records, ``run.json`` and the MLflow
tags all carry the same ``code_version``.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import socket
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from .._installed import project_root
from .._version import __version__

#: distributions whose versions a run records
PACKAGES = ("ccexp", "numpy", "numba", "scipy", "scikit-learn", "pandas", "pyarrow", "joblib", "mlflow", "hydra-core",
            "omegaconf", "filelock")

#: paths a run itself writes inside a checkout (reports, CI records): not code, so never "dirty"
OUTPUT_PATHS = ("results", ".ci-results")


def _git(args: list[str], cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=True).stdout


def git_state(path: str | os.PathLike | None = None) -> dict:
    """The git state of the checkout holding ``path`` (default: this package).

    Returns ``{"commit", "dirty", "dirty_files", "code_version"}``; ``code_version`` is
    the 12-digit commit, with ``+dirty`` when a tracked file outside
    :data:`OUTPUT_PATHS` differs from it (untracked files do not count).
    Outside a git checkout: ``commit`` None and ``code_version`` the
    package version.

    The output folders are left out because a run writes its own reports
    there (``results/<experiment>/...`` is committed): counting them made a
    clean clone "dirty" half way through its first run (issue 12).
    """
    if path is None and project_root() is None:
        # an installed wheel: its version, whatever git checkout its environment happens to sit in
        return {"commit": None, "dirty": None, "dirty_files": [], "code_version": __version__}
    here = Path(path).resolve() if path is not None else Path(__file__).resolve().parent
    if here.is_file():
        here = here.parent
    try:
        top = Path(_git(["rev-parse", "--show-toplevel"], here).strip())
        commit = _git(["rev-parse", "--short=12", "HEAD"], top).strip()
        excludes = [f":(exclude){p}" for p in OUTPUT_PATHS]
        porcelain = _git(["status", "--porcelain", "--untracked-files=no", "--", ".", *excludes], top)
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None, "dirty_files": [], "code_version": __version__}
    dirty_files = [line[3:] for line in porcelain.splitlines() if line.strip()]
    return {"commit": commit, "dirty": bool(dirty_files), "dirty_files": dirty_files,
            "code_version": commit + ("+dirty" if dirty_files else "")}


def package_versions(names=PACKAGES) -> dict[str, str | None]:
    """Installed version of each distribution (None when not installed)."""
    out = {"python": sys.version.split()[0]}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def machine() -> dict:
    """Platform, host name, CPU model and count."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count()
    return {"platform": platform.platform(), "hostname": socket.gethostname(), "cpu_model": _cpu_model(),
            "cpu_count": os.cpu_count(), "cpu_usable": usable}


def peak_rss(who: int = resource.RUSAGE_SELF) -> int:
    """Peak resident set size in bytes of this process (``RUSAGE_SELF``) or of its ended children."""
    kib = resource.getrusage(who).ru_maxrss
    return int(kib if sys.platform == "darwin" else kib * 1024)  # macOS reports bytes, Linux KiB


def read_run_info(path: Path) -> dict | None:
    """The ``run.json`` at ``path``, or None when it is absent or unreadable."""
    try:
        info = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) else None


def earlier_runs(previous: dict | None) -> list[dict]:
    """The runs that made a folder's stored records, as its last ``run.json`` lists them.

    Each is ``{"started_at", "finished_at", "wall_seconds", "n_run",
    "code_version", "status"}``; a ``run.json`` written before the list
    existed stands for one run.  A run killed before it finished is there
    with the wall time of its last progress write (``status: running``).
    Their ``wall_seconds`` add up to the folder's: a rerun that finds every
    case done leaves ``run.json`` alone, and a resume adds its own time
    (issue 32; a rerun used to write the 0.4 s it took to find nothing to do).
    """
    if not previous:
        return []
    if isinstance(previous.get("runs"), list):
        return [dict(r) for r in previous["runs"] if isinstance(r, dict)]
    if previous.get("wall_seconds") is None:
        return []
    return [{"started_at": previous.get("started_at"), "finished_at": previous.get("finished_at"),
             "wall_seconds": previous.get("wall_seconds"), "n_run": previous.get("n_pending"),
             "code_version": previous.get("code_version"), "status": previous.get("status")}]


def total_wall_seconds(runs: list[dict]) -> float:
    """The summed wall time of ``runs`` (:func:`earlier_runs`), in seconds, to the millisecond."""
    return round(sum(float(r.get("wall_seconds") or 0.0) for r in runs), 3)
