"""What every per-paper report imports, gathered in one place.

The code lives in modules named after what they hold:

- :mod:`ccexp.report.tables`: table cells, markdown tables, files, error bars, ok records;
- :mod:`ccexp.report.tolerance`: the statuses, :data:`TOLERANCE_RULE` and :func:`judge`;
- :mod:`ccexp.report.reference`: ``experiments/<paper>/reference.csv`` (:func:`load_reference`),
  row ids and competitor caps;
- :mod:`ccexp.report.comparison`: :func:`compare_row`, one row of a comparison table;
- :mod:`ccexp.report._grid`: :func:`read_grid`, the grid that ran, as its ``run.json`` records it.

This module only re-exports them, so a report (or a test) writes
``from .common import ...`` without knowing the split.
"""

from __future__ import annotations

from ._grid import read_grid
from .comparison import compare_row
from .reference import (
    COORDINATES,
    METHOD_PARAMETERS,
    competitor_caps,
    experiments_dir,
    load_reference,
    printed_decimals,
    reference_id,
    reference_row,
    table_of,
)
from .tables import (
    MISSING,
    code_versions,
    fmt_number,
    is_missing,
    markdown_table,
    ok_records,
    plus_minus,
    recorded_labels,
    with_error_bars,
    write_table,
)
from .tolerance import (
    DIFFERS,
    INDISTINGUISHABLE,
    NOT_RUN,
    OUTSIDE,
    REPRODUCED,
    STATUSES,
    TOLERANCE_RULE,
    VERDICTS,
    WITHIN,
    WITHIN_TOLERANCE,
    half_unit,
    judge,
    sem_of,
    verdict,
)

__all__ = [
    "COORDINATES", "DIFFERS", "INDISTINGUISHABLE", "METHOD_PARAMETERS", "MISSING", "NOT_RUN", "OUTSIDE",
    "REPRODUCED", "STATUSES", "TOLERANCE_RULE", "VERDICTS", "WITHIN", "WITHIN_TOLERANCE", "code_versions",
    "compare_row", "competitor_caps", "experiments_dir", "fmt_number", "half_unit", "is_missing", "judge",
    "load_reference", "markdown_table", "ok_records", "plus_minus", "read_grid", "printed_decimals", "reference_id",
    "reference_row", "sem_of", "table_of", "verdict", "with_error_bars", "write_table",
]
