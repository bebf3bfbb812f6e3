"""The page at a glance: one figure of every experiment's rows by status and cause, and how far each number is.

``results/overview.png`` (written by :func:`ccexp.report.reproduction.write_reproduction`
beside ``REPRODUCTION.md``, and shown under its summary table) has two panels
that share one row per experiment:

- **left**: the experiment's reference rows as one stacked bar, in the order
  the page decides them: reproduced, within tolerance, indistinguishable, then
  the rows that differ split by their cause (measured, setup, chance, paper,
  unexplained, none), then not run.  The bar's segments are the summary
  table's counts, so the figure and the table cannot disagree.
- **right**: every number that was run (not a claim, not a one-sided
  ceiling of the rule ``at_most``, not a row without a tolerance) as one dot
  at ``(ours - paper) / tolerance``, coloured by its status.  The shaded band
  is ``|x| <= 1``: inside the row's own tolerance.  The axis is
  symmetric-log (linear within ±1), so a row a hundred tolerances away and
  one just outside both stay readable.  The colour is the page's status, so
  the few rows that the rule decides otherwise than by this distance keep
  their own verdict: a table that truncated its digits (rule ``truncated``:
  ours must lie in [v, v + one unit)) and a tolerance that stops strictly
  short of a competitor's value.

The figure is drawn on a :class:`matplotlib.figure.Figure` (no pyplot state),
as every report figure is.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .reference import load_reference
from .tolerance import DIFFERS, INDISTINGUISHABLE, NOT_RUN, REPRODUCED, WITHIN_TOLERANCE

#: The segments of a bar, left to right: (label, colour).  A differing row's segment is its cause.
SEGMENTS = (
    (REPRODUCED, "#1b7837"),
    (WITHIN_TOLERANCE, "#7fbf7b"),
    (INDISTINGUISHABLE, "#bababa"),
    ("differs: measured", "#2166ac"),
    ("differs: setup", "#762a83"),
    ("differs: chance", "#e6ab02"),
    ("differs: paper", "#e08214"),
    ("differs: unexplained", "#b2182b"),
    ("differs: no cause", "#000000"),
    (NOT_RUN, "#f0f0f0"),
)
#: A dot's colour: its status (a differing dot is red whatever its cause; the bar tells the causes apart).
DOT_COLOURS = {REPRODUCED: "#1b7837", WITHIN_TOLERANCE: "#7fbf7b", INDISTINGUISHABLE: "#8c8c8c", DIFFERS: "#b2182b"}


def _edge(segment: str) -> str:
    """A segment's edge colour, which is also its hatch's: grey for the hatched "not run", else white."""
    return "#9e9e9e" if segment == NOT_RUN else "white"


def segment_counts(counts: dict[str, int], causes: dict[str, int]) -> list[int]:
    """The bar's segment widths (:data:`SEGMENTS` order) from the summary's status and cause counts.

    ``counts`` maps each status to its number of rows, ``causes`` each cause
    of the differing rows (``measured`` ... ``no cause``) to its number; the
    causes must add up to the rows that differ.
    """
    if sum(causes.values()) != counts.get(DIFFERS, 0):
        raise ValueError(f"causes: {sum(causes.values())} rows with a cause, but {counts.get(DIFFERS, 0)} differ")
    widths = []
    for label, _ in SEGMENTS:
        kind = label.split(": ", 1)[1] if label.startswith("differs: ") else None
        widths.append(int(causes.get(kind, 0)) if kind is not None else int(counts.get(label, 0)))
    return widths


def glance_entry(name: str, paper: str, rows: pd.DataFrame, counts: dict, causes: dict) -> tuple:
    """One experiment's entry of :func:`overview_figure`: its rows with reference.csv's ``rule`` beside them."""
    rules = load_reference(paper, name).set_index("ref_id")["rule"] if len(rows) else pd.Series(dtype=object)
    return name, rows.assign(rule=rows["ref_id"].map(rules).fillna("")), counts, causes


def distances(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of the right panel: ``x = (ours - paper) / tolerance`` and the status, for the numbers that ran.

    Left out: claims (a 0/1 reading, not a distance), one-sided ceilings (a
    ``rule`` of ``at_most``: any value below the paper's reproduces it), rows
    not run, and rows whose tolerance is not a positive number.
    """
    if rows.empty:
        return pd.DataFrame({"x": pd.Series(dtype=float), "status": pd.Series(dtype=object)})
    ours = pd.to_numeric(rows["ours"], errors="coerce")
    paper = pd.to_numeric(rows["paper"], errors="coerce")
    tol = pd.to_numeric(rows["tolerance"], errors="coerce")
    rule = rows["rule"].fillna("") if "rule" in rows else pd.Series("", index=rows.index)
    ceiling = rule.str.split(":", n=1).str[0].str.strip() == "at_most"  # the rule's kind, read as judge() reads it
    keep = ((rows["kind"] != "claim") & ~ceiling & (rows["status"] != NOT_RUN) & ours.notna() & paper.notna()
            & (tol > 0))
    return pd.DataFrame({"x": ((ours - paper) / tol)[keep].to_numpy(dtype=float),
                         "status": rows.loc[keep, "status"].to_numpy()})


def overview_figure(experiments: list[tuple[str, pd.DataFrame, dict, dict]]) -> Figure:
    """Draw the overview of ``experiments``: ``(label, rows, status counts, cause counts)``, top to bottom.

    ``rows`` are the experiment's joined reference rows (``kind``, ``paper``,
    ``ours``, ``tolerance``, ``status``); the counts are the page's summary.
    """
    if not experiments:
        raise ValueError("experiments: nothing to draw (no experiment has reference rows)")
    n = len(experiments)
    fig = Figure(figsize=(12, 0.42 * n + 1.9))
    left, right = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [1.1, 1.0], "wspace": 0.04})
    ys = np.arange(n)[::-1]
    rng = np.random.default_rng(0)  # vertical jitter of the dots only: the figure is the same on every run
    for y, (label, rows, counts, causes) in zip(ys, experiments):
        start = 0
        for (seg, colour), width in zip(SEGMENTS, segment_counts(counts, causes)):
            if width:
                left.barh(y, width, left=start, color=colour, edgecolor=_edge(seg), linewidth=0.5, height=0.75,
                          hatch="//" if seg == NOT_RUN else None, label=seg)
                if width >= 6:
                    left.text(start + width / 2, y, str(width), ha="center", va="center", fontsize=7,
                              color="black" if seg in (WITHIN_TOLERANCE, INDISTINGUISHABLE, NOT_RUN, "differs: chance")
                              else "white")
            start += width
        d = distances(rows)
        if len(d):
            jitter = rng.uniform(-0.28, 0.28, len(d))
            right.scatter(np.clip(d["x"], -1e4, 1e4), y + jitter, s=9, linewidths=0, alpha=0.75,
                          c=[DOT_COLOURS.get(s, "#000000") for s in d["status"]])
    left.set_yticks(ys, [e[0] for e in experiments], fontsize=8)
    left.set_xlabel("reference rows")
    left.set_title("rows by status; those that differ by cause", fontsize=9)
    right.set_xscale("symlog", linthresh=1.0)
    right.axvspan(-1, 1, color="#d9f0d3", zorder=0)
    right.axvline(0, color="#1b7837", linewidth=0.8, zorder=0)
    right.set_xlabel("(ours − paper) / tolerance, symmetric log; shaded: within tolerance")
    right.set_title("how far each number is from the paper's (claims and ceilings left out)", fontsize=9)
    for ax in (left, right):
        ax.set_ylim(-0.6, n - 0.4)
        ax.grid(axis="x", color="#e0e0e0", linewidth=0.5)
        ax.set_axisbelow(True)
    fig.legend(handles=[Patch(facecolor=c, edgecolor=_edge(s), hatch="//" if s == NOT_RUN else None, label=s)
                        for s, c in SEGMENTS], loc="lower left", bbox_to_anchor=(0.01, 0.0), ncol=4, fontsize=7,
               frameon=False, title="bars", title_fontsize=7)
    fig.legend(handles=[Patch(facecolor=c, label=s) for s, c in DOT_COLOURS.items()], loc="lower right",
               bbox_to_anchor=(0.99, 0.0), ncol=2, fontsize=7, frameon=False, title="dots", title_fontsize=7)
    total = sum(sum(e[2].values()) for e in experiments)
    differ = sum(e[2].get(DIFFERS, 0) for e in experiments)
    unexplained = sum(e[3].get("unexplained", 0) for e in experiments)
    fig.suptitle(f"{total} reference rows; {differ} differ, {unexplained} of them unexplained", fontsize=10)
    height = fig.get_figheight()
    fig.subplots_adjust(left=0.13, right=0.98, top=1 - 0.6 / height, bottom=1.45 / height)
    return fig


def write_overview(experiments: list[tuple[str, pd.DataFrame, dict, dict]], path: str | Path) -> Path:
    """Draw :func:`overview_figure` into ``path`` (PNG, 110 dpi) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    overview_figure(experiments).savefig(path, dpi=110)
    return path
