"""How many calls from ``python -m ccexp`` each algorithm parameter travels before the algorithm reads it (issue 30).

    python scripts/parameter_reach.py [--over 4] [--stacks]

Every registered algorithm is fitted once on the tiny problem of the first
supervision kind it reads (``tests/test_capabilities.py``'s problems: 24 items,
three blobs), with ``fit_problem`` called as the runner's ``run_instance``
calls it.  A spy on the estimator's attribute reads records, for each
parameter of ``get_params()``, the frame that first reads ``self.<param>``
outside the parameter validation (``validate_params``, scikit-learn's
``get_params``), and counts the calls from ``ccexp.__main__.main`` to it:
``main -> run_sweep -> run_instance`` is 2, each frame below ``run_instance``
one more.

What it measures is the first read from the estimator: a value read there
and handed on as an argument is used further down (Ukkonen's and Aronsson's
``max_passes``, which ``tests/test_run_record.py`` follows into the kernels
on the real command line).  A parameter a tiny problem never reads (a branch
not taken) is listed as unread.

Prints one line per algorithm whose parameters are read more than
``--over`` calls from ``main`` and a summary: parameters read, how many
within ``--over`` calls, the deeper ones by depth; ``--stacks`` prints each
deeper read's frames, innermost first.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import ccexp  # noqa: E402
from ccexp.registry import ALGORITHMS  # noqa: E402
from test_capabilities import _problem  # noqa: E402  (the tiny problems of the generic test)

#: frames that read every parameter to check it, not to use it
VALIDATION = {"get_params", "validate_params", "_validate_params"}
#: main -> run_sweep -> run_instance: the calls above the frame that calls fit_problem
ABOVE = 2


def first_reads(name: str) -> tuple[dict[str, list[str]], list[str]]:
    """(parameter -> the frames from its first read up to ``fit_problem``'s caller, innermost first; unread)."""
    cls = ALGORITHMS.get(name)
    problem = _problem((getattr(cls, "reads", None) or ("none",))[0], features=cls.needs_features)
    est = ccexp.make_algorithm(name, random_state=7)
    params = set(est.get_params(deep=False))
    reads: dict[str, list[str]] = {}
    caller = None
    real = type(est).__getattribute__

    def spy(self, attr):
        if caller is not None and self is est and attr in params and attr not in reads:
            frames, checking, f = [], False, sys._getframe(1)
            while f is not None and f is not caller:
                frames.append(f.f_code.co_name)
                checking |= f.f_code.co_name in VALIDATION or f.f_globals.get("__name__", "").startswith("sklearn")
                f = f.f_back
            if f is caller and not checking:
                reads[attr] = frames
        return real(self, attr)

    type(est).__getattribute__ = spy
    try:
        caller = sys._getframe(0)
        est.fit_problem(problem)
    finally:
        caller = None
        del type(est).__getattribute__
    return reads, sorted(params - set(reads))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--over", type=int, default=4, help="report reads more than this many calls from main")
    ap.add_argument("--stacks", action="store_true", help="print the frames of each deeper read")
    args = ap.parse_args(argv)
    depths: collections.Counter = collections.Counter()
    n_read = n_within = 0
    for name in ALGORITHMS.names():
        reads, unread = first_reads(name)
        deep = {p: ABOVE + len(fr) for p, fr in reads.items() if ABOVE + len(fr) > args.over}
        n_read += len(reads)
        n_within += len(reads) - len(deep)
        depths.update(deep.values())
        if deep:
            print(f"{name}: " + ", ".join(f"{p} {d}" for p, d in sorted(deep.items(), key=lambda kv: (-kv[1], kv[0])))
                  + (f"  (unread: {', '.join(unread)})" if unread else ""))
            if args.stacks:
                for p in sorted(deep):
                    print(f"    {p}: " + " <- ".join(reads[p]))
    print(f"{n_read} parameters read by {len(ALGORITHMS.names())} algorithms; {n_within} within {args.over} calls "
          f"of main; deeper: " + (", ".join(f"{c} at {d}" for d, c in sorted(depths.items())) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
