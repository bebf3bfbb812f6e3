"""The ablation ledgers (``experiments/<paper>/ablations.csv``) against the README tables they transcribe.

A ``measured`` cause rests on a ledger entry's counts (issue 28's one rule:
moved > broke over every cell the variant's ablations judged).  Where a README
gives the per-cell verdicts as marks (Ukkonen: **bold** or *italic* = agrees;
Zhu's item 7: ✓ or ≈), this test counts them again and fails when the ledger
says otherwise; it also checks that the default column's marks are the
committed report's statuses, cell for cell, so a ledger cannot rest on a
default that is not the run the page judges.  For every paper: the ledger
loads, its anchors exist, and every ``measured`` row names a variant of it.
"""

from __future__ import annotations

import collections
import re
from pathlib import Path

import pandas as pd
import pytest

from ccexp.report.causes import anchors, load_ledger, measured_problem, parse_cause
from ccexp.report.reference import experiments_dir, load_reference

ROOT = Path(__file__).resolve().parents[1]
AGREE = {"reproduced", "within tolerance", "indistinguishable"}
PAPERS = ["ukkonen2017", "zhu2013", "liu2011", "gionis2007", "aronsson2024"]


def _tables(readme: Path) -> list[tuple[int, list[str], list[list[str]]]]:
    """Every markdown table of a README: (line of its header, header cells, body rows)."""
    lines = readme.read_text(encoding="utf-8").split("\n")
    out, i = [], 0
    while i < len(lines) - 1:
        if lines[i].startswith("|") and re.match(r"^\|[\s:|-]+\|$", lines[i + 1].strip()):
            head = [c.strip() for c in lines[i].strip().strip("|").split("|")]
            body, j = [], i + 2
            while j < len(lines) and lines[j].startswith("|"):
                body.append([c.strip() for c in lines[j].strip().strip("|").split("|")])
                j += 1
            out.append((i + 1, head, body))
            i = j
        else:
            i += 1
    return out


def _table(readme: Path, starts: str) -> tuple[list[str], list[list[str]]]:
    """The one table whose header is ``starts`` (or, if none is, begins with it)."""
    tables = _tables(readme)
    found = [(h, b) for _, h, b in tables if " | ".join(h) == starts] or [
        (h, b) for _, h, b in tables if " | ".join(h).startswith(starts)]
    assert len(found) == 1, f"{len(found)} tables of {readme} begin with {starts!r}"
    return found[0]


class Counts:
    """cells / default_agrees / moved / broke per (algorithm, variant), summed over tables."""

    def __init__(self):
        self.c = collections.defaultdict(lambda: [0, 0, 0, 0])

    def add(self, alg, variant, default_ok, variant_ok):
        e = self.c[(alg, variant)]
        e[0] += 1
        e[1] += default_ok
        e[2] += (not default_ok) and variant_ok
        e[3] += default_ok and (not variant_ok)

    def scope(self, parts):
        return [sum(self.c[p][i] for p in parts) for i in range(4)]


def _ledger_counts(paper):
    ledger = load_ledger(experiments_dir() / paper / "ablations.csv")
    return {key: [e["cells"], e["default_agrees"], e["moved"], e["broke"]] for key, e in ledger.items()}


# ----------------------------------------------------------------------------- Ukkonen: bold / italic marks

UKK = experiments_dir() / "ukkonen2017" / "README.md"
_ALG = {"Ls-AD-VC": "ls_ad_vc", "Ls-EQ-VC": "ls_eq_vc", "ls_ad_vc": "ls_ad_vc", "ls_eq_vc": "ls_eq_vc"}


def _ukk_marked(cell):
    """A cell's verdict: agrees (bold or italic), differs, or None (not run, or fewer than 10 trials)."""
    if not cell or re.search(r"\((3|5)\)", cell):
        return None
    return cell.startswith("*")


def _ukk_counts() -> Counts:
    cmp_ = pd.read_csv(ROOT / "results" / "exp1_triplets" / "paper" / "comparison.csv")
    cmp_ = cmp_[cmp_["quantity"] == "n_clusters_mean"]
    committed = {(r.algorithm, int(r.k), float(r.a), float(r.b)): r.status in AGREE for r in cmp_.itertuples()}
    counts = Counts()

    def per_cell(starts, alg, default_col=None):
        head, body = _table(UKK, starts)
        for row in body:
            cell = dict(zip(head, row))
            a = _ALG[cell["algorithm"]] if alg is None else alg
            key = (a, int(cell["k"]), float(cell["a"]), float(cell["b"]))
            ours = committed[key]
            if default_col is not None:  # the table's default is the committed run, cell for cell
                assert _ukk_marked(cell[default_col]) == ours, (starts, key)
            for col, value in cell.items():
                if col in ("k", "a", "b", "paper", "algorithm") or col == default_col:
                    continue
                if "committed" in col:
                    if col != "map/ours (committed)":  # the 10-trial MAP run is map/ours itself
                        continue
                    col = "map/ours"
                verdict = _ukk_marked(value)
                if verdict is not None:
                    counts.add(a, col, ours, verdict)

    # item 1 (t-STE) and item 2 (CrowdClust): round 6's tables hold only cells where ours differs, not counted
    per_cell("k | a | b | paper | ours/ours | ours/raw | ours/unit | ours/conc1 | ours/vdpgm_prior | ours/vdp",
             "tste_dpmm", default_col="ours/ours")
    per_cell("k | a | b | paper | gd/ours", "tste_dpmm")
    per_cell("k | a | b | paper | map/ours | map/vdp | vb/ours", "crowdclust_dpmm", default_col="vb/ours")
    per_cell("k | a | b | paper | map/ours (committed) |", "crowdclust_dpmm", default_col="vb/ours")
    per_cell("k | a | b | paper | map/ours (committed; 1 trial", "crowdclust_dpmm")
    # item 4 (the generator): measurement 3's cells, round 6's cell k = 16, a = 1, b = 0.2, and measurement 2
    # (k = 2: every variant and the default agree in all 12 cells of both algorithms)
    per_cell("algorithm | k | a | b | paper | default: default", None, default_col="default: default")
    head, body = _table(UKK, "algorithm | paper | default: default")
    for row in body:
        cell = dict(zip(head, row))
        a = _ALG[cell["algorithm"]]
        ours = committed[(a, 16, 1.0, 0.2)]
        assert _ukk_marked(cell["default: default"]) == ours
        for col in head[3:]:
            counts.add(a, col, ours, _ukk_marked(cell[col]))
    for a in ("ls_ad_vc", "ls_eq_vc"):
        for v in ("ambiguous: random", "ambiguous: last", "ambiguous: drop", "order: sorted", "labels: blocks"):
            for _ in range(12):
                counts.add(a, v, True, True)
    return counts


def _committed_agree(algorithm: str) -> int:
    """Table I cells (of 48) where the committed report agrees for ``algorithm``: the default's count of the
    per-variant tables of items 3 and 4 (41 under the rule whole_runs; 38 before it)."""
    cmp_ = pd.read_csv(ROOT / "results" / "exp1_triplets" / "paper" / "comparison.csv")
    rows = cmp_[(cmp_["quantity"] == "n_clusters_mean") & (cmp_["algorithm"] == algorithm)]
    assert len(rows) == 48
    return int(rows["status"].isin(AGREE).sum())


def test_ukkonen_ledger_is_the_readmes_marks():
    counts = _ukk_counts()
    ledger = _ledger_counts("ukkonen2017")
    both = ("tste_dpmm", "crowdclust_dpmm")
    for m in ("raw", "unit", "conc1", "vdpgm_prior", "vdp"):  # the mixture of both embeddings
        assert ledger[("tste_dpmm", f"mixture: {m}")] == counts.scope(
            [("tste_dpmm", f"ours/{m}"), ("crowdclust_dpmm", f"vb/{m}")]), m
        assert ledger[("crowdclust_dpmm", f"mixture: {m}")] == ledger[("tste_dpmm", f"mixture: {m}")]
    for v in ("gd/ours", "gd_theano/ours", "cap20/ours", "dim2/ours"):
        assert ledger[("tste_dpmm", v)] == counts.scope([("tste_dpmm", v)]), v
    assert ledger[("crowdclust_dpmm", "map/ours")] == counts.scope([("crowdclust_dpmm", "map/ours")])
    # item 4 (the generator): the whole grid's per-variant table (agree / moved / broke of 48 cells each), which
    # holds measurement 3's cells, round 6's a = 1 cell and k = 2 (their marks were counted above against the
    # committed run; the ledger counts every cell the ablation judged: the whole grid)
    head, body = _table(UKK, "variant | Ls-AD-VC agree / 48 | moved | broke | Ls-EQ-VC agree / 48")
    generator = set()
    base_ad, base_eq = _committed_agree("ls_ad_vc"), _committed_agree("ls_eq_vc")
    for row in body:
        v = row[0].strip("`")
        if v == "default":
            assert (int(row[1]), int(row[4])) == (base_ad, base_eq)  # the ablation's default is the committed run
            continue
        ad, eq = (int(row[2].split("/")[0]), int(row[3])), (int(row[5].split("/")[0]), int(row[6]))
        assert int(row[1]) == base_ad + ad[0] - ad[1] and int(row[4]) == base_eq + eq[0] - eq[1]  # the table adds up
        assert ledger[("ls_eq_vc", f"generator {v}")] == [96, base_ad + base_eq, ad[0] + eq[0], ad[1] + eq[1]], v
        assert ledger[("ls_ad_vc", f"generator {v}")] == ledger[("ls_eq_vc", f"generator {v}")], v
        # the cells counted before the whole grid was run are a part of it: never more moved or broke there
        part = counts.scope([("ls_ad_vc", v), ("ls_eq_vc", v)])
        assert part[2] <= ad[0] + eq[0] and part[3] <= ad[1] + eq[1], (v, part)
        generator.add(v)
    assert generator == {"ambiguous: random", "ambiguous: last", "ambiguous: drop", "order: sorted", "labels: blocks"}
    # item 3's local search: the README's own per-variant table (agree / moved / broke of 48 cells each)
    head, body = _table(UKK, "variant | Ls-AD-VC agree / 48 | moved | broke | cells at exactly 2.0")
    for row in body:
        v = row[0].replace("**", "")
        if v.startswith("default"):
            assert (int(row[1]), int(row[6])) == (base_ad, base_eq)
            continue
        ad, eq = (int(row[2].split("/")[0]), int(row[3])), (int(row[7].split("/")[0]), int(row[8]))
        assert int(row[1]) == base_ad + ad[0] - ad[1] and int(row[6]) == base_eq + eq[0] - eq[1]  # the table adds up
        assert ledger[("ls_ad_vc", v)] == [96, base_ad + base_eq, ad[0] + eq[0], ad[1] + eq[1]], v
    assert set(both) <= {a for a, _ in ledger}


# ----------------------------------------------------------------------------- Zhu: item 7's ✓ / ≈ marks


def test_zhu_graph_ledger_is_the_readmes_marks():
    readme = experiments_dir() / "zhu2013" / "README.md"
    text = readme.read_text(encoding="utf-8").split("\n")
    start = text.index("## The spectral baselines' graph (issue 34, item 7)")
    tables, current = {}, None
    for line in text[start:]:
        m = re.match(r"^\*(SPClust|SL|E2CP), Table (II|III) \(", line)
        if m:
            current = m.groups()
            tables[current] = {}
        elif current and line.startswith("| ") and not line.startswith(("| variant", "| paper")):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            tables[current][cells[0]] = [("✓" in c or "≈" in c) for c in cells[1:]]
        elif line.startswith("Over the 15 cells"):
            break
    assert set(tables) == {("SPClust", "II"), ("SL", "II"), ("SL", "III"), ("E2CP", "II"), ("E2CP", "III")}
    tables[("SPClust", "III")] = tables[("SPClust", "II")]  # SPClust reads no constraints: the README says so
    counts = Counts()
    for t in tables.values():
        for v, marks in t.items():
            if v != "default":
                for ours, variant in zip(t["default"], marks):
                    counts.add("graph", v, ours, variant)
    ledger = _ledger_counts("zhu2013")
    graph = {v for (_, v) in counts.c}
    assert graph == {"k_5", "k_20", "k_N/10", "bw_median", "bw_local", "bw_fixed", "lap_rw", "lap_unnormalized"}
    for v in graph:
        for alg in ("spectral", "spectral_learning", "e2cp"):  # one graph, counted over the three methods
            assert ledger[(alg, v)] == counts.scope([("graph", v)]), (alg, v)


# ----------------------------------------------------------------------------- every paper


@pytest.mark.parametrize("paper", PAPERS)
def test_every_measured_row_names_a_ledger_variant_that_meets_the_rule(paper):
    folder = experiments_dir() / paper
    ledger = load_ledger(folder / "ablations.csv")
    assert ledger, f"{paper} has no ablations.csv"
    readme_anchors = anchors(folder / "README.md")
    for entry in ledger.values():
        assert entry["evidence"][1:] in readme_anchors, (paper, entry["variant"], entry["evidence"])
        assert entry["reason"], (paper, entry["variant"])
    ref = load_reference(paper)
    measured = [r for r in ref.to_dict("records") if parse_cause(r["cause"])[0] == "measured"]
    for r in measured:
        assert measured_problem(r["algorithm"], r["moved_by"], ledger) is None, r["ref_id"]
