"""``python -m ccexp.data fetch|status``: bring the real data files into the data folder, or check them.

Examples
--------
::

    python -m ccexp.data fetch                         # every file, from the canonical URLs
    python -m ccexp.data fetch --datasets iris wine    # some datasets (registered names or folders)
    python -m ccexp.data fetch --check                 # only look: ok / missing / mismatch per file
    python -m ccexp.data status --data-dir /data       # the same
    python -m ccexp.data fetch --base-url /mnt/datasets  # a mirror laid out as <dataset>/<file>

Exit status 0 when every file a loader reads is usable, 1 otherwise, 2 on a
usage error (e.g. an unknown dataset).
"""

from __future__ import annotations

import argparse
import sys

from .._plugins import refuse_if_shadowed
from .fetch import MIRROR_ENV, fetch, format_status, status


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--datasets", nargs="+", metavar="NAME", help="registered dataset names or data folders (default: all)"
    )
    common.add_argument("--data-dir", metavar="DIR", help="the data folder (default: $CCEXP_DATA_DIR or ./data)")
    parser = argparse.ArgumentParser(prog="python -m ccexp.data", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fetch", parents=[common], help="download missing files and verify every sha256")
    f.add_argument("--check", action="store_true", help="only report each file's state; download nothing")
    f.add_argument(
        "--base-url",
        metavar="URL",
        help=f"a mirror laid out as <dataset>/<file> (URL or local folder) replacing the canonical hosts "
        f"(default: ${MIRROR_ENV})",
    )
    f.add_argument("--timeout", type=float, default=60.0, help="seconds per connection or read (default 60)")
    sub.add_parser("status", parents=[common], help="report each file's state (= fetch --check)")
    return parser


def main(argv=None) -> int:
    """``python -m ccexp.data {fetch,status}``: fetch the real datasets or check the files present.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code: 0 when every file is good.
    """
    refuse_if_shadowed("python -m ccexp.data")
    args = _parser().parse_args(argv)
    check = args.command == "status" or args.check
    try:
        if check:
            report = status(args.datasets, args.data_dir)
            for r in report.results:
                print(format_status(r))
        else:
            report = fetch(
                args.datasets,
                args.data_dir,
                base_url=args.base_url,
                timeout=args.timeout,
                progress=lambda r: print(format_status(r), flush=True),
            )
    except ValueError as err:  # an unknown dataset name
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(report.summary(), file=sys.stdout if report.ok else sys.stderr)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
