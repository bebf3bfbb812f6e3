"""The grid a report covers: the one that ran, as the runner recorded it in ``run.json`` (issue 30, item 2)."""

from __future__ import annotations

from pathlib import Path

from ..runner.provenance import read_run_info
from ..runner.spec import SweepSpec, read_spec


def read_grid(out_dir: Path) -> SweepSpec | None:
    """The run spec (the grid as expanded) that ``out_dir/run.json`` records, or None (no spec there).

    What a report takes from the runner (:mod:`ccexp.runner.spec`): the
    cases in grid order, their instances with the dataset and oracle configs
    that build them; never the grid that today's config would expand to.
    """
    return read_spec(read_run_info(Path(out_dir) / "run.json"))
