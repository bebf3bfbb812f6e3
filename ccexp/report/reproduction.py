"""The whole reproduction on one page, and the CI check of it.

:func:`write_reproduction` gathers every experiment's ``comparison.csv``
(written by the per-paper reports) and joins it with the paper's
``reference.csv`` through the rows' ``ref_id``; it writes

- ``results/REPRODUCTION.md``: for every paper and experiment, each number
  the paper reports beside ours, the difference, the tolerance and a status
  (:data:`STATUSES`), with a link to the paper's README where it differs,
  and the experiment's figures side by side;
- ``results/metrics.json``: the headline counts per paper and experiment
  (DVC ``metrics``).

:func:`check` is the CI gate: every reference row flagged ``ci=yes`` must be
within tolerance in a ``scale=ci`` run.  The flag marks the rows that a
small run decides (the others need the paper's grid, or do not reproduce,
as the paper's README explains); a gated row that leaves its tolerance is a
regression of the code, not of the paper.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..runner.layout import PAPER_SCALE, experiment_dir, has_records, latest_label, scales_present
from . import PAPER_OF, REPORTS, read_scale, recover_report
from .common import (
    DIFFERS,
    INDISTINGUISHABLE,
    NOT_RUN,
    REPRODUCED,
    STATUSES,
    TOLERANCE_RULE,
    WITHIN_TOLERANCE,
    experiments_dir,
    fmt_number,
    half_unit,
    is_missing,
    judge,
    load_reference,
    markdown_table,
    plus_minus,
)

#: ``expect`` pins of reference.csv (the status a ci-gated row must have at ``scale=ci``) and the
#: status each names; an empty pin accepts reproduced or within tolerance.
PINS = {"reproduced": REPRODUCED, "within": WITHIN_TOLERANCE, "indistinguishable": INDISTINGUISHABLE,
        "differs": DIFFERS}


#: Papers in the order of the page, with their titles.
PAPERS = {
    "ukkonen2017": "Ukkonen (2017): Crowdsourced correlation clustering with relative distance comparisons",
    "zhu2013": "Zhu, Loy and Gong (2013): Constrained clustering with imperfect oracles (COP-RF)",
    "liu2011": "Liu, Zhang and Wang (2011): Clustering with relative constraints (ReCon)",
    "aronsson2024": "Aronsson and Chehreghani (2024): Correlation clustering with active learning of pairwise similarities",
    "gionis2007": "Gionis, Mannila and Tsaparas (2007): Clustering aggregation",
    # not a paper: the heuristics of all five against the proven optimum (no reference rows)
    "cc_gaps": "Beyond the papers: correlation-clustering heuristics against the proven optimum",
    # not a paper: one benchmark across kinds of weak supervision (issue 15; no reference rows)
    "cross": "Beyond the papers: which kind of question, read by which algorithm (cross-supervision study)",
}

#: Columns that locate a number in the paper, shown as one "where" cell.
_WHERE = ("algorithm", "versus", "dataset", "k", "a", "b", "gamma")


def paper_decimals(value) -> int:
    """Decimals the paper printed ``value`` with (its shortest round-trip repr).

    Examples
    --------
    >>> paper_decimals(3.47), paper_decimals(54.0), paper_decimals(0.5)
    (2, 0, 1)
    """
    text = np.format_float_positional(float(value), trim="-")
    return len(text.split(".")[1]) if "." in text else 0


def status(kind: str, paper, ours, verdict: str = "", *, decimals=None, sem=None, cap=None, rule: str = "") -> str:
    """The reproduction status of one compared number (:func:`ccexp.report.common.judge`).

    ``verdict`` is kept for old callers: a report's ``not run`` stays not run.

    Examples
    --------
    >>> status("approx", 0.43, 0.4312, decimals=2)
    'reproduced'
    >>> status("approx", 0.43, 0.52, decimals=2, sem=0.05)
    'within tolerance'
    >>> status("claim", 1.0, 0.0)
    'differs'
    """
    if verdict == NOT_RUN:
        return NOT_RUN
    if decimals is None and kind != "claim":
        decimals = paper_decimals(paper)
    return judge(kind, paper, ours, decimals=decimals, sem=sem, cap=cap, rule=rule)[1]


def _experiments_of(paper: str) -> list[str]:
    return [name for name in REPORTS if PAPER_OF.get(name) == paper]


def _readme(paper: str) -> Path:
    return experiments_dir() / paper / "README.md"


def _rel(target: Path, start: Path) -> str:
    """A link from a file in ``start`` to ``target`` (forward slashes, for markdown)."""
    return Path(os.path.relpath(Path(target).resolve(), Path(start).resolve())).as_posix()


@dataclass
class ExperimentRows:
    """One experiment's reference rows with our values and statuses."""

    name: str
    paper: str
    scale: str | None  # None: no report under the results folder
    code: str
    rows: pd.DataFrame  # reference rows + ours, difference, verdict, status, note
    folder: Path | None = None  # the scale folder read (results/<name>/<scale>/), None if no report


def collect(name: str, results_dir: Path, scale: str | None = None) -> ExperimentRows:
    """Join ``results_dir/name/<scale>/comparison.csv`` with the paper's reference rows of ``name``.

    ``scale`` is the scale folder to read; default ``paper`` when it holds a
    report, else the scale folder reported last.

    Every reference row appears once: the first comparison row carrying its
    ``ref_id`` gives ours (a report may add a derived row, e.g. a count as a
    percentage, which the page shows but the status does not double count).
    The status is decided here again by :func:`ccexp.report.common.judge`
    from ours, our standard error and the reference row, so a page made
    from an older ``comparison.csv`` (no ``ours_sem``) follows the same
    rule; such a row is judged with SEM 0 and its note says the SEM is
    unknown (the rerun gives it).
    """
    paper = PAPER_OF[name]
    ref = load_reference(paper, name)
    label = scale or latest_label(results_dir, name, prefer_paper=True, require="comparison.csv") or PAPER_SCALE
    out = experiment_dir(results_dir, name, label)
    recover_report(out)  # a report killed while it wrote: its old files, not a mix
    path = out / "comparison.csv"
    scale, code = None, ""
    cmp = pd.DataFrame(columns=["ref_id", "quantity", "paper", "ours", "difference", "tolerance", "verdict", "note"])
    if path.is_file():
        scale = read_scale(out)
        run = out / "run.json"
        if run.is_file():
            code = str(json.loads(run.read_text()).get("code_version") or "")
        cmp = pd.read_csv(path)
        if "ref_id" not in cmp:
            raise ValueError(f"{path} has no ref_id column: regenerate it with python -m ccexp.report {name}")
    has_sem = "ours_sem" in cmp
    first = cmp.drop_duplicates("ref_id", keep="first").set_index("ref_id")
    rows = []
    for r in ref.to_dict("records"):
        c = first.loc[r["ref_id"]] if r["ref_id"] in first.index else None
        # the report's own paper value goes with its ours only for a transformed row (its quantity renamed,
        # e.g. a count compared as a percentage); otherwise the reference's value, so a report written
        # before the reference row changed is judged against the paper's number as it stands now
        transformed = c is not None and str(c["quantity"]) != r["quantity"]
        paper_value = c["paper"] if transformed else r["value"]
        stale = (c is not None and not transformed and not is_missing(c["paper"])
                 and not math.isclose(float(c["paper"]), float(r["value"])))
        ours = math.nan if c is None or (str(c.get("verdict")) == NOT_RUN) else c["ours"]
        sem = c.get("ours_sem") if c is not None and has_sem else math.nan
        n_trials = c.get("n_trials") if c is not None and "n_trials" in cmp else math.nan
        note = "" if c is None or is_missing(c.get("note")) else str(c["note"])
        if transformed and r["kind"] != "claim" and not math.isclose(float(paper_value), float(r["value"])):
            # a transformed value (a count as a percentage): the half unit scales with it, no competitor cap
            scale_f = float(paper_value) / float(r["value"]) if float(r["value"]) else 1.0
            h = abs(half_unit(r["decimals"]) * scale_f)
            sem_v = 0.0 if is_missing(sem) else float(sem)
            tolerance = h + 2 * sem_v
            if is_missing(ours):
                st = NOT_RUN
            else:
                diff = abs(float(ours) - float(paper_value))
                st = REPRODUCED if diff <= h * (1 + 1e-9) else (WITHIN_TOLERANCE if diff <= tolerance + 1e-9 else DIFFERS)
        else:
            tolerance, st = judge(r["kind"], paper_value, ours, decimals=r["decimals"], sem=sem, cap=r["cap"],
                                  rule=r.get("rule", ""), claim_tolerance=r["tolerance"])
        if stale:
            note = (note + "; " if note else "") + (f"report written against the paper value {fmt_number(c['paper'], 4)}, "
                                                    "since corrected in reference.csv: regenerate it")
        if c is not None and not has_sem and r["kind"] != "claim" and not is_missing(ours):
            note = (note + "; " if note else "") + "SEM unknown (comparison.csv predates ours_sem): judged with SEM 0"
        rows.append({
            "ref_id": r["ref_id"],
            "source": r["source"],
            "quantity": r["quantity"] if c is None else c["quantity"],
            "where": ", ".join(f"{k}={fmt_number(r[k], 4)}" if k not in ("algorithm", "versus", "dataset")
                               else (f"vs {r[k]}" if k == "versus" else str(r[k]))
                               for k in _WHERE if k in r and not is_missing(r[k]) and r[k] != ""),
            "kind": r["kind"],
            "paper": paper_value,
            "ours": ours,
            "ours_sem": sem,
            "n_trials": n_trials,
            "difference": math.nan if is_missing(ours) else float(ours) - float(paper_value),
            "tolerance": tolerance,
            "status": st,
            "expect": r.get("expect", ""),
            "ci": r["ci"],
            "sem_known": bool(has_sem),
            "note": note,
        })
    columns = ["ref_id", "source", "quantity", "where", "kind", "paper", "ours", "ours_sem", "n_trials", "difference",
               "tolerance", "status", "expect", "ci", "sem_known", "note"]
    # columns named, so an experiment without reference rows (cc_gaps) gives an empty, well-formed table
    return ExperimentRows(name, paper, scale, code, pd.DataFrame(rows, columns=columns),
                          out if scale is not None else None)


def _counts(rows: pd.DataFrame) -> dict[str, int]:
    c = rows["status"].value_counts() if len(rows) else pd.Series(dtype=int)
    return {s: int(c.get(s, 0)) for s in STATUSES}


def _figures(out: Path, page_dir: Path) -> str:
    """The experiment's figures two to a row (a table of images)."""
    figures = sorted((out / "figures").glob("*.png")) if (out / "figures").is_dir() else []
    if not figures:
        return ""
    cells = [f"![{p.stem}]({_rel(p, page_dir)})<br>`{p.name}`" for p in figures]
    if len(cells) % 2:
        cells.append("")
    lines = ["| | |", "|:-:|:-:|"]
    lines += [f"| {a} | {b} |" for a, b in zip(cells[::2], cells[1::2])]
    return "\n".join(lines) + "\n"


def _experiment_section(e: ExperimentRows, results_dir: Path, page_dir: Path) -> list[str]:
    out = e.folder
    readme = _rel(_readme(e.paper), page_dir)
    counts = _counts(e.rows)
    head = [f"### {e.name}", ""]
    if e.scale is None:
        return head + [f"Not run here: `python -m ccexp experiment={e.name}` (then `python -m ccexp.report all`). "
                       f"{len(e.rows)} reference rows wait for it.", ""]
    links = [f"[report]({_rel(out / 'report.md', page_dir)})" if (out / "report.md").is_file() else "",
             f"[comparison]({_rel(out / 'comparison.md', page_dir)})", f"[why numbers differ]({readme})"]
    head += [f"Scale `{e.scale}`" + (f", code `{e.code}`" if e.code else "") + ": "
             + ", ".join(f"{counts[s]} {s}" for s in STATUSES) + ". " + " · ".join(x for x in links if x), ""]
    if e.scale != "paper":
        head += [f"> Records at scale `{e.scale}`: fewer settings and trials than the paper's; "
                 "differences here say little about the paper (see the README for the paper-scale verdicts).", ""]
    show = e.rows.assign(
        status=[f"[{s}]({readme})" if s == DIFFERS else s for s in e.rows["status"]],
        ours=[plus_minus(m, se, 3) for m, se in zip(e.rows["ours"], e.rows["ours_sem"])],
        n_trials=[fmt_number(n) for n in e.rows["n_trials"]],
    )[["source", "quantity", "where", "paper", "ours", "n_trials", "difference", "tolerance", "status"]]
    show = show.rename(columns={"ours": "ours (mean ± 2 SE)"})
    table = markdown_table(show, digits=3)
    if len(show) > 40:  # long tables fold so the page stays readable
        head += [f"<details><summary>all {len(show)} rows</summary>", "", table, "</details>", ""]
    else:
        head += [table]
    figures = _figures(out, page_dir)
    if figures:
        head += ["Figures:", "", figures]
    return head


def write_reproduction(results_dir: str | Path = "results", scale: str | None = None) -> Path:
    """Write ``REPRODUCTION.md`` and ``metrics.json`` into ``results_dir``.

    Reads the reports already written there (run :func:`ccexp.report.make_report`
    first): each experiment's ``paper`` folder, else the scale reported last
    (or the folder ``scale``); experiments without a report are listed as not run.

    Returns
    -------
    Path
        The markdown file written.
    """
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    page = results_dir / "REPRODUCTION.md"
    collected = {p: [collect(n, results_dir, scale) for n in _experiments_of(p)] for p in PAPERS}
    metrics: dict = {}
    summary = []
    for paper, exps in collected.items():
        metrics[paper] = {}
        for e in exps:
            counts = _counts(e.rows)
            metrics[paper][e.name] = {"scale": e.scale or "not run", **{s.replace(" ", "_"): n for s, n in counts.items()}}
            summary.append([paper, e.name, e.scale or "–", *[counts[s] for s in STATUSES]])
    lines = [
        "# Reproduction of the five papers",
        "",
        "Generated by `python -m ccexp.report all` from each experiment's `comparison.csv` and the papers' "
        "`experiments/<paper>/reference.csv`; do not edit by hand.",
        "",
        "## Tolerance rule",
        "",
        TOLERANCE_RULE,
        "",
        "Our value is shown as mean ± 2 SE over trials (just the mean for a single run, a count or a claim); "
        "a **differs** links to the paper's README, which gives the evidence; **not run** — the records do not "
        "cover the row (another scale's grid, a dataset that is not public, or the experiment not run).",
        "",
        "## Summary",
        "",
        markdown_table(summary, columns=["paper", "experiment", "scale", *STATUSES]),
    ]
    for paper, exps in collected.items():
        lines += [f"## {PAPERS[paper]}", "",
                  f"Paper id `{paper}`; deviations and their evidence: [{paper}/README.md]({_rel(_readme(paper), page.parent)}).", ""]
        for e in exps:
            lines += _experiment_section(e, results_dir, page.parent)
    page.write_text("\n".join(lines), encoding="utf-8")
    (results_dir / "metrics.json").write_text(json.dumps(metrics, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return page


@dataclass
class CheckResult:
    """Outcome of :func:`check`: the gated rows, those that failed, and experiments that could not be checked."""

    gated: pd.DataFrame
    failures: pd.DataFrame
    problems: list[str]  # gated experiments without records at scale=ci (each fails the check)

    @property
    def counts(self) -> dict[str, int]:
        """Gated rows per status."""
        return _counts(self.gated) if len(self.gated) else {s: 0 for s in STATUSES}

    @property
    def decided(self) -> int:
        """Gated rows with a status other than not run."""
        return int((self.gated["status"] != NOT_RUN).sum()) if len(self.gated) else 0

    @property
    def ok(self) -> bool:
        """The gate passes: every gated row meets its pin, no experiment is missing, at least one row decided."""
        return not len(self.failures) and not self.problems and self.decided > 0

    @property
    def skipped(self) -> list[str]:
        """The former name of :attr:`problems` (nothing is skipped silently any more)."""
        return self.problems


def pin_holds(status_: str, expect: str) -> bool:
    """Whether a gated row's status meets its ``expect`` pin (empty: reproduced or within tolerance).

    Raises
    ------
    ValueError
        If ``expect`` is not empty nor one of :data:`PINS`.
    """
    expect = (expect or "").strip()
    if not expect:
        return status_ in (REPRODUCED, WITHIN_TOLERANCE)
    if expect not in PINS:
        raise ValueError(f"expect={expect!r}: valid pins are {', '.join(PINS)} (or empty)")
    return status_ == PINS[expect]


def check(results_dir: str | Path = "results", names: list[str] | None = None) -> CheckResult:
    """The CI gate: every ``ci=yes`` reference row has the status its pin expects at ``scale=ci``.

    Parameters
    ----------
    results_dir : path
        Folder whose experiments were run at ``scale=ci`` and reported.
    names : list of str, optional
        Experiments to check; default all.

    Returns
    -------
    CheckResult
        A gated row fails when it is not run, or its status is not the one
        its ``expect`` pin names (an empty pin: reproduced or within
        tolerance), so a change that fixes a row pinned ``differs`` fails
        too until the pin is updated.  An experiment with gated rows fails
        when it has no report, no ``run.json``, one of another scale, or a
        ``comparison.csv`` its records do not back (records gone, or newer).
        :attr:`CheckResult.ok` is also false when no gated row was decided.
    """
    results_dir = Path(results_dir)
    names = names if names is not None else sorted(REPORTS)
    gated, problems = [], []
    for name in names:
        ref = load_reference(PAPER_OF[name], name)
        if not (ref["ci"].str.lower() == "yes").any():
            continue
        out = experiment_dir(results_dir, name, "ci")
        run = out / "run.json"
        if not (out / "comparison.csv").is_file():
            others = [s for s in scales_present(results_dir, name) if s != "ci"]
            where = f" (records only at scale={', '.join(map(repr, others))})" if others else ""
            problems.append(f"{name}: no report at {out}{where}; run it at scale=ci, then python -m ccexp.report")
            continue
        if not run.is_file():
            problems.append(f"{name}: {run} is missing, so the scale of its records is unknown")
            continue
        stale = _stale_comparison(out)
        if stale:
            problems.append(f"{name}: {stale}; rerun it at scale=ci (python -m ccexp experiment={name} "
                            f"experiment.scale=ci paths.results={results_dir}), then python -m ccexp.report")
            continue
        scale = json.loads(run.read_text()).get("scale")
        if scale != "ci":
            problems.append(f"{name}: records at scale={scale!r}, not ci")
            continue
        e = collect(name, results_dir, "ci")
        rows = e.rows[e.rows["ci"].str.lower() == "yes"]
        gated.append(rows.assign(experiment=name))
    gated_df = (pd.concat(gated, ignore_index=True) if gated
                else pd.DataFrame(columns=["experiment", "ref_id", "status", "expect"]))
    if len(gated_df):
        ok = [st != NOT_RUN and pin_holds(st, ex) for st, ex in zip(gated_df["status"], gated_df["expect"])]
        failures = gated_df[[not x for x in ok]]
    else:
        failures = gated_df
    return CheckResult(gated_df, failures.reset_index(drop=True), problems)


def _stale_comparison(out: Path) -> str | None:
    """Why ``out/comparison.csv`` cannot stand for the records of ``out`` (gone, or written after it); None if it can.

    The gate judges the records: a comparison left from records since
    deleted, or older than records added since, would pass on numbers that
    are no longer there (issue 33, item 3).
    """
    cmp = out / "comparison.csv"
    if not has_records(out):
        return f"{cmp} is left from records that are gone (no records.parquet nor parts in {out})"
    record_files = [out / "records.parquet", *sorted((out / "parts").glob("part-*.parquet"))]
    newest = max((p.stat().st_mtime_ns for p in record_files if p.is_file()), default=0)
    if newest > cmp.stat().st_mtime_ns:
        return f"{cmp} is older than the records beside it (they changed after the report was written)"
    return None


def check_summary(result: CheckResult) -> str:
    """The console lines of ``--check``: counts per status, then what failed and why."""
    counts = result.counts
    lines = [f"check: {len(result.gated)} ci-gated reference rows: " + ", ".join(f"{counts[s]} {s}" for s in STATUSES)]
    for p in result.problems:
        lines.append(f"check: FAIL {p}")
    if result.decided == 0:
        lines.append("check: FAIL no gated row was decided (nothing was checked)")
    if len(result.failures):
        show = result.failures.assign(expect=[e or "reproduced|within" for e in result.failures["expect"]])
        show = show[["experiment", "ref_id", "paper", "ours", "tolerance", "status", "expect"]]
        lines.append(f"check: {len(show)} gated rows do not have the status their pin expects:\n"
                     + markdown_table(show, digits=4).rstrip())
    lines.append("check: " + ("ok" if result.ok else "FAILED"))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m ccexp.report.reproduction [--results DIR]``: the page from the reports already written."""
    parser = argparse.ArgumentParser(prog="python -m ccexp.report.reproduction", description=main.__doc__)
    parser.add_argument("--results", default="results", help="results folder (default: results)")
    parser.add_argument("--scale", default=None, help="scale folder to read (default: paper when present)")
    args = parser.parse_args(argv)
    page = write_reproduction(args.results, scale=args.scale)
    print(page)
    print(Path(args.results) / "metrics.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
