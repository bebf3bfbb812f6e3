"""Reports: figures, tables and the comparison with each paper's numbers.

``make_report(name)`` reads ``results/NAME/SCALE/records.parquet`` and writes
``results/NAME/SCALE/figures/``, ``tables/``, ``comparison.md`` and
``report.md`` (the layout of :mod:`ccexp.runner.layout`); ``python -m ccexp.report NAME|all`` does the same from the
command line.  One function per experiment, registered in :data:`REPORTS`: it computes the
report as data (a :class:`ccexp.report.output.Report`: tables, figures, text, comparison rows) and
:func:`ccexp.report.output.write_report`, the one writer, renders it into the folder.

Figures are drawn on :class:`matplotlib.figure.Figure` objects rendered by
Agg, never through pyplot's global state, so a report neither opens windows
nor disturbs the backend of a notebook that calls it.
"""

from __future__ import annotations

import importlib
import json
import logging
import pkgutil
import sys
from pathlib import Path
from typing import Callable

import matplotlib
import pandas as pd

# Headless by default (CI, clusters); a session that already chose a pyplot
# backend keeps it, since our figures do not go through pyplot anyway.
if "matplotlib.pyplot" not in sys.modules:
    matplotlib.use("Agg")

from ..runner.layout import experiment_dir, latest_label, split_label  # noqa: E402
from ..runner.store import ResultStore  # noqa: E402
from ._files import REPORT_OUTPUTS, recover_report, replacing_report  # noqa: E402
from .common import read_grid  # noqa: E402
from .output import Report, write_report  # noqa: E402

log = logging.getLogger("ccexp.report")

#: Experiment name -> report function ``f(records, out_dir, scale, n_grid_instances=None) -> Report``
#: (``out_dir`` is read, for traces and a sibling experiment's records, never written), gathered from every paper module of this package (each defines its own ``REPORTS``),
#: so adding a paper's report never edits this file.
REPORTS: dict[str, Callable[..., "Report | None"]] = {}
#: Experiment name -> the paper it reproduces (the module's ``PAPER``, the folder under ``experiments/``).
PAPER_OF: dict[str, str] = {}
# modules that are not a paper's report (shared helpers and the reproduction page)
_NOT_PAPERS = {"causes", "common", "comparison", "joined", "output", "overview", "reference", "reference_check", "reproduction",
               "tables", "tolerance"}
for _info in pkgutil.iter_modules(__path__):
    if _info.name.startswith("_") or _info.name in _NOT_PAPERS:
        continue
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    for _name, _fn in getattr(_module, "REPORTS", {}).items():
        if _name in REPORTS:
            raise ValueError(f"report {_name!r} is defined twice")
        REPORTS[_name] = _fn
        PAPER_OF[_name] = getattr(_module, "PAPER", _info.name)

__all__ = ["PAPER_OF", "REPORTS", "REPORT_OUTPUTS", "Report", "in_fixed_order", "make_report", "read_grid", "read_scale",
           "read_records", "recover_report", "write_report"]


def read_scale(out_dir: Path) -> str:
    """The scale recorded by the runner in ``out_dir/run.json``; ``"paper"`` if absent."""
    path = Path(out_dir) / "run.json"
    if path.is_file():
        try:
            scale = json.loads(path.read_text()).get("scale")
        except (OSError, ValueError):
            scale = None
        if scale:
            return str(scale)
    return "paper"


def read_records(out_dir: Path) -> pd.DataFrame:
    """Records of one experiment folder: ``records.parquet`` plus unconsolidated parts.

    Parts are included so a report can be drawn while a sweep is still
    running (the store consolidates them only at the end).

    Raises
    ------
    FileNotFoundError
        If the folder holds neither ``records.parquet`` nor parts.
    """
    store = ResultStore(out_dir)
    if not store.has_records():
        raise FileNotFoundError(f"no records at {store.records_path}; run the experiment first (python -m ccexp experiment=...)")
    return store.load()


def make_report(
    name: str,
    results_dir: str | Path = "results",
    scale: str | None = None,
    records: pd.DataFrame | None = None,
    filter_to_grid: bool = True,
    label: str | None = None,
) -> Path:
    """Write the report of one experiment.

    Parameters
    ----------
    name : str
        Experiment name, a key of :data:`REPORTS`.
    results_dir : str or Path
        Results root; the report goes to ``results_dir/name/<label>``
        (:func:`ccexp.runner.layout.experiment_dir`).
    scale : str, optional
        Scale whose grid the report covers; default: that of ``label``, else
        of the scale folder written last ("the scale of the last run").
    records : DataFrame, optional
        Records to report on; default: read those of the folder.
    filter_to_grid : bool
        Keep only the records whose ``case_id`` is in the scale's grid
        (records of several scales may share one file). Turn off for records
        that were not produced by the runner (e.g. synthetic ones in tests).
        A custom folder (``<scale>+custom-<hash>``) is never filtered: its
        grid is not the preset's.
    label : str, optional
        The scale folder; default ``scale``.

    Returns
    -------
    Path
        The folder ``results_dir/name/<label>``.

    Raises
    ------
    ValueError
        If ``name`` has no report.
    FileNotFoundError
        If ``records`` is None and there are no stored records.
    """
    if name not in REPORTS:
        raise ValueError(f"no report for experiment {name!r}; valid names: {', '.join(sorted(REPORTS))}")
    if label is None:
        label = scale if scale is not None else latest_label(results_dir, name)
        if label is None:
            raise FileNotFoundError(f"no records under {Path(results_dir) / name}/<scale>/; run the experiment first "
                                    f"(python -m ccexp experiment={name})")
    out_dir = experiment_dir(results_dir, name, label)
    label_scale, _, custom = split_label(label)
    if scale is None:
        scale = label_scale
    if custom is not None:
        filter_to_grid = False
    if records is None:
        records = read_records(out_dir)
    n_grid_instances = None
    case_ids = None
    if filter_to_grid:
        # the grid that ran, as the runner recorded it in run.json (issue 30, item 2), not the config's today
        spec = read_grid(out_dir)
        if spec is None:
            log.warning("%s: %s holds no run spec (written before issue 30, or absent); the records are reported "
                        "as stored, in case_id order (scripts/respec_run_json.py rewrites it)", name,
                        out_dir / "run.json")
        else:
            case_ids = spec.case_ids
            n_grid_instances = len(spec.instance_ids)
            before = len(records)
            records = records[records["case_id"].isin(set(case_ids))] if len(records) else records
            if len(records) < before:
                # records of cases the last run's grid does not hold (a grid changed since they were made)
                log.warning("%s: %d of %d records are not in the grid of %s and were left out", name,
                            before - len(records), before, out_dir / "run.json")
    out_dir.mkdir(parents=True, exist_ok=True)
    records = in_fixed_order(records, case_ids)
    with replacing_report(out_dir):
        report = REPORTS[name](records.reset_index(drop=True), out_dir, scale, n_grid_instances=n_grid_instances)
        if report is not None:  # None: a report function of an older kind that wrote its own files
            write_report(report, out_dir)
        if not (out_dir / "report.md").is_file():  # the old one is set aside: this is always the new records'
            _write_index(name, out_dir, scale, records)
        _mark_mixed_code(out_dir / "report.md", records)
    return out_dir


def _mark_mixed_code(path: Path, records: pd.DataFrame) -> None:
    """Put a first line on ``report.md`` when the records come from more than one code version (issue 33, item 2)."""
    if "code_version" not in records or not len(records):
        return
    counts = records["code_version"].fillna("unknown").astype(str).value_counts()
    if len(counts) < 2 or not path.is_file():
        return
    mix = ", ".join(f"{v} ({n} cases)" for v, n in sorted(counts.items()))
    line = (f"> **Mixed code versions**: these records were made by {len(counts)} versions of the code: {mix} "
            f"(a resume with runner.allow_mixed_code=true, or records from before that check).\n\n")
    path.write_text(line + path.read_text(encoding="utf-8"), encoding="utf-8")


def in_fixed_order(records: pd.DataFrame, case_ids=None) -> pd.DataFrame:
    """``records`` in one order, whatever order the workers returned them in.

    The store holds records in the order they arrived, which differs from
    run to run; a mean or a standard error summed in another order can
    differ in its last digit (0.25819888974716115 against
    0.2581988897471611), so the same records gave reports that were not
    byte-identical (issue 32).  The order is the grid's (``case_ids``, as
    ``run.json``'s spec lists them: the order a report's first-appearance
    groupings expect), else that of ``case_id``.
    """
    if not len(records) or "case_id" not in records:
        return records
    if case_ids is not None:
        position = {c: i for i, c in enumerate(case_ids)}
        key = records["case_id"].map(position).fillna(len(position)).to_numpy()
        return records.iloc[key.argsort(kind="stable")]
    return records.sort_values("case_id", kind="stable")


def _write_index(name: str, out_dir: Path, scale: str, records: pd.DataFrame) -> Path:
    """A plain ``report.md`` for a report function that writes none: what is in the folder.

    Every experiment folder then has the same entry page (DVC tracks it as an
    output; REPRODUCTION.md links to it).
    """
    status = records["status"].value_counts().to_dict() if "status" in records and len(records) else {}
    versions = sorted(str(v) for v in records["code_version"].dropna().unique()) if "code_version" in records else []
    lines = [f"# {name} ({PAPER_OF.get(name, '')}) — scale {scale}", "",
             f"{len(records)} cases ({', '.join(f'{n} {s}' for s, n in sorted(status.items())) or 'none'}); "
             f"code version(s): {', '.join(versions) or 'unknown'}.", ""]
    figures = sorted((out_dir / "figures").glob("*.png")) if (out_dir / "figures").is_dir() else []
    if figures:
        lines += ["## Figures", ""] + [f"![{p.stem}](figures/{p.name})\n" for p in figures] + [""]
    tables = sorted((out_dir / "tables").glob("*.md")) if (out_dir / "tables").is_dir() else []
    if tables:
        lines += ["## Tables", ""] + [f"- [tables/{p.name}](tables/{p.name})" for p in tables] + [""]
    lines += ["## Comparison with the paper", "", "- [comparison.md](comparison.md) ([csv](comparison.csv))", ""]
    path = out_dir / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
