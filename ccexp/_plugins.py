"""Import every module of a package so its registry decorators run.

Each family lives in its own module or subpackage and registers itself; the
package ``__init__`` only calls :func:`import_submodules`, so adding a
family never means editing a shared list.
"""

from __future__ import annotations

import importlib
import pkgutil


def import_submodules(package_name: str, package_path, skip: tuple[str, ...] = ()) -> list[str]:
    """Import the direct submodules of a package (not starting with ``_``)."""
    names = []
    for info in pkgutil.iter_modules(package_path):
        if info.name.startswith("_") or info.name in skip:
            continue
        importlib.import_module(f"{package_name}.{info.name}")
        names.append(info.name)
    return names
