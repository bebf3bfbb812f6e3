"""The whole reproduction on one page, and the CI check of it.

:func:`write_reproduction` gathers every experiment's ``comparison.csv``
(written by the per-paper reports) and joins it with the paper's
``reference.csv`` through the rows' ``ref_id``; it writes

- ``results/REPRODUCTION.md``: for every paper and experiment, each number
  the paper reports beside ours, the difference, the tolerance and a status
  (:data:`STATUSES`), with a link to the paper's README where it differs,
  and the experiment's figures side by side;
- ``results/metrics.json``: the headline counts per paper and experiment
  (DVC ``metrics``);
- ``results/overview.png``: the summary as a figure (:mod:`ccexp.report.overview`).

:func:`check` is the CI gate: every reference row flagged ``ci=yes`` must be
within tolerance in a ``scale=ci`` run.  The flag marks the rows that a
small run decides (the others need the paper's grid, or do not reproduce,
as the paper's README explains); a gated row that leaves its tolerance is a
regression of the code, not of the paper.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..registry import ALGORITHMS
from ..runner.layout import PAPER_SCALE, experiment_dir, has_records, scale_label, scales_present, split_label
from . import PAPER_OF, REPORTS
from .common import (DIFFERS, INDISTINGUISHABLE, NOT_RUN, REPRODUCED, STATUSES, TOLERANCE_RULE, WITHIN_TOLERANCE,
                     fmt_number, is_missing, judge, load_reference, markdown_table, plus_minus)
from .chance import (batch_words, chance_problem, explained_chance_problem, fresh_row, load_fresh_claims,
                     load_fresh_seeds)
from .causes import (CAUSES, NEEDS_EVIDENCE, evidence_problem, load_ledger, measured_problem, moved_by_names,
                     parse_cause)
from .joined import COLUMNS, ExperimentRows, _readme, collect, folder_of, run_trials, stale_causes, stamp_causes  # noqa: F401 (collect: the page's callers)
from .overview import glance_entry, write_overview

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


def _rel(target: Path, start: Path) -> str:
    """A link from a file in ``start`` to ``target`` (forward slashes, for markdown)."""
    return Path(os.path.relpath(Path(target).resolve(), Path(start).resolve())).as_posix()


def _counts(rows: pd.DataFrame) -> dict[str, int]:
    c = rows["status"].value_counts() if len(rows) else pd.Series(dtype=int)
    return {s: int(c.get(s, 0)) for s in STATUSES}


#: The summary's columns for the causes of the rows that differ; "no cause" is what ``--check`` refuses.
NO_CAUSE = "no cause"
CAUSE_COLUMNS = (*CAUSES, NO_CAUSE)


def _cause_counts(rows: pd.DataFrame) -> dict[str, int]:
    """Rows that differ, per cause kind (``setup:<variant>`` counts as setup)."""
    counts = {c: 0 for c in CAUSE_COLUMNS}
    if len(rows):
        for cause in rows.loc[rows["status"] == DIFFERS, "cause"]:
            counts[parse_cause(cause)[0] or NO_CAUSE] += 1
    return counts


def _cause_cell(row: dict, readme: str, fresh: dict | None = None, claims: dict | None = None) -> str:
    """The page's cause cell of a row that differs: the cause, linked to its evidence; a setup's value, and the
    verdict of the row's fresh batch when it has one (``fresh``: the paper's
    :func:`~ccexp.report.chance.load_fresh_seeds`; ``claims``: its
    :func:`~ccexp.report.chance.load_fresh_claims`, for a row that is not a mean over trials).

    The fresh batch is shown whatever the cause: under ``chance`` it is the evidence (and why it cannot be judged,
    when it cannot); under any other cause a fresh batch that differs again says the gap is systematic, and one
    that does not says a reader should weigh the cause against chance.
    """
    if row["status"] != DIFFERS:
        return ""
    kind, variant = parse_cause(row["cause"])
    if not kind:
        return NO_CAUSE
    ev = str(row.get("evidence") or "")
    text = f"[{kind}]({readme}{ev})" if ev else kind
    if kind == "measured" and row.get("moved_by"):
        text += " " + ", ".join(f"`{v}`" for v in moved_by_names(row["moved_by"]))
    if kind == "setup":
        text += (f" `{variant}`: {plus_minus(row['setup_ours'], row['setup_sem'], 3)} "
                 f"({row['setup_status'] or NOT_RUN})")
    runs = (fresh or {}).get(row["ref_id"])
    claim = (claims or {}).get(row["ref_id"])
    if kind == "chance" or runs or claim:
        judged, why = fresh_row(row, runs, claim)
        text += (f" {batch_words(judged)}: {plus_minus(judged['ours'], judged['ours_sem'], 3)} "
                 f"({judged['status']})") if judged else f" ({why})"
    return text


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
    causes = _cause_counts(e.rows)
    why = (" (causes: " + ", ".join(f"{n} {c}" for c, n in causes.items() if n) + ")") if counts[DIFFERS] else ""
    scale = split_label(e.scale)[0]
    # every named variant the rows name, and every committed one beside them (a variant no row names yet, e.g.
    # acc_xi_runtime's authors_budget, is still a run a reader should find); custom folders are not variants
    labels = (split_label(lab) for lab in scales_present(results_dir, e.name))
    committed = {v for sc, v, custom in labels if sc == scale and v and not custom}
    variants = sorted({v for v in e.rows["variant"] if v} | {parse_cause(c)[1] for c in e.rows["cause"] if parse_cause(c)[1]}
                      | committed)
    for v in variants:
        folder = experiment_dir(results_dir, e.name, scale_label(scale, variant=v))
        if (folder / "comparison.md").is_file():
            links.append(f"[variant `{v}`]({_rel(folder / 'comparison.md', page_dir)})")
    head += [f"Scale `{e.scale}`" + (f", code `{e.code}`" if e.code else "") + ": "
             + ", ".join(f"{counts[s]} {s}" for s in STATUSES) + why + ". " + " · ".join(x for x in links if x), ""]
    if e.scale != "paper":
        head += [f"> Records at scale `{e.scale}`: fewer settings and trials than the paper's; "
                 "differences here say little about the paper (see the README for the paper-scale verdicts).", ""]
    records = e.rows.to_dict("records")
    fresh = load_fresh_seeds(_readme(e.paper).parent / "fresh_seeds.csv")
    claims = load_fresh_claims(_readme(e.paper).parent / "fresh_claims.csv")
    show = e.rows.assign(
        where=[w + (f" · variant `{v}`" if v else "") for w, v in zip(e.rows["where"], e.rows["variant"])],
        status=[f"[{r['status']}]({readme}{r['evidence']})" if r["status"] == DIFFERS else r["status"] for r in records],
        ours=[plus_minus(m, se, 3) for m, se in zip(e.rows["ours"], e.rows["ours_sem"])],
        n_trials=[fmt_number(n) for n in e.rows["n_trials"]],
        paper_n=[fmt_number(n) if not is_missing(n) else "" for n in e.rows["paper_n"]],
        cause=[_cause_cell(r, readme, fresh, claims) for r in records],
    )[["source", "quantity", "where", "paper", "paper_n", "ours", "n_trials", "difference", "tolerance", "status",
       "cause"]]
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


def _fresh_sentence(collected: dict) -> list[str]:
    """The page's count of the differing rows with a fresh batch (``fresh_seeds.csv``, ``fresh_claims.csv``): how
    many differ again.

    A fresh batch is evidence for ``chance`` only, but it is shown beside every cause: one that differs again
    says the gap is systematic; one that does not, under a cause other than ``chance``, is counted so that a
    reader can weigh that cause against chance.
    """
    again, not_again = 0, {}
    for paper, exps in collected.items():
        fresh = load_fresh_seeds(_readme(paper).parent / "fresh_seeds.csv")
        claims = load_fresh_claims(_readme(paper).parent / "fresh_claims.csv")
        for e in exps:
            for r in e.rows[e.rows["status"] == DIFFERS].to_dict("records"):
                judged, _ = fresh_row(r, fresh.get(r["ref_id"]), claims.get(r["ref_id"]))
                if judged is None:
                    continue
                if judged["status"] == DIFFERS:
                    again += 1
                else:
                    kind = parse_cause(r["cause"])[0] or NO_CAUSE
                    not_again[kind] = not_again.get(kind, 0) + 1
    total = again + sum(not_again.values())
    if not total:
        return []
    return [f"Beside its cause, a row that differs shows the verdict of its fresh batch when it has one (the rule "
            f"of `chance`: the same setup, every random draw new, judged alone). {total} rows that differ have one: "
            f"{again} differ again (a systematic gap), {total - again} do not ("
            + ", ".join(f"{n} {k}" for k, n in sorted(not_again.items())) + ").", ""]


def write_reproduction(results_dir: str | Path = "results", scale: str | None = None) -> Path:
    """Write ``REPRODUCTION.md``, ``metrics.json`` and ``overview.png`` into ``results_dir``.

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
    for exps in collected.values():
        for e in exps:
            stamp_causes(e, results_dir)  # comparison.csv carries each differing row's cause, as the page does
    metrics: dict = {}
    summary, glance = [], []
    for paper, exps in collected.items():
        metrics[paper] = {}
        for e in exps:
            counts = _counts(e.rows)
            causes = _cause_counts(e.rows)
            metrics[paper][e.name] = {"scale": e.scale or "not run", **{s.replace(" ", "_"): n for s, n in counts.items()},
                                      "causes": {c.replace(" ", "_"): n for c, n in causes.items()}}
            summary.append([paper, e.name, e.scale or "–", *[counts[s] for s in STATUSES],
                            *[causes[c] for c in CAUSE_COLUMNS]])
            if len(e.rows):
                glance.append(glance_entry(e.name, paper, e.rows, counts, causes))
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
        "Our value is shown as mean ± 2 SE over trials (just the mean for a single run, a count or a claim), "
        "beside `paper_n`, the runs the paper averaged; **not run** — the records do not cover the row (another "
        "scale's grid, a dataset that is not public, or the experiment not run). A row marked `variant` is judged "
        "against the run of that named variant (`experiment.variant=NAME`, the setup the authors' code ran), "
        "not the paper's text.",
        "",
        "## Why a number differs",
        "",
        "Every row that differs carries a cause (reference.csv's `cause`, linked to its evidence in the paper's "
        "README); `python -m ccexp.report all --check` fails on a row that differs with no cause, or whose "
        "evidence points at nothing, or whose `setup` variant does not reproduce it, or a `measured` row whose `moved_by` "
        "names no variant of the paper's `ablations.csv` that meets the rule below, or a `chance` row whose fresh runs "
        "differ too, or a `measured` or `setup` row whose fresh runs do not differ (that row's cause is `chance`):",
        "",
        *[f"- **{c}**: {text}" for c, text in CAUSES.items()],
        "",
        *_fresh_sentence(collected),
        "## Summary",
        "",
        "Counts of reference rows per status, then the rows that differ per cause.",
        "",
        markdown_table(summary, columns=["paper", "experiment", "scale", *STATUSES,
                                         *[f"differs: {c}" for c in CAUSE_COLUMNS]]),
        *([f"![overview]({write_overview(glance, results_dir / 'overview.png').name})\n"] if glance else []),
    ]
    for paper, exps in collected.items():
        lines += [f"## {PAPERS[paper]}", "",
                  f"Paper id `{paper}`; deviations and their evidence: [{paper}/README.md]({_rel(_readme(paper), page.parent)}).", ""]
        for e in exps:
            lines += _experiment_section(e, results_dir, page.parent)
    page.write_text("\n".join(lines), encoding="utf-8")
    (results_dir / "metrics.json").write_text(json.dumps(metrics, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return page


def cause_problems(results_dir: str | Path, names: list[str] | None = None) -> list[str]:
    """What ``--check`` refuses in the causes of the paper-scale reports under ``results_dir``.

    For every experiment with a ``paper`` report: a row that differs must
    carry a cause (:data:`~ccexp.report.causes.CAUSES`); ``measured``,
    ``setup`` and ``paper`` need an ``evidence`` anchor, and every anchor
    given must exist in the paper's README; a ``setup:<variant>`` row must be
    reproduced, within tolerance or indistinguishable in that variant's
    committed run (``<results>/<experiment>/paper+<variant>/``); a ``measured``
    row must name in ``moved_by`` a variant of the paper's ``ablations.csv``
    that meets the rule (:func:`~ccexp.report.causes.measured_problem`); a ``measured`` or
    ``setup`` row whose fresh batch does not differ must be ``chance`` instead
    (:func:`~ccexp.report.chance.explained_chance_problem`); a cause that
    does not parse is refused on any row; the ``comparison.csv`` a differing
    row was read from carries its cause (:func:`~ccexp.report.joined.stale_causes`).

    Returns
    -------
    list of str
        One line per problem, naming the experiment and the row.
    """
    results_dir = Path(results_dir)
    problems = []
    for name in names if names is not None else sorted(REPORTS):
        paper = PAPER_OF[name]
        if not (experiment_dir(results_dir, name, PAPER_SCALE) / "comparison.csv").is_file():
            continue
        readme = _readme(paper)
        try:
            joined = collect(name, results_dir, PAPER_SCALE)
            ledger = load_ledger(readme.parent / "ablations.csv")
            fresh = load_fresh_seeds(readme.parent / "fresh_seeds.csv")
            claims = load_fresh_claims(readme.parent / "fresh_claims.csv")
        except ValueError as err:  # a cause that does not parse, a malformed ablations.csv or fresh ledger
            problems.append(f"{name}: {err}")
            continue
        rows = joined.rows
        for r in rows.to_dict("records"):
            where = f"{name}: {r['ref_id']}"
            kind, variant = parse_cause(r["cause"])
            if r["status"] == DIFFERS and not kind:
                problems.append(f"{where} differs and has no cause (reference.csv's cause: "
                                f"{', '.join(CAUSES)}; see {readme.name})")
                continue
            if not kind:
                continue
            ev = r["evidence"]
            if kind in NEEDS_EVIDENCE and not ev:
                problems.append(f"{where}: cause {r['cause']!r} needs evidence=#anchor in {readme}")
            why = evidence_problem(ev, readme)
            if why:
                problems.append(f"{where}: {why}")
            if kind == "measured" and r["status"] == DIFFERS:
                why = measured_problem(r["algorithm"], r["moved_by"], ledger)
                if why:
                    problems.append(f"{where}: {why}")
            if kind == "chance" and r["status"] == DIFFERS:
                why = chance_problem(r, fresh.get(r["ref_id"]), claims.get(r["ref_id"]))
                if why:
                    problems.append(f"{where}: {why}")
            if r["status"] == DIFFERS:
                why = explained_chance_problem(kind, r, fresh.get(r["ref_id"]), claims.get(r["ref_id"]))
                if why:
                    problems.append(f"{where}: {why}")
            if kind == "setup" and r["status"] == DIFFERS and r["setup_status"] not in (
                    REPRODUCED, WITHIN_TOLERANCE, INDISTINGUISHABLE):
                folder = experiment_dir(results_dir, name, scale_label(PAPER_SCALE, variant=variant))
                problems.append(f"{where}: cause {r['cause']!r} but the variant's run at {folder} "
                                f"{'does not have the row' if r['setup_status'] in ('', NOT_RUN) else 'gives ' + r['setup_status']}")
        problems.extend(stale_causes(joined, results_dir))
    return problems


#: The fewest trials that measure a random procedure's spread (issue 28: randomness is never hidden).
MIN_TRIALS = 10


def randomness_problems(results_dir: str | Path, names: list[str] | None = None) -> list[str]:
    """Rows of the paper-scale reports that judge a random procedure on fewer than :data:`MIN_TRIALS` trials.

    A number of a registered algorithm that is not declared ``deterministic``
    (its result depends on a seed or on the order of the items: an
    initialisation, a tie-break, a visiting order) must be a mean over at
    least :data:`MIN_TRIALS` trials, so that its standard error is measured
    rather than taken as 0.  A claim about such an algorithm is read from a
    run of at least :data:`MIN_TRIALS` trials (its ``run.json``'s ``trials``;
    a claim row carries no count of its own).  Rows without an algorithm
    (class labels, lower bounds, dataset sizes) are not procedures and are exempt.
    """
    results_dir = Path(results_dir)
    problems = []
    for name in names if names is not None else sorted(REPORTS):
        if not (experiment_dir(results_dir, name, PAPER_SCALE) / "comparison.csv").is_file():
            continue
        joined = collect(name, results_dir, PAPER_SCALE)
        for r in joined.rows.to_dict("records"):
            alg = r["algorithm"]
            if (not alg or alg not in ALGORITHMS.names() or r["status"] == NOT_RUN
                    or getattr(ALGORITHMS.get(alg), "deterministic", False)):
                continue
            if r["kind"] == "claim":
                trials = run_trials(folder_of(joined, results_dir, r["variant"]))
                if trials is not None and trials < MIN_TRIALS:
                    problems.append(f"{name}: {r['ref_id']} is a claim read from a run of {trials} trial(s) of "
                                    f"{alg}, which makes random choices: run at least {MIN_TRIALS}")
                continue
            if is_missing(r["n_trials"]):
                continue
            if int(r["n_trials"]) < MIN_TRIALS:
                problems.append(f"{name}: {r['ref_id']} is judged on {int(r['n_trials'])} trial(s) of {alg}, which "
                                f"makes random choices (not declared deterministic): run at least {MIN_TRIALS}")
    return problems


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
