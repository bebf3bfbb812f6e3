"""``borrowing_njit``: numba kernels that only borrow arrays, compiled without reference counting.

A function compiled by ``numba.njit`` increments the reference count of
every array it receives when it starts and decrements it when it returns,
each an atomic operation on the array's MemInfo, unless LLVM inlines the
call and numba's pruning removes the pairs.  A namedtuple of nine arrays
(ReCon's peeling scratch) costs 18 of them a call.  In a kernel that calls
a small helper once per visited vertex, that is most of its time: on
ReCon's Transfusion case (748 items, |D| constraints, 29 M edge visits in
TestCompatibility) ``NRT_incref`` and ``NRT_decref`` took a third of the
samples under ``perf``, and with ReCon's kernels compiled without them
(and nothing else changed) the fit fell from 1.39-1.47 s to 0.58-0.61 s,
Letters-3000 with 3,000 constraints from 4.8-4.9 s to 2.8-2.9 s
(``scripts/bench/bench_recon.py --part fit``, 2026-11-29).

numba's ``_nrt=False`` option compiles a function without its NRT, so
without those counts.  That is safe for a function that (i) allocates no
array, list or other NRT object (numba refuses to compile one that does)
and (ii) keeps no reference to an array after it returns: the caller holds
every array it passes, for the whole call.  The kernels decorated here are
such helpers; the drivers that allocate their state stay plain ``njit``.
``tests/test_borrowing_kernels.py`` checks (ii) on every compiled one.
The option is numba's own (``numba.core.options``), underscored because it
is meant for compiled code that manages memory itself, as these helpers
do by borrowing.  Results are unchanged: the same instructions run, less
the counting.
"""

from __future__ import annotations

from numba import njit


def borrowing_njit(fn=None, **options):
    """``numba.njit(cache=True, _nrt=False, **options)``, for helpers that neither allocate nor keep an array.

    Use as ``@borrowing_njit`` or ``@borrowing_njit(inline="always")``.
    """
    decorate = njit(cache=True, _nrt=False, **options)
    return decorate if fn is None else decorate(fn)
