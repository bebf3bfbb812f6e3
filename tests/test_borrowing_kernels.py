"""``ccexp._jit.borrowing_njit``: kernels compiled without reference counting stay safe.

A kernel compiled with numba's ``_nrt=False`` neither increments nor
decrements the reference counts of the arrays it is given.  That is safe
only while it (i) allocates nothing, which numba enforces by refusing to
compile, and (ii) hands no array back: a caller compiled with reference
counting takes a returned array as a new reference and releases it later,
which would free an array that someone else still holds.  Rule (ii) is
checked on every borrowing kernel that a ReCon fit compiles (with each
TestCompatibility, and without constraints), in a fresh process on an
empty numba cache: a kernel loaded from the cache inside its caller is
never compiled on its own, and so shows no signature to check.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from ccexp._jit import borrowing_njit

#: run in a fresh process: fit, then print each borrowing kernel's compiled return types
_PROBE = textwrap.dedent("""
    import json, sys
    import numpy as np
    from numba.core import types
    from numba.core.registry import CPUDispatcher
    from ccexp import make_algorithm, make_problem
    from ccexp.algorithms.relative import constrained_linkage
    from ccexp.data.dataset import Dataset

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    ds = Dataset(name="toy", X=X, y=y)
    R = make_problem("relative_random", ds, fraction=1.0, random_state=0).relative
    for how in ("peel", "reference", "both"):
        constrained_linkage(X, R, compatibility_test=how)
    make_algorithm("hierarchical", n_clusters=2).fit_problem(make_problem("relative_random", ds, fraction=0.0))
    out = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("ccexp") or module is None:
            continue
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher) and value.targetoptions.get("_nrt") is False and value.overloads:
                key = value.py_func.__module__ + "." + value.py_func.__name__
                out[key] = [repr(c.signature.return_type) for c in value.overloads.values()]
    print(json.dumps(out))
""")


def test_a_borrowing_kernel_refuses_to_allocate():
    @borrowing_njit
    def allocates(n):
        return np.zeros(n).sum()

    with pytest.raises(TypingError, match="zeros"):  # np.zeros needs the runtime that _nrt=False leaves out
        allocates(3)


def test_no_borrowing_kernel_returns_an_array(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True,
                         timeout=900)
    compiled = json.loads(out.stdout.strip().splitlines()[-1])
    # every borrowing kernel of the agglomeration compiled (the three tests between them call all of them)
    assert {"ccexp.algorithms.relative._compat_peel.test_compatibility_peel",
            "ccexp.algorithms.relative._constraint_state.merge_components",
            "ccexp.algorithms.relative._compat_levels.test_compatibility",
            "ccexp.algorithms.relative._linkage_queue.rescan",
            "ccexp.cc.union_find.uf_union_stamped"} <= set(compiled)
    returned = {name: sig for name, sigs in compiled.items() for sig in sigs if "Array(" in sig}
    assert returned == {}
    # and the check would see one: numba's repr of an array type, alone or in a tuple
    assert "Array(" in repr(types.int64[:]) and "Array(" in repr(types.Tuple((types.int64, types.float64[:, :])))
    assert "Array(" not in repr(types.UniTuple(types.int64, 2))
