"""Size rules of the package (issue 16, "small kernels with named inputs"); the import rules are test_layers.py's.

Both are read from the source (nothing is imported): no module over 600 lines,
no numba kernel with more than 10 parameters (state travels as a tuple of
arrays with a documented layout instead, as ``slots`` in the aggregation local
search or ``members`` in the active one).
"""

from __future__ import annotations

import ast
from pathlib import Path

import ccexp

ROOT = Path(ccexp.__file__).parent
MAX_LINES = 600
MAX_KERNEL_PARAMETERS = 10


def long_modules(root: Path, limit: int = MAX_LINES) -> dict[str, int]:
    """Modules under ``root`` with more than ``limit`` lines, with their line counts."""
    return {str(p.relative_to(root)): n for p in sorted(root.rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > limit}


def wide_kernels(root: Path, limit: int = MAX_KERNEL_PARAMETERS) -> dict[str, int]:
    """Functions under ``root`` decorated with numba's ``njit``/``jit`` that take more than ``limit`` parameters."""
    wide = {}
    for p in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            if not any("jit" in ast.unparse(d) for d in node.decorator_list):
                continue
            a = node.args
            n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)
            if n > limit:
                wide[f"{p.relative_to(root)}:{node.name}"] = n
    return wide


def test_no_module_of_ccexp_is_over_600_lines():
    assert long_modules(ROOT) == {}


def test_no_kernel_of_ccexp_takes_over_10_parameters():
    assert wide_kernels(ROOT) == {}


def test_the_size_checks_catch_what_they_should(tmp_path):
    (tmp_path / "big.py").write_text("x = 1\n" * 601)
    (tmp_path / "small.py").write_text("x = 1\n" * 600)
    params = ", ".join(f"a{i}" for i in range(11))
    (tmp_path / "k.py").write_text(
        "from numba import njit\n\n"
        f"@njit(cache=True)\ndef wide({params}):\n    return 0\n\n"
        f"@njit\ndef ten({', '.join(f'a{i}' for i in range(10))}):\n    return 0\n\n"
        f"def plain({params}):\n    return 0\n"
    )
    assert long_modules(tmp_path) == {"big.py": 601}
    assert wide_kernels(tmp_path) == {"k.py:wide": 11}
