"""The command line's overrides as Hydra's parser reads them: what the user typed, key by key.

:func:`~ccexp.runner.config.resolve_run` parses them once and hands the
parsed list down (:func:`parse_overrides` returns a parsed list as it is):
which keys the user set decides what is checked against the sweep, what a
named variant leaves alone and whether the run keeps its preset's folder.
"""

from __future__ import annotations

from dataclasses import dataclass

from hydra.core.override_parser.overrides_parser import OverridesParser


@dataclass(frozen=True)
class UserOverride:
    """One command-line override, as Hydra's parser reads it."""

    key: str  # "oracle.noise", "dataset" (a group choice), "experiment.trials"
    kind: str  # "change" | "add" | "delete" | "force_add"
    text: str  # as typed

    @property
    def group(self) -> str:
        """The config group the override addresses: the key up to its first dot."""
        return self.key.split(".", 1)[0]

    @property
    def rest(self) -> str:
        """The key after the group (``""`` for a group choice such as ``dataset=iris``)."""
        return self.key.split(".", 1)[1] if "." in self.key else ""


def parse_overrides(overrides) -> list[UserOverride]:
    """The overrides as Hydra's own parser reads them (keys and kinds; values stay Hydra's).

    Overrides parsed already (a list of :class:`UserOverride`) are returned
    as they are, so :func:`~ccexp.runner.config.resolve_run` parses the command line once and
    hands the result down.
    """
    overrides = list(overrides or [])
    if overrides and all(isinstance(o, UserOverride) for o in overrides):
        return overrides
    parsed = OverridesParser.create().parse_overrides(overrides)
    out = []
    for o in parsed:
        if o.is_hydra_override() if hasattr(o, "is_hydra_override") else o.key_or_group.startswith("hydra"):
            continue
        kind = "delete" if o.is_delete() else "force_add" if o.is_force_add() else "add" if o.is_add() else "change"
        out.append(UserOverride(o.key_or_group, kind, o.input_line or o.key_or_group))
    return out


def user_keys(overrides) -> set[str]:
    """The ``experiment.<key>`` paths the user's overrides set (a named variant leaves them alone)."""
    return {o.rest for o in parse_overrides(overrides) if o.group == "experiment" and o.rest}
