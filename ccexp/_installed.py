"""Where the files that ship beside the code are: in a checkout, or in an installed wheel.

A checkout (``pip install -e .``, or the source tree on ``sys.path``) reads
``experiments/<paper>/`` and ``results/<experiment>/paper/run.json`` at the
project root.  A wheel carries them as ``ccexp/experiments/`` and
``ccexp/paper_runs/<experiment>/paper/run.json`` (``setup.py`` maps the
folders), since an installed package has no project root beside it: its
reports, reproduction page and ``--help`` read them from there (issue 32).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def project_root() -> Path | None:
    """The checkout this package is imported from, or None for an installed wheel.

    The folder above the package counts only when it holds this project's
    ``pyproject.toml`` and ``conf/config.yaml``: a site-packages folder never
    does, whatever other packages put there.
    """
    root = _PACKAGE.parent
    if (root / "pyproject.toml").is_file() and (root / "conf" / "config.yaml").is_file():
        return root
    return None


def bind_checkout_conf() -> Path | None:
    """Make ``ccexp.conf`` this checkout's ``conf/``; return that folder (None for a wheel, or if already imported).

    ``conf/`` sits at the project root and becomes the package ``ccexp.conf``
    only through installation (``setup.py``'s ``package_dir``).  An editable
    install maps the name to *its* checkout for every ``ccexp`` on the path,
    so a second clone run with the same environment (``python -m ccexp``
    from its folder, or on ``PYTHONPATH``) would compose the first clone's
    configs while ``run.json`` records the second clone's commit.  A checkout
    therefore binds the name to its own folder before anything imports it,
    as :func:`experiments_dir` and :func:`paper_run` read the checkout's own
    files; a wheel keeps the installed copy.
    """
    root = project_root()
    if root is None or "ccexp.conf" in sys.modules:
        return None
    conf = root / "conf"
    spec = importlib.util.spec_from_file_location("ccexp.conf", conf / "__init__.py",
                                                  submodule_search_locations=[str(conf)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["ccexp.conf"] = module
    spec.loader.exec_module(module)
    return conf


def experiments_dir() -> Path:
    """The folder of ``<paper>/reference.csv`` and ``<paper>/README.md`` (checkout, else the wheel's copy)."""
    root = project_root()
    return root / "experiments" if root is not None else _PACKAGE / "experiments"


def paper_run(name: str) -> dict | None:
    """The ``run.json`` of the committed paper-scale report of experiment ``name``, or None.

    In a checkout, ``results/<name>/paper/run.json`` as it is on disk (a
    user's own paper-scale run rewrites it); in a wheel, the copy made when
    the wheel was built.
    """
    root = project_root()
    base = root / "results" if root is not None else _PACKAGE / "paper_runs"
    path = base / name / "paper" / "run.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def format_seconds(seconds: float) -> str:
    """A wall time as the README's run-time table prints it.

    Under 10 s with one decimal, under 90 s in whole seconds, under 100 min
    in minutes with one decimal, else in whole minutes.

    Examples
    --------
    >>> format_seconds(9.04), format_seconds(38.5), format_seconds(402.3), format_seconds(6182)
    ('9.0 s', '39 s', '6.7 min', '103 min')
    """
    def half_up(x: float, digits: int) -> str:  # 38.5 s -> 39 s, as a person rounds (format() rounds to even)
        return str(Decimal(repr(x)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))

    if seconds < 10:
        return f"{half_up(seconds, 1)} s"
    if seconds < 90:
        return f"{half_up(seconds, 0)} s"
    if seconds < 6000:
        return f"{half_up(seconds / 60, 1)} min"
    return f"{half_up(seconds / 60, 0)} min"


def paper_time(name: str) -> str | None:
    """``"6,468 cases, 6.7 min"``: the size and wall clock of ``name``'s committed paper run, or None."""
    run = paper_run(name)
    if not run or run.get("wall_seconds") is None:
        return None
    return f"{int(run.get('n_cases') or 0):,} cases, {format_seconds(float(run['wall_seconds']))}"
