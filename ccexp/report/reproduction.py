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

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import PAPER_OF, REPORTS, read_scale
from .common import NOT_RUN, WITHIN, experiments_dir, fmt_number, is_missing, load_reference, markdown_table

#: Status of a reference row, in the order the summary lists them.
REPRODUCED = "reproduced"
WITHIN_TOLERANCE = "within tolerance"
DIFFERS = "differs"
STATUSES = (REPRODUCED, WITHIN_TOLERANCE, DIFFERS, NOT_RUN)

#: Papers in the order of the page, with their titles.
PAPERS = {
    "ukkonen2017": "Ukkonen (2017): Crowdsourced correlation clustering with relative distance comparisons",
    "zhu2013": "Zhu, Loy and Gong (2013): Constrained clustering with imperfect oracles (COP-RF)",
    "liu2011": "Liu, Zhang and Wang (2011): Clustering with relative constraints (ReCon)",
    "aronsson2024": "Aronsson and Chehreghani (2024): Correlation clustering with active learning of pairwise similarities",
    "gionis2007": "Gionis, Mannila and Tsaparas (2007): Clustering aggregation",
    # not a paper: the heuristics of all five against the proven optimum (no reference rows)
    "cc_gaps": "Beyond the papers: correlation-clustering heuristics against the proven optimum",
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


def status(kind: str, paper, ours, verdict: str) -> str:
    """The reproduction status of one compared number.

    ``reproduced``: a claim that holds (ours equals the paper's 1/0), or a
    number that equals the paper's once rounded to the decimals the paper
    printed; ``within tolerance``: not equal but ``|ours - paper|`` within
    the row's tolerance (the report's verdict); ``differs``: outside it;
    ``not run``: the records do not cover the row.

    Examples
    --------
    >>> status("approx", 0.43, 0.4312, "within tolerance")
    'reproduced'
    >>> status("approx", 0.43, 0.52, "within tolerance")
    'within tolerance'
    >>> status("claim", 1.0, 0.0, "outside tolerance")
    'differs'
    """
    if verdict == NOT_RUN or is_missing(ours):
        return NOT_RUN
    if kind == "claim":
        same = math.isclose(float(ours), float(paper), abs_tol=1e-12)
    else:
        digits = paper_decimals(paper)
        same = math.isclose(round(float(ours), digits), float(paper), abs_tol=0.5 * 10.0**-digits * 1e-6)
    if same:
        return REPRODUCED
    return WITHIN_TOLERANCE if verdict == WITHIN else DIFFERS


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


def collect(name: str, results_dir: Path) -> ExperimentRows:
    """Join ``results_dir/name/comparison.csv`` with the paper's reference rows of ``name``.

    Every reference row appears once: the first comparison row carrying its
    ``ref_id`` gives ours (a report may add a derived row, e.g. a count as a
    percentage, which the page shows but the status does not double count).
    """
    paper = PAPER_OF[name]
    ref = load_reference(paper, name)
    out = Path(results_dir) / name
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
    first = cmp.drop_duplicates("ref_id", keep="first").set_index("ref_id")
    rows = []
    for r in ref.to_dict("records"):
        c = first.loc[r["ref_id"]] if r["ref_id"] in first.index else None
        # the report's own paper/tolerance (e.g. a count compared as a percentage) go with its ours
        paper_value = r["value"] if c is None else c["paper"]
        tolerance = r["tolerance"] if c is None else c["tolerance"]
        ours = math.nan if c is None else c["ours"]
        verdict = NOT_RUN if c is None else c["verdict"]
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
            "difference": math.nan if is_missing(ours) else float(ours) - float(paper_value),
            "tolerance": tolerance,
            "verdict": verdict,
            "status": status(r["kind"], paper_value, ours, verdict),
            "ci": r["ci"],
            "note": "" if c is None or is_missing(c.get("note")) else str(c["note"]),
        })
    columns = ["ref_id", "source", "quantity", "where", "kind", "paper", "ours", "difference",
               "tolerance", "verdict", "status", "ci", "note"]
    # columns named, so an experiment without reference rows (cc_gaps) gives an empty, well-formed table
    return ExperimentRows(name, paper, scale, code, pd.DataFrame(rows, columns=columns))


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
    out = results_dir / e.name
    readme = _rel(_readme(e.paper), page_dir)
    counts = _counts(e.rows)
    head = [f"### {e.name}", ""]
    if e.scale is None:
        return head + [f"Not run here: `python -m ccexp +experiment={e.name}` (then `python -m ccexp.report all`). "
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
    )[["source", "quantity", "where", "paper", "ours", "difference", "tolerance", "status"]]
    table = markdown_table(show, digits=3)
    if len(show) > 40:  # long tables fold so the page stays readable
        head += [f"<details><summary>all {len(show)} rows</summary>", "", table, "</details>", ""]
    else:
        head += [table]
    figures = _figures(out, page_dir)
    if figures:
        head += ["Figures:", "", figures]
    return head


def write_reproduction(results_dir: str | Path = "results") -> Path:
    """Write ``REPRODUCTION.md`` and ``metrics.json`` into ``results_dir``.

    Reads the reports already written there (run :func:`ccexp.report.make_report`
    first); experiments without a report are listed as not run.

    Returns
    -------
    Path
        The markdown file written.
    """
    results_dir = Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    page = results_dir / "REPRODUCTION.md"
    collected = {p: [collect(n, results_dir) for n in _experiments_of(p)] for p in PAPERS}
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
        "Status of each number the paper reports: **reproduced** — ours equals the paper's at the precision the "
        "paper printed (a claim: it holds); **within tolerance** — not equal, but within the row's tolerance; "
        "**differs** — outside it, linked to the paper's README, which gives the evidence; **not run** — the "
        "records do not cover it (another scale's grid, a dataset that is not public, or the experiment not run).",
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
    """Outcome of :func:`check`: the gated rows and those that failed."""

    gated: pd.DataFrame
    failures: pd.DataFrame
    skipped: list[str]  # experiments whose records are not at scale=ci

    @property
    def ok(self) -> bool:
        return not len(self.failures)


def check(results_dir: str | Path = "results", names: list[str] | None = None) -> CheckResult:
    """The CI gate: every ``ci=yes`` reference row within tolerance at ``scale=ci``.

    Parameters
    ----------
    results_dir : path
        Folder whose experiments were run at ``scale=ci`` and reported.
    names : list of str, optional
        Experiments to check; default all with a report.

    Returns
    -------
    CheckResult
        A gated row fails when it is not run or outside its tolerance.  An
        experiment whose records are at another scale is skipped (the flag
        is about the ``ci`` grid).
    """
    results_dir = Path(results_dir)
    names = names if names is not None else sorted(REPORTS)
    gated, skipped = [], []
    for name in names:
        e = collect(name, results_dir)
        rows = e.rows[e.rows["ci"].str.lower() == "yes"]
        if not len(rows):
            continue
        if e.scale is not None and e.scale != "ci":
            skipped.append(name)
            continue
        gated.append(rows.assign(experiment=name))
    gated_df = pd.concat(gated, ignore_index=True) if gated else pd.DataFrame(columns=["experiment", "ref_id", "verdict"])
    failures = gated_df[gated_df["verdict"] != WITHIN] if len(gated_df) else gated_df
    return CheckResult(gated_df, failures.reset_index(drop=True), skipped)


def main(argv: list[str] | None = None) -> int:
    """``python -m ccexp.report.reproduction [--results DIR]``: the page from the reports already written."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m ccexp.report.reproduction", description=main.__doc__)
    parser.add_argument("--results", default="results", help="results folder (default: results)")
    args = parser.parse_args(argv)
    page = write_reproduction(args.results)
    print(page)
    print(Path(args.results) / "metrics.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
