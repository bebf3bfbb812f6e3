"""Import every module of a package so its registry decorators run; and say when the package is not ours.

Each family lives in its own module or subpackage and registers itself; the
package ``__init__`` only calls :func:`import_submodules`, so adding a
family never means editing a shared list.

:func:`refuse_if_shadowed` stops a command line whose ``ccexp`` is a folder
of the current directory rather than the package (a clone of the repository
is a folder named ``ccexp`` without ``__init__.py``): Python then imports a
namespace package, the package's ``__init__`` never runs, nothing registers,
and the user read "valid algorithms are:" with an empty list (issue 33).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys


def import_submodules(package_name: str, package_path, skip: tuple[str, ...] = ()) -> list[str]:
    """Import the direct submodules of a package (not starting with ``_``)."""
    names = []
    for info in pkgutil.iter_modules(package_path):
        if info.name.startswith("_") or info.name in skip:
            continue
        importlib.import_module(f"{package_name}.{info.name}")
        names.append(info.name)
    return names


def shadowing_folder(name: str = "ccexp") -> str | None:
    """The folder imported as ``name`` when it is a namespace package (not the package itself), else None."""
    pkg = sys.modules.get(name)
    if pkg is None or getattr(pkg, "__file__", None) is not None:
        return None
    paths = list(getattr(pkg, "__path__", None) or [])
    return paths[0] if paths else "?"


def refuse_if_shadowed(prog: str) -> None:
    """Exit with one line (status 2) when ``ccexp`` was imported from a folder that shadows the package."""
    folder = shadowing_folder()
    if folder is not None:
        print(f"{prog}: error: the folder {folder} (no __init__.py: a clone of the repository?) shadows the "
              f"installed ccexp package, since Python looks in the current folder first; run from another folder, "
              f"or from inside the clone", file=sys.stderr)
        raise SystemExit(2)
