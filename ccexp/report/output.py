"""A report as data, and the one writer that puts it into the report folder (issue 30, item 6).

Each experiment's report function computes a :class:`Report` from the
records: its tables (DataFrames), figures (matplotlib figures, or a function
that draws one into a path), text sections (``report.md``, ``comparison.md``)
and its comparison rows; it writes no file.  :func:`write_report` renders a
:class:`Report` into ``results/<experiment>/<label>/`` (``report.md``,
``tables/``, ``figures/``, ``comparison.csv`` / ``.md``), as benchopt's
``get_data`` is kept apart from its plotting.  :func:`ccexp.report.make_report`
calls both, inside :func:`ccexp.report._files.replacing_report`.

The comparison's columns are :data:`ccexp.report.comparison.COMPARISON_COLUMNS`
(one list); an experiment that no paper reports has :func:`no_paper_comparison`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Union

import pandas as pd
from matplotlib.figure import Figure

from .comparison import EMPTY_COMPARISON_COLUMNS
from .tables import markdown_table, with_error_bars, write_table

__all__ = ["Report", "Table", "comparison_page", "no_paper_comparison", "write_report"]


@dataclass
class Table:
    """One table of a report: ``tables/<stem>.csv`` (the frame as is) and ``tables/<stem>.md``.

    Attributes
    ----------
    frame : DataFrame
        The table (written to the csv without its index).
    digits : int
        Decimals of the markdown rendering (:func:`ccexp.report.tables.markdown_table`).
    md : str, optional
        Markdown text to write instead of the default rendering.
    """

    frame: pd.DataFrame
    digits: int = 2
    md: str | None = None


#: A figure: a matplotlib figure and the dpi it is saved at, or a function that draws and saves one into the
#: path it is given (a plotting helper that takes a path; it may draw nothing when there is nothing to show).
FigureSpec = Union[tuple[Figure, int], Callable[[Path], object]]


@dataclass
class Report:
    """What a report computed, before anything is written (see the module docstring).

    Attributes
    ----------
    tables : dict of str to Table
        ``tables/<stem>.{csv,md}``, keyed by stem (in the order written).
    figures : dict of str to FigureSpec
        ``figures/<name>`` (a file name with its ``.png``).
    files : dict of str to str
        Other text files, keyed by their path in the folder (``tables/table1_vs_paper.md``).
    text : str, optional
        ``report.md``; None: :func:`ccexp.report.make_report` writes the folder's index page.
    comparison : DataFrame, optional
        ``comparison.csv`` (its rows, as :func:`ccexp.report.comparison.compare_row` gives them, plus the
        report's coordinate columns); None: no csv (a report that found nothing to compare).
    comparison_md : str, optional
        ``comparison.md``.
    """

    tables: dict[str, Table] = field(default_factory=dict)
    figures: dict[str, FigureSpec] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    text: str | None = None
    comparison: pd.DataFrame | None = None
    comparison_md: str | None = None

    def table(self, stem: str, frame: pd.DataFrame, digits: int = 2, md: str | None = None) -> pd.DataFrame:
        """Add ``tables/<stem>.*`` (a copy of ``frame``, so later changes to it do not reach the file); returns ``frame``."""
        self.tables[stem] = Table(frame.copy(), digits, md)
        return frame

    def figure(self, name: str, figure: Figure | Callable[[Path], object], dpi: int | None = None) -> None:
        """Add ``figures/<name>``: a figure saved at ``dpi``, or a function ``draw(path)`` (``dpi`` None)."""
        if isinstance(figure, Figure):
            if dpi is None:
                raise ValueError(f"figure {name!r}: dpi is required for a matplotlib Figure")
            self.figures[name] = (figure, dpi)
        elif callable(figure):
            self.figures[name] = figure
        else:
            raise ValueError(f"figure {name!r}: expected a matplotlib Figure or a callable draw(path), got {figure!r}")

    def compare(self, rows: pd.DataFrame | list[dict], md: str, csv_when_empty: bool = True) -> None:
        """Set the comparison: ``rows`` (``comparison.csv``; without rows, only if ``csv_when_empty``) and ``comparison.md``."""
        frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
        self.comparison = frame if len(frame) or csv_when_empty else None
        self.comparison_md = md


def comparison_page(title: str, rows: pd.DataFrame, columns, intro: str, extra: str = "") -> str:
    """``comparison.md``: a title, ``intro``, the rows' ``columns`` that they have (ours as mean ± 2 SE), ``extra``.

    Without rows, the table is "(no rows)".
    """
    shown = rows[[c for c in columns if c in rows]] if len(rows) else rows
    body = markdown_table(with_error_bars(shown), digits=3) if len(rows) else "(no rows)\n"
    return f"# {title}: comparison with the paper\n\n{intro}\n\n{body}{extra}"


def no_paper_comparison(experiment: str, what: str, folder: str | None = None) -> tuple[pd.DataFrame, str]:
    """The comparison of an experiment no paper reports: no rows (well-formed columns), and a page that says so.

    The reproduction page and DVC then find the files every report writes.

    Parameters
    ----------
    experiment : str
        The experiment (the page's title).
    what : str
        What the numbers are instead ("a result of this project").
    folder : str, optional
        Its folder under ``experiments/`` (default ``experiment``).
    """
    md = (f"# {experiment}: comparison with the paper\n\nNo paper reports these numbers ({what}); "
          f"experiments/{folder or experiment}/reference.csv has no rows.\n")
    return pd.DataFrame(columns=list(EMPTY_COMPARISON_COLUMNS)), md


def write_report(report: Report, out_dir: str | Path) -> Path:
    """Write ``report`` into ``out_dir``: tables, other files, figures, ``comparison.*``, ``report.md``.

    Folders are made as needed.  Returns ``out_dir``.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for stem, t in report.tables.items():
        write_table(t.frame, out_dir / "tables" / stem, digits=t.digits, md=t.md)
    for rel, text in report.files.items():
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for name, spec in report.figures.items():
        path = out_dir / "figures" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(spec, tuple):
            fig, dpi = spec
            fig.savefig(path, dpi=dpi)
        else:
            spec(path)
    if report.comparison is not None:
        report.comparison.to_csv(out_dir / "comparison.csv", index=False)
    if report.comparison_md is not None:
        (out_dir / "comparison.md").write_text(report.comparison_md, encoding="utf-8")
    if report.text is not None:
        (out_dir / "report.md").write_text(report.text, encoding="utf-8")
    return out_dir
