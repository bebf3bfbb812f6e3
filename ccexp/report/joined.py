"""One experiment's reference rows joined with our comparison, judged by the rule: :func:`collect`.

The reproduction page (:mod:`ccexp.report.reproduction`) and its CI gate read
these rows: each reference row of ``experiments/<paper>/reference.csv`` with
ours from the experiment's ``comparison.csv`` (or, for a row with a
``variant``, from that named variant's folder), the tolerance and status of
:func:`~ccexp.report.tolerance.judge`, and the row's cause.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..runner.store import write_text_atomic
from ..runner.layout import PAPER_SCALE, experiment_dir, latest_label, scale_label, split_label
from . import PAPER_OF, read_scale, recover_report
from .causes import parse_cause
from .common import (DIFFERS, NOT_RUN, REPRODUCED, WITHIN_TOLERANCE, experiments_dir, fmt_number, half_unit,
                     is_missing, judge, load_reference)
from .tolerance import se_of_difference

#: Columns that locate a number in the paper, shown as one "where" cell.
_WHERE = ("algorithm", "versus", "dataset", "k", "a", "b", "gamma")



def _readme(paper: str) -> Path:
    return experiments_dir() / paper / "README.md"


@dataclass
class ExperimentRows:
    """One experiment's reference rows with our values and statuses."""

    name: str
    paper: str
    scale: str | None  # None: no report under the results folder
    code: str
    rows: pd.DataFrame  # reference rows + ours, difference, verdict, status, note
    folder: Path | None = None  # the scale folder read (results/<name>/<scale>/), None if no report


def _comparison_at(results_dir: Path, name: str, label: str) -> tuple[pd.DataFrame | None, str | None, str]:
    """``(comparison rows by ref_id, scale, code)`` of one scale folder; ``(None, None, "")`` when it has none."""
    out = experiment_dir(results_dir, name, label)
    recover_report(out)  # a report killed while it wrote: its old files, not a mix
    path = out / "comparison.csv"
    if not path.is_file():
        return None, None, ""
    code = ""
    run = out / "run.json"
    if run.is_file():
        code = str(json.loads(run.read_text()).get("code_version") or "")
    cmp = pd.read_csv(path)
    if "ref_id" not in cmp:
        raise ValueError(f"{path} has no ref_id column: regenerate it with python -m ccexp.report {name}")
    if "ours_sem" not in cmp:
        cmp["ours_sem"] = math.nan
        cmp.attrs["sem_unknown"] = True
    if "n_trials" not in cmp:
        cmp["n_trials"] = math.nan
    return cmp.drop_duplicates("ref_id", keep="first").set_index("ref_id"), read_scale(out), code


def _judge_row(r: dict, c) -> dict:
    """Ours for reference row ``r`` from comparison row ``c`` (None: not run), judged by the rule."""
    # the report's own paper value goes with its ours only for a transformed row (its quantity renamed,
    # e.g. a count compared as a percentage); otherwise the reference's value, so a report written
    # before the reference row changed is judged against the paper's number as it stands now
    transformed = c is not None and str(c["quantity"]) != r["quantity"]
    paper_value = c["paper"] if transformed else r["value"]
    ours = math.nan if c is None or (str(c.get("verdict")) == NOT_RUN) else c["ours"]
    sem = math.nan if c is None else c.get("ours_sem")
    n_trials = math.nan if c is None else c.get("n_trials")
    if transformed and r["kind"] != "claim" and not math.isclose(float(paper_value), float(r["value"])):
        # a transformed value (a count as a percentage): the half unit scales with it, no competitor cap
        scale_f = float(paper_value) / float(r["value"]) if float(r["value"]) else 1.0
        h = abs(half_unit(r["decimals"]) * scale_f)
        tolerance = h + 2 * se_of_difference(sem, n_trials, r.get("paper_n"), None)
        if is_missing(ours):
            st = NOT_RUN
        else:
            diff = abs(float(ours) - float(paper_value))
            st = REPRODUCED if diff <= h * (1 + 1e-9) else (WITHIN_TOLERANCE if diff <= tolerance + 1e-9 else DIFFERS)
    else:
        tolerance, st = judge(r["kind"], paper_value, ours, decimals=r["decimals"], sem=sem, cap=r["cap"],
                              rule=r.get("rule", ""), claim_tolerance=r["tolerance"], n=n_trials,
                              paper_n=r.get("paper_n"), paper_sd=r.get("paper_sd"))
    return {"transformed": transformed, "paper": paper_value, "ours": ours, "ours_sem": sem, "n_trials": n_trials,
            "tolerance": tolerance, "status": st}


def collect(name: str, results_dir: Path, scale: str | None = None) -> ExperimentRows:
    """Join ``results_dir/name/<scale>/comparison.csv`` with the paper's reference rows of ``name``.

    ``scale`` is the scale folder to read; default ``paper`` when it holds a
    report, else the scale folder reported last.  A reference row with a
    ``variant`` is read from that named variant's folder of the same scale
    (``<scale>+<variant>``); a row whose cause is ``setup:<variant>`` also
    gets that variant's value and status (``setup_ours``, ``setup_status``),
    so the page shows both.

    Every reference row appears once: the first comparison row carrying its
    ``ref_id`` gives ours (a report may add a derived row, e.g. a count as a
    percentage, which the page shows but the status does not double count).
    The status is decided here again by :func:`ccexp.report.common.judge`
    from ours, our standard error, our number of trials and the reference
    row (its ``paper_n``), so a page made from an older ``comparison.csv``
    follows the same rule; a row without ``ours_sem`` is judged with SEM 0
    and its note says the SEM is unknown (the rerun gives it).
    """
    paper = PAPER_OF[name]
    ref = load_reference(paper, name)
    label = scale or latest_label(results_dir, name, prefer_paper=True, require="comparison.csv") or PAPER_SCALE
    base_scale = split_label(label)[0]
    cache: dict[str, tuple] = {}

    def at(variant: str):
        lab = label if not variant else scale_label(base_scale, variant=variant)
        if lab not in cache:
            cache[lab] = _comparison_at(results_dir, name, lab)
        return cache[lab]

    first, scale_read, code = at("")
    rows = []
    for r in ref.to_dict("records"):
        variant = r.get("variant", "") or ""
        cmp, _, _ = at(variant)
        c = cmp.loc[r["ref_id"]] if cmp is not None and r["ref_id"] in cmp.index else None
        j = _judge_row(r, c)
        note = "" if c is None or is_missing(c.get("note")) else str(c["note"])
        stale = (c is not None and not j["transformed"] and not is_missing(c["paper"])
                 and not math.isclose(float(c["paper"]), float(r["value"])))
        if stale:
            note = (note + "; " if note else "") + (f"report written against the paper value {fmt_number(c['paper'], 4)}, "
                                                    "since corrected in reference.csv: regenerate it")
        if c is not None and cmp.attrs.get("sem_unknown") and r["kind"] != "claim" and not is_missing(j["ours"]):
            note = (note + "; " if note else "") + "SEM unknown (comparison.csv predates ours_sem): judged with SEM 0"
        cause_kind, setup_variant = parse_cause(r.get("cause", ""))
        setup = {"ours": math.nan, "ours_sem": math.nan, "status": ""}
        if setup_variant:
            s_cmp, _, _ = at(setup_variant)
            s_c = s_cmp.loc[r["ref_id"]] if s_cmp is not None and r["ref_id"] in s_cmp.index else None
            setup = _judge_row(r, s_c)
        rows.append({
            "ref_id": r["ref_id"],
            "source": r["source"],
            "quantity": r["quantity"] if c is None else c["quantity"],
            "where": ", ".join(f"{k}={fmt_number(r[k], 4)}" if k not in ("algorithm", "versus", "dataset")
                               else (f"vs {r[k]}" if k == "versus" else str(r[k]))
                               for k in _WHERE if k in r and not is_missing(r[k]) and r[k] != ""),
            "kind": r["kind"],
            "algorithm": r.get("algorithm", "") or "",
            "variant": variant,
            "paper": j["paper"],
            "paper_n": r.get("paper_n", math.nan),
            "ours": j["ours"],
            "ours_sem": j["ours_sem"],
            "n_trials": j["n_trials"],
            "difference": math.nan if is_missing(j["ours"]) else float(j["ours"]) - float(j["paper"]),
            "tolerance": j["tolerance"],
            "status": j["status"],
            "cause": r.get("cause", "") or "",
            "evidence": r.get("evidence", "") or "",
            "moved_by": r.get("moved_by", "") or "",
            "setup_ours": setup["ours"],
            "setup_sem": setup["ours_sem"],
            "setup_status": setup["status"],
            "expect": r.get("expect", ""),
            "ci": r["ci"],
            "sem_known": not (cmp is not None and cmp.attrs.get("sem_unknown")),
            "note": note,
        })
    # columns named, so an experiment without reference rows (cc_gaps) gives an empty, well-formed table
    out = experiment_dir(results_dir, name, label)
    return ExperimentRows(name, paper, scale_read, code, pd.DataFrame(rows, columns=COLUMNS),
                          out if scale_read is not None else None)


#: The columns of :attr:`ExperimentRows.rows`.
COLUMNS = ["ref_id", "source", "quantity", "where", "kind", "algorithm", "variant", "paper", "paper_n", "ours", "ours_sem",
           "n_trials", "difference", "tolerance", "status", "cause", "evidence", "moved_by", "setup_ours", "setup_sem",
           "setup_status", "expect", "ci", "sem_known", "note"]


#: The columns :func:`stamp_causes` keeps in every ``comparison.csv`` (issue 28: the file and the page give each
#: row that differs its cause).
CAUSE_COLUMNS_CSV = ("cause", "evidence")


def folder_of(e: ExperimentRows, results_dir: Path, variant: str) -> Path:
    """The scale folder a row of ``e`` was read from: the experiment's, or its named variant's."""
    if not variant:
        return e.folder
    return experiment_dir(results_dir, e.name, scale_label(split_label(e.folder.name)[0], variant=variant))


def run_trials(folder: Path | None) -> int | None:
    """The ``trials`` a scale folder's ``run.json`` records (None: no run.json, or none recorded)."""
    path = None if folder is None else Path(folder) / "run.json"
    if path is None or not path.is_file():
        return None
    trials = json.loads(path.read_text()).get("trials")
    return None if trials is None else int(trials)


def stamp_causes(e: ExperimentRows, results_dir: str | Path) -> list[Path]:
    """Write each row's cause into the ``comparison.csv`` it was read from; returns the files changed.

    A row that differs on the page gets reference.csv's ``cause`` and ``evidence``; every other row gets
    empty cells (a cause explains a difference, nothing else).  Only these two columns change: every other
    cell is copied as text, so a file whose causes are current is left byte for byte as it is.  The page
    (:func:`ccexp.report.reproduction.write_reproduction`) calls this, so a cause edited in reference.csv
    reaches ``comparison.csv`` with the page that shows it.
    """
    if e.folder is None or not len(e.rows):
        return []
    results_dir = Path(results_dir)
    by_folder: dict[Path, dict[str, tuple[str, str]]] = {}
    for r in e.rows.to_dict("records"):
        folder = folder_of(e, results_dir, r["variant"])
        cells = (r["cause"], r["evidence"]) if r["status"] == DIFFERS else ("", "")
        by_folder.setdefault(folder, {})[r["ref_id"]] = cells
    changed = []
    for folder, cells in by_folder.items():
        path = folder / "comparison.csv"
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        rows = list(csv.reader(io.StringIO(text)))
        if not rows or "ref_id" not in rows[0]:
            continue
        header, body = rows[0], rows[1:]
        for col in CAUSE_COLUMNS_CSV:
            if col not in header:
                header.append(col)
                for row in body:
                    row.append("")
        i_ref, i_cause, i_ev = (header.index(c) for c in ("ref_id", *CAUSE_COLUMNS_CSV))
        for row in body:
            row[i_cause], row[i_ev] = cells.get(row[i_ref], ("", ""))
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows([header, *body])
        if buf.getvalue() != text:
            write_text_atomic(path, buf.getvalue())
            changed.append(path)
    return changed


def stale_causes(e: ExperimentRows, results_dir: str | Path) -> list[str]:
    """Rows that differ whose ``comparison.csv`` does not carry reference.csv's cause (what ``--check`` refuses)."""
    if e.folder is None:
        return []
    results_dir = Path(results_dir)
    out, files = [], {}
    for r in e.rows.to_dict("records"):
        if r["status"] != DIFFERS:
            continue
        path = folder_of(e, results_dir, r["variant"]) / "comparison.csv"
        if path not in files:
            frame = pd.read_csv(path, dtype=str, keep_default_na=False) if path.is_file() else None
            files[path] = None if frame is None or "cause" not in frame else frame.set_index("ref_id")
        cmp = files[path]
        got = "" if cmp is None or r["ref_id"] not in cmp.index else cmp.loc[[r["ref_id"]], "cause"].iloc[0]
        if got != r["cause"]:
            out.append(f"{e.name}: {r['ref_id']}: {path}'s cause is {got or 'missing'!r}, reference.csv's "
                       f"{r['cause'] or 'none'!r} (python -m ccexp.report all rewrites it)")
    return out
