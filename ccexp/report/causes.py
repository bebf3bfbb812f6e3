"""Why a reference row differs: the ``cause`` and ``evidence`` columns of reference.csv (issue 28).

A row whose status is *differs* at paper scale carries a cause:

- ``measured``: a variant that changes one named setting moves our number to the
  paper's, and over every cell its ablation judged it agrees in more cells
  than our setup does (:func:`measured_problem`; the variants and their counts
  are the paper's ablation ledger, ``experiments/<paper>/ablations.csv``,
  :func:`load_ledger`);
- ``setup:<variant>``: a committed paper-scale run of the named variant
  (``experiment.variant=<variant>``, ``results/<experiment>/paper+<variant>/``)
  reproduces the row; the page shows both values;
- ``chance``: one fresh batch of the row's runs, judged alone, is not
  *differs*: the difference does not replicate (:mod:`ccexp.report.chance`; the runs are the
  paper's ``experiments/<paper>/fresh_seeds.csv``, the verdicts of a claim or a count on a fresh
  batch's report its ``fresh_claims.csv``); it comes before ``measured`` and
  ``setup``: a row whose fresh batch does not differ carries ``chance`` whatever
  variant moves it;
- ``paper``: the paper's own numbers are inconsistent, shown by a computation
  in the README;
- ``unexplained``: none of these yet.

``evidence`` is an anchor of the paper's README (``#anchor``): a GitHub
heading slug or an explicit ``<a id="anchor">``.  :func:`cause_problems` is
what ``python -m ccexp.report all --check`` enforces.
"""

from __future__ import annotations

import csv
import functools
import re
import unicodedata
from pathlib import Path

from .tables import is_missing

#: The causes a differing row may carry, with what each means (the page prints them).
CAUSES = {
    "measured": "a variant that changes one named setting (for a reason in the paper's text, the code it names or "
                "the data as it describes them) agrees with the paper's number in this row, and over every cell its "
                "ablations judged (for a setting the paper holds fixed for several methods, one graph, one mixture, "
                "one generator, the cells of all of them) it agrees in more cells than our setup does: moved > broke (a table "
                "that holds only cells where our setup differs cannot show what a setting breaks, and is not "
                "counted; the paper's `ablations.csv`, named in the row's `moved_by`). A setting that reaches one "
                "cell only by losing as many others is a trade of cells, not a cause: such a row stays unexplained",
    "setup": "a committed paper-scale run of a named variant (`setup:<variant>`, e.g. the authors' code's "
             "settings) reproduces the row; the page shows both values",
    "chance": "one fresh batch of the row's runs (the same code, setup and number of trials, the repetitions "
              "numbered from 1000 instead of 0: every random draw new, nothing else changed), judged alone by the "
              "rule, is not *differs*: the difference does not replicate, as the rule's two-sided 2 SE lets about one "
              "row in 20 of those judged over trials differ by chance. A mean over trials is judged on its fresh runs "
              "(the paper's `fresh_seeds.csv`); a claim, a count or a percentage, which has no runs of its own, on the "
              "report of one fresh batch of the whole experiment (`fresh_claims.csv`, since 2026-11-29). One batch "
              "per row, so a row is never redrawn until it passes; not pooled with the committed runs, which are on "
              "trial because they differed. It comes before `measured` and `setup`: a variant cannot explain a "
              "difference that a fresh draw of our own setup does not keep",
    "paper": "the paper's own numbers are inconsistent, shown by a computation in the README",
    "unexplained": "none of these yet; the README says what was tried",
}

#: Causes whose evidence anchor is required (``unexplained`` may name one).
NEEDS_EVIDENCE = ("measured", "setup", "chance", "paper")


def parse_cause(text) -> tuple[str, str]:
    """``(kind, variant)`` of a ``cause`` cell; ``("", "")`` for an empty one.

    Raises
    ------
    ValueError
        If the kind is not one of :data:`CAUSES`, or ``setup`` names no
        variant (or another cause names one).

    Examples
    --------
    >>> parse_cause("setup:authors"), parse_cause("measured"), parse_cause("")
    (('setup', 'authors'), ('measured', ''), ('', ''))
    """
    if is_missing(text) or not str(text).strip():
        return "", ""
    kind, _, variant = str(text).strip().partition(":")
    kind, variant = kind.strip(), variant.strip()
    if kind not in CAUSES:
        raise ValueError(f"cause={text!r}: valid causes are {', '.join(k + (':<variant>' if k == 'setup' else '') for k in CAUSES)}")
    if (kind == "setup") != bool(variant):
        raise ValueError(f"cause={text!r}: " + ("setup names its variant, setup:<variant>" if kind == "setup"
                                                 else f"{kind} takes no variant"))
    if variant and not re.fullmatch(r"[A-Za-z0-9_]+", variant):
        raise ValueError(f"cause={text!r}: a variant name is letters, digits and underscores")
    return kind, variant


def slug(heading: str) -> str:
    """The anchor GitHub gives a markdown heading.

    Lower case; punctuation other than hyphens and underscores dropped;
    spaces become hyphens.

    Examples
    --------
    >>> slug("Item 2: agglomerative's merge test (< vs <=)")
    'item-2-agglomeratives-merge-test--vs-'
    >>> slug("t-STE + DP mixture")
    't-ste--dp-mixture'
    """
    text = unicodedata.normalize("NFKC", heading).strip().lower()
    text = re.sub(r"<[^>]+>", "", text)  # inline html
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@functools.lru_cache(maxsize=32)
def _anchors_cached(path: str, mtime: int) -> frozenset[str]:
    text = Path(path).read_text(encoding="utf-8")
    found: set[str] = set()
    seen: dict[str, int] = {}
    in_code = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            # GitHub numbers repeated headings: x, x-1, x-2, ...
            k = seen.get(base, 0)
            seen[base] = k + 1
            found.add(base if k == 0 else f"{base}-{k}")
        found.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", line))
    return frozenset(found)


def anchors(readme: str | Path) -> frozenset[str]:
    """Every anchor a markdown file defines (heading slugs and ``<a id=...>``); empty if it is absent."""
    p = Path(readme)
    if not p.is_file():
        return frozenset()
    return _anchors_cached(str(p), p.stat().st_mtime_ns)


def evidence_problem(evidence, readme: str | Path) -> str | None:
    """Why ``evidence`` does not point into ``readme`` (None when it does, or is empty)."""
    if is_missing(evidence) or not str(evidence).strip():
        return None
    ev = str(evidence).strip()
    if not ev.startswith("#") or len(ev) < 2:
        return f"evidence={ev!r} is not an anchor (write #anchor, a heading of {Path(readme).name})"
    if ev[1:] not in anchors(readme):
        return f"evidence={ev!r}: no such heading or <a id> in {readme}"
    return None


# --------------------------------------------------------------------------------------------- the ablation ledger
#: The columns of ``experiments/<paper>/ablations.csv``: per variant and its scope (the algorithms it applies to),
#: the cells its ablations judged (summed over the README's tables and the scope's algorithms), of them those our
#: setup agrees on, and the cells it moved and broke.
LEDGER_COLUMNS = ("algorithm", "variant", "settings_changed", "cells", "default_agrees", "moved", "broke",
                  "evidence", "reason")
_LEDGER_COUNTS = ("settings_changed", "cells", "default_agrees", "moved", "broke")


def csv_lines(path: str | Path, columns: tuple[str, ...]):
    """The rows of a ledger csv with their line numbers, ``(line, row)``; none when the file is absent.

    Raises
    ------
    ValueError
        A column of ``columns`` missing from the header, in one line naming the file.
    """
    path = Path(path)
    if not path.is_file():
        return
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                             f"(the columns: {', '.join(columns)})")
        yield from enumerate(reader, start=2)


def load_ledger(path: str | Path) -> dict[tuple[str, str], dict]:
    """The ablation ledger of a paper, keyed by ``(algorithm, variant)``; empty when the file is absent.

    Each row counts, for one variant of the README's ablations, the
    ``cells`` its ablations judged, the ``default_agrees`` of them that our
    setup agrees on, the cells the variant ``moved`` (ours differs, the
    variant agrees) and ``broke`` (the reverse), transcribed from the README
    tables its ``evidence`` anchor names.  ``algorithm`` is the setting's
    scope: one algorithm, or several separated by ``;`` where the paper holds
    the setting fixed for all of them (one graph for every spectral method,
    one mixture for every embedding); the counts are then over all of theirs,
    and the entry is found under each.

    Raises
    ------
    ValueError
        A missing column, a count that is not an integer >= 0, counts that
        cannot be (``moved > cells - default_agrees``, ``broke >
        default_agrees``), or an (algorithm, variant) given twice: one line
        naming the file and its line.
    """
    ledger: dict[tuple[str, str], dict] = {}
    for line, row in csv_lines(path, LEDGER_COLUMNS):
        where = f"{path}, line {line}"
        entry = {k: (row[k] or "").strip() for k in LEDGER_COLUMNS}
        for k in _LEDGER_COUNTS:
            if not re.fullmatch(r"\d+", entry[k]):
                raise ValueError(f"{where}: {k}={entry[k]!r} is not a count (an integer >= 0)")
            entry[k] = int(entry[k])
        if not entry["variant"]:
            raise ValueError(f"{where}: the variant has no name")
        if entry["default_agrees"] > entry["cells"]:
            raise ValueError(f"{where}: default_agrees={entry['default_agrees']} exceeds cells={entry['cells']}")
        if entry["moved"] > entry["cells"] - entry["default_agrees"]:
            raise ValueError(f"{where}: moved={entry['moved']} exceeds the cells our setup differs on "
                             f"({entry['cells']} - {entry['default_agrees']})")
        if entry["broke"] > entry["default_agrees"]:
            raise ValueError(f"{where}: broke={entry['broke']} exceeds the cells our setup agrees on "
                             f"(default_agrees={entry['default_agrees']})")
        # one setting the paper holds fixed for several methods (one graph, one mixture, one
        # generator) is one entry over all of them: its cells are theirs, summed
        entry["algorithms"] = tuple(a.strip() for a in entry["algorithm"].split(";"))
        for alg in entry["algorithms"]:
            key = (alg, entry["variant"])
            if key in ledger:
                raise ValueError(f"{where}: algorithm={alg!r}, variant={key[1]!r} is given twice")
            ledger[key] = entry
    return ledger


def variant_problem(entry: dict) -> str | None:
    """Why a ledger entry cannot be a cause (None when it can): the rule of :data:`CAUSES`' ``measured``.

    Examples
    --------
    >>> e = dict(settings_changed=1, cells=40, default_agrees=6, moved=9, broke=4)
    >>> variant_problem(e) is None
    True
    >>> variant_problem({**e, "moved": 4, "broke": 5})
    'a trade of cells, not a cause: moved 4, broke 5'
    """
    if entry["settings_changed"] != 1:
        return f"changes {entry['settings_changed']} settings, not one"
    if entry["default_agrees"] < 1:
        return "judged only on cells our setup differs on, so it cannot show that it breaks none"
    if entry["moved"] == 0:
        return f"moves no cell its ablations counted (broke {entry['broke']})"
    if entry["moved"] <= entry["broke"]:
        return f"a trade of cells, not a cause: moved {entry['moved']}, broke {entry['broke']}"
    return None


def moved_by_names(moved_by) -> list[str]:
    """The variant names of a ``moved_by`` cell (``;``-separated; empty for an empty cell).

    >>> moved_by_names("mixture: vdp; dim2/ours"), moved_by_names(float("nan"))
    (['mixture: vdp', 'dim2/ours'], [])
    """
    return [] if is_missing(moved_by) else [v.strip() for v in str(moved_by).split(";") if v.strip()]


def measured_problem(algorithm: str, moved_by, ledger: dict[tuple[str, str], dict]) -> str | None:
    """Why a ``measured`` row's ``moved_by`` does not meet the rule (None when it does).

    ``moved_by`` names the variants (``;``-separated) of ``ledger``, for the
    row's ``algorithm``, that agree with the paper in this row; at least one
    of them must be a cause by :func:`variant_problem`.
    """
    names = moved_by_names(moved_by)
    if not names:
        return "cause 'measured' names no variant in moved_by (a variant of the paper's ablations.csv)"
    why = []
    for name in names:
        entry = ledger.get((algorithm or "", name))
        if entry is None:
            why.append(f"{name!r} is not in ablations.csv for algorithm {algorithm!r}")
            continue
        problem = variant_problem(entry)
        if problem is None:
            return None
        why.append(f"{name!r} {problem}")
    return "cause 'measured' but " + "; ".join(why)
