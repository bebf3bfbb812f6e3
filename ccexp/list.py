"""``python -m ccexp.list algorithms|datasets|oracles [NAME]``: what is registered, what it reads or gives, where it comes from.

One row per registered name, plugins included (:mod:`ccexp.registry`):

- ``algorithms``: the supervision kinds it reads and whether it needs the
  items' features (its declaration, :mod:`ccexp.capabilities`), and its
  paper (the header comment of its ``conf/algorithm/<name>.yaml``);
- ``oracles``: the kind of supervision it gives, and its paper;
- ``datasets``: the header comment of its config.

A name that a plugin registered says which package it comes from.

With a ``NAME``: that config's parameters, one row each, with the value it
composes to, where the value comes from (``signature``: the yaml writes
``${default:}``, so the factory's default; ``yaml``: a value the yaml sets)
and the yaml's comment on the key.
"""

from __future__ import annotations

import argparse
import re
import sys

from omegaconf import OmegaConf

from ._plugins import refuse_if_shadowed
from .capabilities import algorithm_reads, needs_features, oracle_produces
from .registry import ALGORITHMS, DATASETS, ORACLES
from .runner.config import ConfigError, config_header, config_text, group_config

_REGISTRIES = {"algorithms": ALGORITHMS, "datasets": DATASETS, "oracles": ORACLES}


def _about(group: str, name: str, width: int | None) -> str:
    try:
        return config_header(group, name, width)
    except ConfigError:
        return f"(no conf/{group}/{name}.yaml)"


def _plugin(registry, name: str) -> str:
    """``[plugin <package> <version>] `` for a name a plugin's entry point registered, else ``""``."""
    origin = registry.origin(name)
    if not origin.startswith("the entry point"):
        return ""
    return "[plugin " + origin.split(" of ", 1)[1].split(" (group", 1)[0] + "] "


def rows(what: str) -> list[tuple[str, ...]]:
    """The table of ``what`` (``"algorithms"``, ``"datasets"`` or ``"oracles"``), one tuple per registered name."""
    registry = _REGISTRIES[what]
    group = what[:-1]
    out = []
    for name in registry.names():
        about = _plugin(registry, name) + _about(group, name, None)
        if what == "algorithms":
            out.append((name, ",".join(algorithm_reads(name)), "yes" if needs_features(name) else "no", about))
        elif what == "oracles":
            out.append((name, oracle_produces(name), about))
        else:
            out.append((name, about))
    return out


_HEADERS = {"algorithms": ("algorithm", "reads", "features", "paper"),
            "oracles": ("oracle", "gives", "paper"),
            "datasets": ("dataset", "about")}


def format_table(what: str, width: int | None = 160) -> str:
    """``rows(what)`` as aligned text columns; the last column cut at the line ``width`` (None: never)."""
    return _aligned([_HEADERS[what], *rows(what)], width)


def _aligned(table: list[tuple[str, ...]], width: int | None) -> str:
    """Rows as text columns, each but the last padded to its widest cell; the last cut at the line ``width``."""
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]) - 1)]
    lines = []
    for r in table:
        head = "  ".join(c.ljust(w) for c, w in zip(r, widths))
        last = r[-1]
        room = None if width is None else max(width - len(head) - 2, 20)
        if room is not None and len(last) > room:
            last = last[: room - 1].rsplit(" ", 1)[0] + " …"
        lines.append(f"{head}  {last}".rstrip())
    return "\n".join(lines)


#: ``key: value  # comment`` at the top level of a yaml
_KEY_LINE = re.compile(r"^(?P<key>[A-Za-z_]\w*):[^#]*(?:#\s*(?P<comment>.*))?$")


def parameter_rows(what: str, name: str) -> list[tuple[str, str, str, str]]:
    """(parameter, composed value as yaml, ``signature`` or ``yaml``, the yaml's comment) for ``<group>=<name>``.

    Raises :class:`~ccexp.runner.compose.ConfigError` (one line, the valid names) for an unknown name.
    """
    group = what[:-1]
    text = config_text(group, name)
    raw = OmegaConf.to_container(OmegaConf.create(text), resolve=False)
    comments = {m["key"]: (m["comment"] or "").strip() for m in map(_KEY_LINE.match, text.splitlines()) if m}
    rows_ = []
    for key, value in group_config(group, name).items():
        if key == "name":
            continue
        source = "signature" if raw.get(key) == "${default:}" else "yaml"
        shown = OmegaConf.to_yaml(OmegaConf.create({"v": value})).strip()[len("v: "):]
        rows_.append((key, shown, source, comments.get(key, "")))
    return rows_


def format_parameters(what: str, name: str) -> str:
    """:func:`parameter_rows` as aligned columns under the config's header comment."""
    table = [("parameter", "value", "from", "about"), *parameter_rows(what, name)]
    return f"{name}: {config_header(what[:-1], name)}\n" + _aligned(table, None)


def main(argv: list[str] | None = None) -> int:
    """The command line: print the registry named by ``argv`` as a table; return the exit status."""
    refuse_if_shadowed("python -m ccexp.list")
    parser = argparse.ArgumentParser(prog="python -m ccexp.list", description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=sorted(_REGISTRIES), help="which registry to list")
    parser.add_argument("name", nargs="?", help="one registered name: list its parameters and their defaults")
    parser.add_argument("--full", action="store_true", help="do not cut the last column to the line width")
    args = parser.parse_args(argv)
    if args.name is None:
        print(format_table(args.what, None if args.full else 160))
        return 0
    try:
        print(format_parameters(args.what, args.name))
    except ConfigError as err:
        print(f"python -m ccexp.list: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover - the command
    sys.exit(main())
