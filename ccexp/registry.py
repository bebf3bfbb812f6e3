"""Name -> factory registries for datasets, oracles and algorithms.

Registry names are the config file names: ``conf/algorithm/ls_ad_vc.yaml``
builds ``make_algorithm("ls_ad_vc")``.

Other packages add to them without forking ccexp, through the entry-point
groups ``ccexp.algorithms``, ``ccexp.datasets`` and ``ccexp.oracles``
(:func:`importlib.metadata.entry_points`): an entry point ``name =
"module:object"`` registers ``object`` as ``name``.  They are loaded on the
registry's first lookup, after ccexp's own entries.  A plugin that fails to
load, declares nothing, or takes a name already registered is skipped with
one warning naming it (and both origins); ccexp's own entries registered
twice are refused.  ``docs/extending.md`` walks through
one plugin.
"""

from __future__ import annotations

import logging
from importlib.metadata import entry_points
from typing import Callable

from ._validation import unknown_name_error
from .kinds import check_declaration

log = logging.getLogger("ccexp")


def _origin(obj) -> str:
    """Where a registered object was defined: ``module.qualname``."""
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__name__)}"


class Registry:
    """A mapping from config names to factories, with a helpful error.

    Parameters
    ----------
    kind : str
        What the entries are ("algorithm"), for messages.
    group : str, optional
        The entry-point group whose entries are loaded into this registry.
    declares : str, optional
        ``"algorithm"`` or ``"oracle"``: the capability declaration
        (:func:`ccexp.kinds.check_declaration`) a plugin's entry must
        carry; ccexp's own entries are checked by ``tests/test_capabilities.py``.
    """

    def __init__(self, kind: str, group: str | None = None, declares: str | None = None):
        self.kind = kind
        self.group = group
        self.declares = declares
        self._items: dict[str, Callable] = {}
        self._origins: dict[str, str] = {}
        self._plugins_loaded = group is None
        self._skipped: dict[str, str] = {}  # plugin entry points that could not be registered, and why

    def register(self, name: str, *, produces: str | None = None, needs: tuple[str, ...] | None = None,
                 origin: str | None = None):
        """Register the decorated object as ``name``.

        Parameters
        ----------
        name : str
        produces : str, optional
            For an oracle: the supervision kind its problems carry, set as the
            factory's ``produces`` attribute (see :mod:`ccexp.capabilities`).
        needs : tuple of str, optional
            For an oracle: the dataset attributes it cannot do without
            (``"y"``, ``"X"``, ``"categorical"``, ``"triplets"``), set as the
            factory's ``needs``; the runner checks them against each dataset
            of a grid before any case runs (:func:`ccexp.capabilities.dataset_fit_error`).
        origin : str, optional
            Where the entry comes from, for the message of a clash (default:
            the object's module and name).
        """

        def decorator(obj):
            where = origin or _origin(obj)
            if name in self._items:
                if self._items[name] is obj:  # a plugin module that also registers itself on import
                    return obj
                raise ValueError(f"{self.kind} {name!r} is registered twice: by {self._origins[name]} and by {where}")
            if produces is not None:
                obj.produces = produces
            if needs is not None:
                obj.needs = tuple(needs)
            self._items[name] = obj
            self._origins[name] = where
            return obj

        return decorator

    def load_plugins(self) -> None:
        """Register the objects of this registry's entry-point group (once per process).

        A plugin that cannot be registered is skipped with one warning
        naming its entry point and why, so it never breaks the commands that
        do not use it (issue 33: a plugin raising on import broke every
        command, the built-in algorithms too): an entry point that fails to
        load, one whose capability declaration is missing or malformed, and
        one that takes a name already registered (a built-in's: the built-in
        stays).  Asking for a skipped name then says why it was skipped.
        """
        if self._plugins_loaded:
            return
        self._plugins_loaded = True  # first: a plugin module may look names up while it is imported
        for ep in sorted(entry_points(group=self.group), key=lambda e: e.name):
            dist = f"{ep.dist.name} {ep.dist.version}" if getattr(ep, "dist", None) is not None else "an unknown package"
            where = f"the entry point {ep.name} = {ep.value!r} of {dist} (group {self.group})"
            try:
                obj = ep.load()
            except Exception as exc:  # noqa: BLE001 - any error of the plugin's own import: skipped, named
                self._skip(ep.name, f"{where} failed to load: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
                continue
            try:
                if self.declares is not None:
                    check_declaration(obj, ep.name, self.declares)
                self.register(ep.name, origin=where)(obj)
            except ValueError as err:  # no declaration, or a name taken (both origins named)
                self._skip(ep.name, f"{where}: {str(err).splitlines()[0]}")

    def _skip(self, name: str, why: str) -> None:
        self._skipped[name] = why
        log.warning("ccexp: skipped a plugin: %s", why)

    def get(self, name: str) -> Callable:
        """The entry registered as ``name`` (plugins loaded first); ``ValueError`` listing the known names otherwise."""
        self.load_plugins()
        try:
            return self._items[name]
        except KeyError:
            if name in self._skipped:
                raise ValueError(f"{self.kind} {name!r} is not available: its plugin was skipped "
                                 f"({self._skipped[name]})") from None
            raise unknown_name_error(self.kind, name, self._items) from None

    def origin(self, name: str) -> str:
        """Where the entry ``name`` was registered from (a module, or a plugin's entry point)."""
        self.get(name)
        return self._origins[name]

    def names(self) -> list[str]:
        """The registered names, sorted (plugins included)."""
        self.load_plugins()
        return sorted(self._items)

    def __contains__(self, name: str) -> bool:
        self.load_plugins()
        return name in self._items


DATASETS = Registry("dataset", group="ccexp.datasets")
ORACLES = Registry("oracle", group="ccexp.oracles", declares="oracle")
ALGORITHMS = Registry("algorithm", group="ccexp.algorithms", declares="algorithm")
