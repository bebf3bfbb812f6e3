"""The results block of ``experiments/ukkonen2017/README.md``, written from the committed comparisons (issue 28).

The README's "Results against the paper" section holds, between the markers
:data:`BEGIN` and :data:`END`, a table made by :func:`results_block` from
``results/<experiment>/paper/comparison.csv`` of both experiments, judged again by
today's rule as the reproduction page judges it (:func:`ccexp.report.joined.collect`), and the
``cause`` column of ``reference.csv``, so the README cannot say something the
page does not: ``tests/test_reproduction_ukkonen2017.py`` regenerates the block
and compares.  Rewrite it after a paper-scale run with::

    python -m ccexp.report._ukkonen2017_readme --write
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from ._ukkonen2017_cells import DISPLAY
from .causes import CAUSES, parse_cause
from .joined import collect
from .reference import experiments_dir
from .tables import is_missing
from .tolerance import STATUSES

BEGIN = "<!-- results:begin (python -m ccexp.report._ukkonen2017_readme --write) -->"
END = "<!-- results:end -->"
EXPERIMENTS = ("exp1_triplets", "exp2_real_triplets")
#: the page's causes in its order (a new cause gets its column here too), then rows without one
CAUSE_ORDER = (*CAUSES, "(none)")


def _group(row) -> str:
    if row["quantity"] == "n_clusters_mean":
        return f"Table I, {DISPLAY.get(row['algorithm'], row['algorithm'])}"
    if row["quantity"].startswith("win_count"):
        return "win counts"
    if row["quantity"].startswith("claim_"):
        return "claims"
    return "counts (cases, triplets, clusters)"


def comparison_table(results_dir: Path) -> pd.DataFrame:
    """Every paper-scale comparison row of both experiments, with its group and its cause (reference.csv)."""
    frames = []
    for name in EXPERIMENTS:
        path = Path(results_dir) / name / "paper" / "comparison.csv"
        if not path.is_file():
            continue
        # the page's rows: every reference row, judged again by today's rule from the committed
        # comparison (as results/REPRODUCTION.md judges it), with reference.csv's cause
        cmp = collect(name, Path(results_dir), "paper").rows.copy()
        cmp["cause"] = ["" if is_missing(c) else str(c).split(":")[0].strip() for c in cmp["cause"]]
        cmp["experiment"] = name
        frames.append(cmp)
    if not frames:
        return pd.DataFrame(columns=["experiment", "group", "status", "cause"])
    out = pd.concat(frames, ignore_index=True)
    out["algorithm"] = out["algorithm"].fillna("").astype(str)
    out["group"] = [f"{e}: {_group(r)}" for e, (_, r) in zip(out["experiment"], out.iterrows())]
    return out


def results_block(results_dir: Path) -> str:
    """The markdown table of statuses per group and causes of the rows that differ."""
    t = comparison_table(results_dir)
    causes = [c for c in CAUSE_ORDER if c != "(none)"]
    lines = ["| rows | " + " | ".join(STATUSES) + " | " + " | ".join(f"differs: {c}" for c in causes)
             + " | differs: no cause |",
             "|---|" + "--:|" * (len(STATUSES) + len(causes) + 1)]
    groups = list(dict.fromkeys(t["group"]))
    for g in groups + ["all"]:
        d = t if g == "all" else t[t["group"] == g]
        counts = d["status"].value_counts()
        diff = d[d["status"] == "differs"]
        cc = diff["cause"].map(lambda c: parse_cause(c)[0] or "(none)").value_counts()
        label = f"**{g}**" if g == "all" else g
        lines.append(f"| {label} | " + " | ".join(str(int(counts.get(s, 0))) for s in STATUSES) + " | "
                     + " | ".join(str(int(cc.get(c, 0))) for c in causes) + f" | {int(cc.get('(none)', 0))} |")
    return "\n".join(lines)


def readme_path() -> Path:
    """``experiments/ukkonen2017/README.md`` (under ``CCEXP_EXPERIMENTS_DIR`` when set)."""
    return experiments_dir() / "ukkonen2017" / "README.md"


def current_block(text: str) -> str:
    """The block between the markers in the README's text (ValueError if the markers are missing)."""
    if BEGIN not in text or END not in text:
        raise ValueError(f"README has no results block (markers {BEGIN!r} ... {END!r})")
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def main(argv=None) -> int:
    """Print the results block, or rewrite it in the README (``--write``)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", default="results", help="folder holding <experiment>/paper/comparison.csv")
    p.add_argument("--write", action="store_true", help="rewrite the README's block (default: print it)")
    args = p.parse_args(argv)
    block = results_block(Path(args.results))
    if not args.write:
        print(block)
        return 0
    path = readme_path()
    text = path.read_text(encoding="utf-8")
    current_block(text)
    head, rest = text.split(BEGIN, 1)
    path.write_text(head + BEGIN + "\n" + block + "\n" + END + rest.split(END, 1)[1], encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
