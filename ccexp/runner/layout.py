"""Where an experiment's results go: ``<results>/<experiment>/<scale>/``.

Results are keyed by scale so that a quick or ci run never touches the
paper-scale reports (``results/<experiment>/paper/``, the only scale folder
tracked by git).  A grid changed by an ``experiment.*`` override is no longer
the preset of its scale: it is written under ``<scale>+custom-<hash>``, the
hash being that of the scaled experiment config, so two different custom
grids never share a folder and none of them is mistaken for the preset.
"""

from __future__ import annotations

from pathlib import Path

#: The scale whose reports are committed and read by ``results/REPRODUCTION.md``.
PAPER_SCALE = "paper"
#: Marks a scale folder whose grid was changed by overrides.
CUSTOM_MARK = "+custom-"


def scale_label(scale: str, custom_hash: str | None = None) -> str:
    """The folder name of a scale: ``scale``, or ``scale+custom-<hash>`` for a changed grid.

    Examples
    --------
    >>> scale_label("ci")
    'ci'
    >>> scale_label("quick", "0123abcd")
    'quick+custom-0123abcd'
    """
    if not scale or "/" in scale or scale.startswith("."):
        raise ValueError(f"scale must be a plain folder name, got {scale!r}")
    return scale if custom_hash is None else f"{scale}{CUSTOM_MARK}{custom_hash}"


def experiment_dir(results: str | Path, name: str, scale: str) -> Path:
    """The folder of one experiment at one scale (label): ``results/name/scale``.

    Parameters
    ----------
    results : path
        The results root (``paths.results``).
    name : str
        Experiment name.
    scale : str
        A scale (``paper``, ``quick``, ``ci``) or a label from :func:`scale_label`.

    Examples
    --------
    >>> experiment_dir("results", "exp1_triplets", "paper").as_posix()
    'results/exp1_triplets/paper'
    """
    if not name or "/" in name:
        raise ValueError(f"experiment name must be a plain folder name, got {name!r}")
    scale_label(scale.split(CUSTOM_MARK)[0])  # validates
    return Path(results) / name / scale


def scales_present(results: str | Path, name: str) -> list[str]:
    """The scale folders of ``name`` under ``results`` that hold records or a report, paper first."""
    root = Path(results) / name
    if not root.is_dir():
        return []
    found = [p.name for p in root.iterdir() if p.is_dir() and any(
        (p / f).exists() for f in ("records.parquet", "parts", "comparison.csv", "run.json"))]
    return sorted(found, key=lambda s: (s != PAPER_SCALE, s))
