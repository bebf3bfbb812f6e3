"""``python -m ccexp.report NAME|all [--results DIR] [--scale S] [--check]``: write reports.

``all`` reports every experiment of :data:`ccexp.report.REPORTS` that has
records under ``DIR``, then writes ``DIR/REPRODUCTION.md`` and
``DIR/metrics.json`` (:mod:`ccexp.report.reproduction`).  ``--check`` then
fails (exit 1) when a reference row flagged ``ci=yes`` is not within its
tolerance: the CI gate, for records made at ``scale=ci``.  Prints the files
written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import REPORTS, make_report

# What a report writes, relative to results/NAME/SCALE (printed after a run).
_OUTPUTS = ("report.md", "comparison.md", "comparison.csv", "figures/*", "tables/*")


def _has_records(results: Path, name: str, scale: str | None) -> bool:
    from ..runner.layout import experiment_dir, has_records, latest_label

    if scale is not None:
        return has_records(experiment_dir(results, name, scale))
    return latest_label(results, name) is not None


def _check(results: Path, names: list[str]) -> int:
    from .common import markdown_table
    from .reproduction import check

    result = check(results, names)
    for name in result.skipped:
        print(f"check: {name} skipped (its records are not at scale=ci)", file=sys.stderr)
    n = len(result.gated)
    if result.ok:
        print(f"check: all {n} ci-gated reference rows within tolerance")
        return 0
    show = result.failures[["experiment", "ref_id", "paper", "ours", "tolerance", "verdict"]]
    print(f"check: {len(show)} of {n} ci-gated reference rows failed:\n" + markdown_table(show, digits=4), file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    """Command-line entry; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m ccexp.report", description=__doc__.splitlines()[0])
    parser.add_argument("name", help=f"experiment name or 'all' (one of: {', '.join(sorted(REPORTS))})")
    parser.add_argument("--results", default="results", help="results folder (default: results)")
    parser.add_argument("--scale", default=None,
                        help="scale folder to report on: paper | quick | ci | <scale>+custom-<hash> "
                             "(default: the last run's; with 'all', paper when present)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a ci-gated reference row is not within tolerance (records at scale=ci)")
    args = parser.parse_args(argv)
    results = Path(args.results)
    if args.name == "all":
        names = [n for n in sorted(REPORTS) if _has_records(results, n, args.scale)]
        if not names and not args.check:
            print(f"no records under {results} for any of: {', '.join(sorted(REPORTS))}", file=sys.stderr)
            return 1
    elif args.name in REPORTS:
        names = [args.name]
    else:
        parser.error(f"unknown experiment {args.name!r}; valid: all, {', '.join(sorted(REPORTS))}")
    from ..runner.layout import CUSTOM_MARK, latest_label

    for name in names:
        label = args.scale or latest_label(results, name, prefer_paper=args.name == "all")
        try:
            out = make_report(name, results_dir=results, scale=label.split(CUSTOM_MARK)[0] if label else None, label=label)
        except FileNotFoundError as err:
            print(f"{name}: {err}", file=sys.stderr)
            return 1
        for pattern in _OUTPUTS:
            for path in sorted(out.glob(pattern)):
                if path.is_file():
                    print(path)
    if args.name == "all":
        from .reproduction import write_reproduction

        page = write_reproduction(results, scale=args.scale)
        print(page)
        print(page.parent / "metrics.json")
    if args.check:
        # 'all' checks every experiment, so one that was not run fails its gated rows
        return _check(results, sorted(REPORTS) if args.name == "all" else names)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
