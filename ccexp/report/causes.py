"""Why a reference row differs: the ``cause`` and ``evidence`` columns of reference.csv (issue 28).

A row whose status is *differs* at paper scale carries a cause:

- ``measured``: an ablation in the paper's README changes one named setting,
  lists every variant tried, and moves our number to the paper's;
- ``setup:<variant>``: a committed paper-scale run of the named variant
  (``experiment.variant=<variant>``, ``results/<experiment>/paper+<variant>/``)
  reproduces the row; the page shows both values;
- ``paper``: the paper's own numbers are inconsistent, shown by a computation
  in the README;
- ``unexplained``: none of these yet.

``evidence`` is an anchor of the paper's README (``#anchor``): a GitHub
heading slug or an explicit ``<a id="anchor">``.  :func:`cause_problems` is
what ``python -m ccexp.report all --check`` enforces.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

from .tables import is_missing

#: The causes a differing row may carry, with what each means (the page prints them).
CAUSES = {
    "measured": "an ablation in the paper's README changes one named setting, lists every variant tried, "
                "and moves our number to the paper's",
    "setup": "a committed paper-scale run of a named variant (`setup:<variant>`, e.g. the authors' code's "
             "settings) reproduces the row; the page shows both values",
    "paper": "the paper's own numbers are inconsistent, shown by a computation in the README",
    "unexplained": "none of these yet; the README says what was tried",
}

#: Causes whose evidence anchor is required (``unexplained`` may name one).
NEEDS_EVIDENCE = ("measured", "setup", "paper")


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
