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


def scale_label(scale: str, custom_hash: str | None = None, variant: str | None = None) -> str:
    """The folder name of a scale: ``scale``, ``scale+<variant>``, and ``+custom-<hash>`` for a changed grid.

    A named variant (``experiment.variant``, a setup the authors ran other
    than the paper's text) is a preset of its own: ``paper+authors`` is
    committed beside ``paper``.

    Examples
    --------
    >>> scale_label("ci")
    'ci'
    >>> scale_label("quick", "0123abcd")
    'quick+custom-0123abcd'
    >>> scale_label("paper", variant="authors"), scale_label("ci", "0123abcd", variant="authors")
    ('paper+authors', 'ci+authors+custom-0123abcd')
    """
    if not isinstance(scale, str) or not scale or "/" in scale or "\\" in scale or scale.startswith(".") or "+" in scale:
        raise ValueError(f"scale must be a plain folder name, got {scale!r}")
    label = scale
    if variant:
        if not isinstance(variant, str) or not variant.replace("_", "").isalnum():
            raise ValueError(f"variant must be a name of letters, digits and underscores, got {variant!r}")
        label += f"+{variant}"
    return label if custom_hash is None else f"{label}{CUSTOM_MARK}{custom_hash}"


def split_label(label: str) -> tuple[str, str | None, str | None]:
    """``(scale, variant, custom_hash)`` of a folder name made by :func:`scale_label`.

    >>> split_label("paper+authors"), split_label("ci+custom-0123abcd"), split_label("paper")
    (('paper', 'authors', None), ('ci', None, '0123abcd'), ('paper', None, None))
    """
    rest, _, custom = label.partition(CUSTOM_MARK)
    scale, _, variant = rest.partition("+")
    return scale, (variant or None), (custom or None)


def check_label(label: str) -> str:
    """``label`` if it is a scale folder name (``ci``, ``paper+authors``, ``paper+custom-0123abcd``); else ``ValueError``.

    >>> check_label("ci+custom-0123abcd"), check_label("paper+authors")
    ('ci+custom-0123abcd', 'paper+authors')
    """
    scale, variant, custom = split_label(str(label))
    scale_label(scale, variant=variant)
    if custom is not None and ("/" in custom or "\\" in custom or custom.startswith(".")):
        raise ValueError(f"scale must be a plain folder name, got {label!r}")
    return label


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
    check_label(scale)
    return Path(results) / name / scale


def scales_present(results: str | Path, name: str) -> list[str]:
    """The scale folders of ``name`` under ``results`` that hold records or a report, paper first."""
    root = Path(results) / name
    if not root.is_dir():
        return []
    found = [p.name for p in root.iterdir() if p.is_dir() and any(
        (p / f).exists() for f in ("records.parquet", "parts", "comparison.csv", "run.json"))]
    return sorted(found, key=lambda s: (s != PAPER_SCALE, s))


def has_records(folder: str | Path) -> bool:
    """Whether a scale folder holds records (consolidated or parts)."""
    folder = Path(folder)
    return (folder / "records.parquet").is_file() or any((folder / "parts").glob("part-*.parquet"))


def latest_label(results: str | Path, name: str, prefer_paper: bool = False, require: str | None = None) -> str | None:
    """The scale folder of ``name`` to read when none is given, or None.

    ``prefer_paper``: ``paper`` when it holds ``require`` (else records);
    otherwise the folder whose ``run.json`` (or ``require`` file) was written
    last: "the scale of the last run".
    """
    def ok(label: str) -> bool:
        folder = experiment_dir(results, name, label)
        return (folder / require).is_file() if require else has_records(folder)

    labels = [s for s in scales_present(results, name) if ok(s)]
    if not labels:
        return None
    if prefer_paper and PAPER_SCALE in labels:
        return PAPER_SCALE

    def written(label: str) -> float:
        folder = experiment_dir(results, name, label)
        stamp = folder / (require or "run.json")
        return stamp.stat().st_mtime if stamp.exists() else folder.stat().st_mtime

    return max(labels, key=written)


def variant_labels(results: str | Path, name: str, scale: str) -> list[str]:
    """The named-variant folders of ``name`` at ``scale`` (``paper+authors``, ...), sorted; no custom ones."""
    return sorted(label for label in scales_present(results, name)
                  if split_label(label)[0] == scale and split_label(label)[1] and not split_label(label)[2])
