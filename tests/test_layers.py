"""The import rules of ccexp (docs/architecture.md), checked on the source by its syntax tree.

Every module of the package is parsed (nothing is imported or run) and each
``import`` statement is resolved to the ccexp module it names. Four rules:

1. **Layers.** Every module belongs to one group of :data:`LAYERS`. A
   module may import its own group and the groups of a lower rank; groups
   of one rank are independent of each other. So data flows
   config -> dataset -> oracle -> problem -> algorithm -> metrics -> records
   -> report while imports only point down.
2. **Oracles and algorithms never import each other** (both rank 4, so
   rule 1 refuses it; reported on its own to name the rule).
3. **Private stays private.** A module ``P._m`` (or a name ``_f`` defined in
   a module of package ``P``) is imported only from inside ``P``: a family's
   ``_kernels.py`` is its own, and what two families share lives in a public
   module below both.
4. **Imports at the top.** No ``import`` inside a function, except of the
   optional dependencies in :data:`LAZY_IMPORTS`, each with its reason.

The checker itself is tested on small synthetic packages written to
``tmp_path``: each rule must catch its violation.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

import ccexp

#: (rank, group, module prefixes), lowest rank first.  A prefix matches the
#: module itself and everything below it ("ccexp.cc" matches "ccexp.cc._kernels");
#: the group "api" is the package's own ``__init__`` only.
LAYERS: tuple[tuple[int, str, tuple[str, ...]], ...] = (
    # validation helpers, the name -> factory registries, the version, where the shipped files are,
    # where numba caches the kernels, and how the kernels that only borrow arrays are compiled
    (0, "base", ("ccexp._validation", "ccexp._plugins", "ccexp._version", "ccexp._installed", "ccexp._kernel_cache",
                 "ccexp._jit", "ccexp.kinds", "ccexp.registry")),
    # what each registered algorithm reads and each oracle gives, looked up by name
    (1, "capabilities", ("ccexp.capabilities",)),
    # the correlation-clustering core (kernels, graphs, exact solver, contingency tables)
    (1, "cc", ("ccexp.cc",)),
    # what an algorithm may see: the Problem and the active-learning query oracle it carries
    (1, "problem", ("ccexp.problem", "ccexp.problem_oracle")),
    # the supervision's own cost of a clustering, and the kernels the algorithms share with it
    (2, "objectives", ("ccexp.objectives",)),
    # ground-truth metrics, plus the objective of ccexp.score(problem=)
    (3, "metrics", ("ccexp.metrics",)),
    # the three families: none imports another
    (4, "data", ("ccexp.data",)),
    (4, "oracles", ("ccexp.oracles",)),
    (4, "algorithms", ("ccexp.algorithms",)),
    # the public API (load_dataset, make_problem, make_algorithm, score)
    # oracles composed with an algorithm (the pairs an active learner asks, as constraints)
    (5, "composed", ("ccexp.composed",)),
    (6, "api", ("ccexp",)),
    (7, "runner", ("ccexp.runner",)),
    (8, "report", ("ccexp.report",)),
    (9, "cli", ("ccexp.__main__", "ccexp.list", "ccexp.reproduce", "ccexp.track")),
)

#: top-level distributions that may be imported inside a function, and why
LAZY_IMPORTS: dict[str, str] = {
    "ortools": "the 'exact' extra: cc_exact(solver='cpsat') only",
    "xlrd": "the 'fetch' extra: python -m ccexp.data fetch only",
    "distributed": "the 'dask' extra: runner=dask only",
    "dask": "the 'dask' extra: runner=dask only",
    "dvc": "the 'repro' extra",
    "mlflow": "a dependency, but seconds of import that tracking=off runs and the workers never need",
    "scikit_posthocs": "the extra of the cross-supervision report (issue 15, helper 'cross')",
}

@dataclass(frozen=True)
class Violation:
    rule: str  # "layer", "independent", "oracles-algorithms", "private", "function-import", "unassigned"
    module: str
    target: str
    line: int
    why: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line} imports {self.target}: {self.why}"


# ----------------------------------------------------------------------- the checker
def package_modules(root: Path, name: str) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the package at ``root``."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[0] != name or any(not p.isidentifier() for p in parts):
            continue  # not a module of the package (e.g. a folder named with a dash)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _is_package(modules: dict[str, Path], module: str) -> bool:
    return modules[module].name == "__init__.py"


def _imports(tree: ast.Module):
    """(node, inside a function?) for every import statement of a module."""
    def walk(node, in_function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, in_function
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            yield from walk(child, nested)

    yield from walk(tree, False)


def _resolve(node, module: str, is_package: bool, modules: dict[str, Path]) -> list[tuple[str, str | None]]:
    """The modules an import statement names, each with the private name it takes from it (or None)."""
    if isinstance(node, ast.Import):
        return [(alias.name, None) for alias in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module
    out = []
    for alias in node.names:
        sub = f"{source}.{alias.name}"
        if sub in modules:  # from pkg import submodule
            out.append((sub, None))
        else:
            out.append((source, alias.name if alias.name.startswith("_") and not alias.name.startswith("__") else None))
    return list(dict.fromkeys(out))  # one entry per module (and private name) a statement names


def _group(layers, module: str):
    best = None
    for rank, group, prefixes in layers:
        for prefix in prefixes:
            exact_only = "." not in prefix  # the root package: its __init__ alone
            if module == prefix or (not exact_only and module.startswith(prefix + ".")):
                if best is None or len(prefix) > best[2]:
                    best = (rank, group, len(prefix))
    return None if best is None else best[:2]


def _private_parents(target: str, name: str | None, modules: dict[str, Path]) -> list[str]:
    """The packages whose privates ``target`` (and ``name`` from it) are."""
    parts = target.split(".")
    out = [".".join(parts[:i]) for i, p in enumerate(parts) if i and p.startswith("_") and not p.startswith("__")]
    if name is not None:
        out.append(target if target in modules and _is_package(modules, target) else ".".join(parts[:-1]))
    return list(dict.fromkeys(out))


def check_package(root: Path, layers=LAYERS, lazy=LAZY_IMPORTS,
                  independent_pair=("oracles", "algorithms")) -> list[Violation]:
    """Every violation of the four rules in the package at ``root`` (a folder with ``__init__.py``)."""
    name = root.name
    modules = package_modules(root, name)
    found = []
    for module, path in modules.items():
        mine = _group(layers, module)
        if mine is None:
            found.append(Violation("unassigned", module, module, 0, "the module belongs to no group of LAYERS"))
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, in_function in _imports(tree):
            for target, private_name in _resolve(node, module, _is_package(modules, module), modules):
                if in_function and target.split(".")[0] not in lazy:
                    found.append(Violation("function-import", module, target, node.lineno,
                                           "an import inside a function (move it to the top, or fix the cycle it dodges)"))
                if target != name and not target.startswith(name + "."):
                    continue  # another distribution: only the function-import rule applies
                for parent in _private_parents(target, private_name, modules):
                    if module != parent and not module.startswith(parent + "."):
                        what = f"the private name {private_name}" if private_name and parent != target else "a private module"
                        found.append(Violation("private", module, target, node.lineno,
                                               f"{what} of {parent}, imported from outside it"))
                theirs = _group(layers, target)
                if mine is None or theirs is None or theirs[1] == mine[1]:
                    continue
                if {mine[1], theirs[1]} == set(independent_pair):
                    found.append(Violation("oracles-algorithms", module, target, node.lineno,
                                           f"{independent_pair[0]} and {independent_pair[1]} never import each other"))
                elif theirs[0] == mine[0]:
                    found.append(Violation("independent", module, target, node.lineno,
                                           f"groups {mine[1]!r} and {theirs[1]!r} (rank {mine[0]}) are independent"))
                elif theirs[0] > mine[0]:
                    found.append(Violation("layer", module, target, node.lineno,
                                           f"{mine[1]!r} (rank {mine[0]}) reaches up to {theirs[1]!r} (rank {theirs[0]})"))
    return found


# ----------------------------------------------------------------------- ccexp itself
CCEXP = Path(ccexp.__file__).resolve().parent


@pytest.fixture(scope="module")
def violations():
    return check_package(CCEXP)


def _open(violations, rule):
    return [v for v in violations if v.rule == rule]


@pytest.mark.parametrize("rule", ["unassigned", "layer", "independent", "oracles-algorithms", "private", "function-import"])
def test_ccexp_keeps_the_rule(violations, rule):
    bad = _open(violations, rule)
    assert not bad, f"{len(bad)} violation(s) of the {rule!r} rule:\n" + "\n".join(map(str, bad))


def test_every_group_holds_a_module():
    # a group whose prefix matches nothing is a typo that would leave a rule unchecked
    modules = package_modules(CCEXP, "ccexp")
    for rank, group, prefixes in LAYERS:
        for prefix in prefixes:
            assert any(_group(LAYERS, m) == (rank, group) and (m == prefix or m.startswith(prefix + "."))
                       for m in modules), (group, prefix)


def test_objectives_and_metrics_import_no_algorithm():
    # the point of the layers: score(problem=) depends on the objectives, not on every algorithm
    for module in ("ccexp.metrics", "ccexp.objectives", "ccexp.objectives.clusterings", "ccexp.objectives.triplets"):
        assert _group(LAYERS, module)[0] < _group(LAYERS, "ccexp.algorithms")[0]


# ----------------------------------------------------------------------- the checker, on synthetic packages
TOY_LAYERS = (
    (0, "base", ("toy._util",)),
    (1, "core", ("toy.core",)),
    (2, "oracles", ("toy.oracles",)),
    (2, "algorithms", ("toy.algorithms",)),
    (2, "data", ("toy.data",)),
    (3, "runner", ("toy.runner",)),
    (4, "api", ("toy",)),
)


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root / "toy"


CLEAN = {
    "toy/__init__.py": "from . import algorithms, oracles, runner\n",
    "toy/_util.py": "import os\n",
    "toy/core/__init__.py": "from .._util import os\nfrom ._kernels import cost\n",
    "toy/core/_kernels.py": "def cost():\n    return 0\n",
    "toy/core/graph.py": "from ._kernels import cost\nfrom .._util import os as _os\n",
    "toy/oracles/__init__.py": "from ..core.graph import cost\n",
    "toy/algorithms/__init__.py": "from ..core import graph\nfrom . import fam\n",
    "toy/algorithms/fam/__init__.py": "",
    "toy/algorithms/fam/_kernels.py": "def _step():\n    return 1\n",
    "toy/algorithms/fam/est.py": (
        "from . import _kernels as K\nfrom ._kernels import _step\n\n"
        "def fit():\n    import ortools  # an optional extra\n    return K._step()\n"
    ),
    "toy/data/__init__.py": "",
    "toy/runner/__init__.py": "import toy.algorithms\nfrom toy.oracles import cost\nfrom ..data import *\n",
}


def _check(tmp_path, **changes):
    files = {**CLEAN, **changes}
    return check_package(_write(tmp_path, files), layers=TOY_LAYERS, lazy={"ortools": "extra"})


def _rules(found):
    return sorted((v.rule, v.module, v.target) for v in found)


def test_checker_passes_a_clean_package(tmp_path):
    assert _check(tmp_path) == []


def test_checker_catches_an_upward_import(tmp_path):
    found = _check(tmp_path, **{"toy/core/graph.py": "from ..algorithms.fam import est\n"})
    assert _rules(found) == [("layer", "toy.core.graph", "toy.algorithms.fam.est")]


def test_checker_catches_a_cycle_dodged_inside_a_function(tmp_path):
    # the import sits in a function *and* reaches up: both rules report it
    found = _check(tmp_path, **{"toy/core/graph.py": "def f():\n    from ..runner import x\n    return x\n"})
    assert _rules(found) == [("function-import", "toy.core.graph", "toy.runner"), ("layer", "toy.core.graph", "toy.runner")]


def test_checker_catches_oracles_and_algorithms_importing_each_other(tmp_path):
    found = _check(tmp_path, **{"toy/oracles/__init__.py": "from toy.algorithms.fam.est import fit\n"})
    assert _rules(found) == [("oracles-algorithms", "toy.oracles", "toy.algorithms.fam.est")]
    found = _check(tmp_path, **{"toy/algorithms/__init__.py": "from ..oracles import cost\n"})
    assert _rules(found) == [("oracles-algorithms", "toy.algorithms", "toy.oracles")]


def test_checker_catches_siblings_of_one_rank(tmp_path):
    found = _check(tmp_path, **{"toy/data/__init__.py": "import toy.oracles\n"})
    assert _rules(found) == [("independent", "toy.data", "toy.oracles")]


def test_checker_catches_a_private_module_across_packages(tmp_path):
    found = _check(tmp_path, **{"toy/oracles/__init__.py": "from ..algorithms.fam import _kernels\n"})
    assert _rules(found) == [
        ("oracles-algorithms", "toy.oracles", "toy.algorithms.fam._kernels"),
        ("private", "toy.oracles", "toy.algorithms.fam._kernels"),
    ]
    # the same, inside one layer: only the private rule
    found = _check(tmp_path, **{"toy/algorithms/__init__.py": "from .fam._kernels import _step\n",
                                "toy/algorithms/other.py": "from .fam import _kernels\n"})
    assert _rules(found) == [("private", "toy.algorithms", "toy.algorithms.fam._kernels"),
                             ("private", "toy.algorithms.other", "toy.algorithms.fam._kernels")]


def test_checker_catches_a_private_name_across_packages(tmp_path):
    found = _check(tmp_path, **{"toy/runner/__init__.py": "from toy.algorithms.fam.est import _helper\n"})
    assert _rules(found) == [("private", "toy.runner", "toy.algorithms.fam.est")]


def test_checker_catches_a_plain_import_inside_a_function(tmp_path):
    found = _check(tmp_path, **{"toy/runner/__init__.py": "class R:\n    def go(self):\n        import json\n        return json\n"})
    assert _rules(found) == [("function-import", "toy.runner", "json")]


def test_checker_catches_a_module_outside_every_group(tmp_path):
    found = _check(tmp_path, **{"toy/stray.py": "x = 1\n"})
    assert _rules(found) == [("unassigned", "toy.stray", "toy.stray")]


def test_checker_resolves_relative_imports_from_a_package_init(tmp_path):
    # "from . import x" in a package __init__ is relative to the package itself
    found = _check(tmp_path, **{"toy/core/__init__.py": "from . import graph\nfrom .. import algorithms\n"})
    assert _rules(found) == [("layer", "toy.core", "toy.algorithms")]


def _architecture_map() -> list[tuple[int, str, tuple[str, ...]]]:
    """The rows of docs/architecture.md's map: (rank, group, modules as ``ccexp.<name>``)."""
    text = (Path(ccexp.__file__).resolve().parents[1] / "docs" / "architecture.md").read_text()
    head = "| rank | group | modules | holds | may import (besides itself) |"
    lines = text[text.index(head):].split("\n\n", 1)[0].splitlines()[2:]
    rows = []
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        mods = tuple("ccexp" if m == "ccexp" else f"ccexp.{m}" for m in re.findall(r"`([^`]+)`", cells[2]))
        rows.append((int(cells[0]), cells[1], mods))
    return rows


def test_the_architecture_page_lists_exactly_the_layers():
    # issue 30 item 8: the page's map is the test's LAYERS, group by group (ranks, names, modules)
    assert _architecture_map() == [(rank, group, tuple(prefixes)) for rank, group, prefixes in LAYERS]
