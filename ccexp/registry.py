"""Name -> factory registries for datasets, oracles and algorithms.

Registry names are the config file names: ``conf/algorithm/ls_ad_vc.yaml``
builds ``make_algorithm("ls_ad_vc")``.
"""

from __future__ import annotations

from typing import Callable

from ._validation import unknown_name_error


class Registry:
    """A mapping from config names to factories, with a helpful error."""

    def __init__(self, kind: str):
        self.kind = kind
        self._items: dict[str, Callable] = {}

    def register(self, name: str):
        def decorator(obj):
            if name in self._items:
                raise ValueError(f"{self.kind} {name!r} is registered twice")
            self._items[name] = obj
            return obj

        return decorator

    def get(self, name: str) -> Callable:
        try:
            return self._items[name]
        except KeyError:
            raise unknown_name_error(self.kind, name, self._items) from None

    def names(self) -> list[str]:
        return sorted(self._items)

    def __contains__(self, name: str) -> bool:
        return name in self._items


DATASETS = Registry("dataset")
ORACLES = Registry("oracle")
ALGORITHMS = Registry("algorithm")
