"""Results of Gionis, Mannila and Tsaparas (2007) that the page added in issue 28.5.

* Table 1: how many of the confusion matrix's nine non-zero cells our
  AGGLOMERATIVE on Mushrooms gives, per item order (:func:`table1_cells_matched`);
* the toy example of Figures 1 and 2 (:func:`toy_example`): Figure 2's
  weights and the optimum of 5 disagreements, by brute force over every
  partition of the six objects;
* Figure 5 past a sample of 1,600 (:func:`error_stays_converged`); "the
  five correct clusters were identified in the sample" is read in the
  report with Figure 4's match (:func:`ccexp.report.gionis2007.main_cluster_match`).

Each function returns ``(ours, note)``; the report functions of
:mod:`ccexp.report.gionis2007` put them into the comparison.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import linregress

from ..algorithms.aggregation.estimator import FIGURE1
from .common import load_reference

#: Table 1 of the paper: the non-zero cells (poisonous 808, 1296, 1768, 36, 8; edible 2864, 1056, 96, 192)
TABLE1_CELLS = (808, 1296, 1768, 36, 8, 2864, 1056, 96, 192)

#: Figure 2's caption: solid edges 1/3, dashed 2/3, dotted 1 (the drawing itself is not in the text)
FIGURE2_WEIGHTS = frozenset({Fraction(1, 3), Fraction(2, 3), Fraction(1)})

#: The clustering C the text names for Figure 1: {v1, v3}, {v2, v4}, {v5, v6} (v1..v6 as 0..5), and its
#: disagreements with C1, C2, C3 as the text counts them: four with C1, one with C2 (v5, v6), none with C3
FIGURE1_C = (0, 1, 0, 1, 2, 2)
FIGURE1_SPLIT = (4, 1, 0)


def confusion_cells(y: np.ndarray, labels: np.ndarray) -> list[int]:
    """The non-zero cells of the classes x clusters confusion matrix."""
    cells = []
    for c in np.unique(labels):
        counts = np.bincount(y[labels == c], minlength=int(y.max()) + 1)
        cells += [int(v) for v in counts if v > 0]
    return cells


def table1_cells_matched(y: np.ndarray, labels: np.ndarray) -> int:
    """How many of Table 1's nine non-zero cells our clustering has (multiset intersection; 9 = all)."""
    ours, paper = Counter(confusion_cells(y, labels)), Counter(TABLE1_CELLS)
    return int(sum((ours & paper).values()))


def _partitions(n: int):
    """Every partition of 0..n-1 as a label list (restricted growth strings)."""
    def grow(prefix, k):
        if len(prefix) == n:
            yield list(prefix)
            return
        for c in range(k + 1):
            yield from grow(prefix + [c], max(k, c + 1))
    yield from grow([0], 1)


def _disagreements(a, b) -> int:
    """d(C, C') of Section 1: pairs one clustering joins and the other separates."""
    n = len(a)
    return sum((a[u] == a[v]) != (b[u] == b[v]) for u in range(n) for v in range(u + 1, n))


def toy_example() -> dict:
    """The example of Figures 1 and 2, computed exactly (fractions) over all 203 partitions.

    Returns
    -------
    dict
        ``weights_are_figure2s``: 1.0 if every X_uv of Figure 1's three
        clusterings is one of Figure 2's three edge weights; ``optimum_disagreements``:
        the least total number of disagreements over every partition (the text: 5);
        ``text_c_is_optimal``: 1.0 if the text's C reaches it with 4, 1 and 0
        disagreements with C1, C2, C3; ``n_optimal``: how many partitions reach it.
    """
    C = FIGURE1
    m, n = C.shape
    X = {Fraction(int(np.sum(C[:, u] != C[:, v])), m) for u in range(n) for v in range(u + 1, n)}
    totals = {tuple(lab): sum(_disagreements(lab, C[i]) for i in range(m)) for lab in _partitions(n)}
    best = min(totals.values())
    split = tuple(_disagreements(FIGURE1_C, C[i]) for i in range(m))
    return {"weights_are_figure2s": float(X <= FIGURE2_WEIGHTS), "optimum_disagreements": float(best),
            "text_c_is_optimal": float(sum(split) == best and split == FIGURE1_SPLIT),
            "n_optimal": sum(1 for t in totals.values() if t == best)}


def error_stays_converged(part, caps: dict, from_sample: int = 1600) -> tuple[float, str]:
    """Figure 5 (middle) past a sample of 1,600: every sample size >= ``from_sample`` keeps the EC close.

    ``part`` has ``inner``, ``sample``, ``ec_pct``, ``full_ec_pct``; ``caps`` maps an inner algorithm to
    its Table 3 competitor cap. Ours = 1 if every such run is within its cap of the full algorithm's EC.
    """
    at = part[(part["sample"] >= from_sample) & part["inner"].isin(list(caps)) & part["full_ec_pct"].notna()]
    if not len(at):
        return np.nan, f"no run at a sample of {from_sample} or more with a full run beside it"
    diffs = [(r.inner, int(r.sample), abs(r.ec_pct - r.full_ec_pct), caps[r.inner]) for r in at.itertuples()]
    note = "; ".join(f"{a} at {s}: {d:.2f} points (needs < {c:.2f})" for a, s, d, c in sorted(diffs))
    return float(all(d < c for _, _, d, c in diffs)), note


def trial_means(runs: pd.DataFrame, by: list[str], columns: list[str]) -> pd.DataFrame:
    """Per setting ``by``: the number of trials, and each of ``columns``' mean and standard error (``<col>_sem``,
    NaN for one trial)."""
    g = runs.groupby(by)
    out = g.size().rename("trials").to_frame()
    for c in columns:
        out[c] = g[c].mean()
        out[f"{c}_sem"] = g[c].sem()
    return out.reset_index()


def own_time_fractions(runs: pd.DataFrame, sample: int, n_items: int) -> np.ndarray:
    """Each trial's SAMPLING time at ``sample`` over the full algorithm's time in the same trial (the same inner
    algorithm): ``claim_half_time_at_1600``'s "in every repetition".  ``runs`` has ``inner``, ``sample``,
    ``trial``, ``fit_seconds``; NaN where a trial has no full run (``sample >= n_items``) beside it.
    """
    full = runs[runs["sample"] >= n_items].set_index(["inner", "trial"])["fit_seconds"]
    at = runs[runs["sample"] == sample]
    return at["fit_seconds"].to_numpy() / full.reindex(pd.MultiIndex.from_frame(at[["inner", "trial"]])).to_numpy()


def error_converges(part: pd.DataFrame, caps: dict, sample: int = 1600) -> tuple[float, str]:
    """:data:`~ccexp.report.gionis2007.SCALABILITY_CHECKS` ``claim_error_converges_by_1600``.

    ``part`` has columns ``inner``, ``sample``, ``ec_pct`` and ``full_ec_pct``
    (the full algorithm's EC); ``caps`` maps an inner algorithm to its Table 3
    competitor cap (percentage points).  An inner algorithm without a cap is
    left out (the paper has no Table 3 value for it).
    """
    at = part[(part["sample"] == sample) & part["inner"].isin(list(caps)) & part["full_ec_pct"].notna()]
    if not len(at):
        return np.nan, f"no run at sample {sample} with a full run beside it"
    diffs = [(r.inner, abs(r.ec_pct - r.full_ec_pct), caps[r.inner]) for r in at.itertuples()]
    note = "; ".join(f"{a}: |{sample} - full| = {d:.2f} points (needs < {c:.2f})" for a, d, c in diffs)
    return float(all(d < c for _, d, c in diffs)), note


def linear_time(synth: pd.DataFrame) -> tuple[float, str]:
    """:data:`~ccexp.report.gionis2007.SCALABILITY_CHECKS` ``claim_linear_time_synthetic``: ``synth`` has ``inner``, ``n``, ``fit_seconds``."""
    parts, holds = [], []
    for inner, g in synth.groupby("inner"):
        g = g[g["fit_seconds"] > 0]
        if g["n"].nunique() < 2:
            continue
        x, y = np.log(g["n"].astype(float)), np.log(g["fit_seconds"].astype(float))
        if len(g) == 2:
            slope, se = float((y.iloc[1] - y.iloc[0]) / (x.iloc[1] - x.iloc[0])), 0.0
        else:
            fit = linregress(x, y)
            slope, se = float(fit.slope), float(fit.stderr)
        tol = min(0.5 + 2 * se, 1.0)
        holds.append(abs(slope - 1) <= tol)
        parts.append(f"{inner}: exponent {slope:.2f} ± {2 * se:.2f} (2 SE), needs |exponent - 1| <= {tol:.2f}")
    if not holds:
        return np.nan, "needs >= 2 synthetic sizes"
    return float(all(holds)), "; ".join(parts)


#: The README's results block sits between these two lines (tests/test_gionis2007_readme.py)
README_START = "<!-- results: generated by ccexp.report.gionis2007_extra.readme_results; do not edit -->"
README_END = "<!-- results: end -->"


def _fmt(value) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "–"
    v = float(value)
    if abs(v) >= 1e6:
        return f"{v / 1e6:.3f} M"
    if abs(v) >= 1000:
        return f"{v:,.1f}"
    return f"{v:.3g}" if abs(v) < 10 else f"{v:.2f}"


def readme_results(root, reference) -> str:
    """The README's table of every reference row: paper, ours (± 2 SE), status and cause.

    Read from the committed paper-scale comparisons (``root/<experiment>/paper/comparison.csv``)
    and ``reference`` (:func:`ccexp.report.common.load_reference` of gionis2007), so the README
    says what the page says; a row absent from its experiment's comparison is "not run".
    """
    lines = [README_START, "", "| row | paper | ours (± 2 SE) | trials | status | cause |", "|---|--:|--:|--:|---|---|"]
    cache: dict = {}
    for r in reference.itertuples():
        path = Path(root) / r.experiment / "paper" / "comparison.csv"
        if r.experiment not in cache:
            cache[r.experiment] = pd.read_csv(path).set_index("ref_id") if path.is_file() else pd.DataFrame()
        cmp = cache[r.experiment]
        if r.ref_id in cmp.index:
            c = cmp.loc[r.ref_id]
            ours = _fmt(c["ours"])
            se = c.get("ours_sem")
            if ours != "–" and se is not None and not pd.isna(se) and float(se) > 0:
                ours += f" ± {_fmt(2 * float(se))}"
            trials = "" if pd.isna(c.get("n_trials")) else str(int(c["n_trials"]))
            status = c["status"]
        else:
            ours, trials, status = "–", "", "not run"
        cause = "" if pd.isna(getattr(r, "cause", "")) else str(getattr(r, "cause", "") or "")
        evidence = "" if pd.isna(getattr(r, "evidence", "")) else str(getattr(r, "evidence", "") or "")
        if cause and evidence:
            cause = f"[{cause}]({evidence})"
        lines.append(f"| `{r.ref_id}` | {_fmt(r.value)} | {ours} | {trials} | {status} | {cause} |")
    return "\n".join(lines + ["", README_END])


def order_distribution(ok) -> pd.DataFrame:
    """Min / median / max of k, EC (%) and ED over the item orders, per dataset, algorithm and asked k.

    ``ok`` holds the successful records of agg_categorical; only the algorithms run over more than one
    order are listed (issue 29.1: the spread the paper's one run was drawn from).
    """
    rows = []
    keys = ["dataset", "algorithm"] + (["algorithm.n_clusters"] if "algorithm.n_clusters" in ok else [])
    for key, g in ok.groupby(keys, dropna=False):
        if len(g) < 2:
            continue
        ec = 100 * g["classification_error"].astype(float)
        row = dict(zip(keys, key))
        row["orders"] = len(g)
        for name, v, f in (("k", g["n_clusters"].astype(float), "{:g}"), ("EC (%)", ec, "{:.1f}"),
                           ("ED", g["objective"].astype(float), "{:,.1f}")):
            row[name] = " / ".join(f.format(x) for x in (v.min(), v.median(), v.max()))
        row["ED SD"] = float(g["objective"].astype(float).std())
        rows.append(row)
    return pd.DataFrame(rows)


if __name__ == "__main__":  # rewrite the README's results block from the committed comparisons

    readme = Path("experiments/gionis2007/README.md")
    text = readme.read_text(encoding="utf-8")
    block = readme_results(Path("results"), load_reference("gionis2007"))
    if README_START in text:
        text = text[: text.index(README_START)] + block + text[text.index(README_END) + len(README_END):]
    readme.write_text(text, encoding="utf-8")
    print(f"wrote the results block of {readme}")
