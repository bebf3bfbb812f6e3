"""experiments/gionis2007/README.md says what the committed comparisons say (issue 28.6)."""

from pathlib import Path

from ccexp.report.common import load_reference
from ccexp.report.gionis2007_extra import README_END, README_START, readme_results

ROOT = Path(__file__).resolve().parents[1]


def test_readme_results_block_is_the_committed_comparisons(committed_results):
    text = (ROOT / "experiments" / "gionis2007" / "README.md").read_text(encoding="utf-8")
    assert README_START in text and README_END in text
    block = text[text.index(README_START): text.index(README_END) + len(README_END)]
    expected = readme_results(committed_results, load_reference("gionis2007"))
    assert block == expected, "regenerate the block: python -m ccexp.report.gionis2007_extra"


def test_readme_never_calls_a_differing_row_within_tolerance():
    # the prose may not contradict the table: no 'within tolerance' next to a row the page says differs
    text = (ROOT / "experiments" / "gionis2007" / "README.md").read_text(encoding="utf-8")
    prose = text.replace(text[text.index(README_START): text.index(README_END)], "")
    assert "ROCK's Votes error is within" not in prose
    assert "EC 12.0 is within the tolerance" not in prose


def _anchors(text: str) -> set:
    """GitHub-style slugs of the headings, and explicit <a id="..."> anchors."""
    import re

    out = set(re.findall(r'<a id="([^"]+)"></a>', text))
    for line in text.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
            out.add(slug)
    return out


def test_every_evidence_anchor_exists():
    text = (ROOT / "experiments" / "gionis2007" / "README.md").read_text(encoding="utf-8")
    anchors = _anchors(text)
    ref = load_reference("gionis2007")
    for r in ref.itertuples():
        ev = (getattr(r, "evidence", "") or "")
        ev = "" if ev != ev else str(ev)  # NaN from an empty cell
        if ev:
            assert ev.startswith("#") and ev[1:] in anchors, (r.ref_id, ev)
        cause = getattr(r, "cause", "")
        cause = "" if cause != cause else str(cause)
        if cause in ("measured", "paper") or cause.startswith("setup:"):
            assert ev, (r.ref_id, "a measured, setup or paper cause needs its evidence")
