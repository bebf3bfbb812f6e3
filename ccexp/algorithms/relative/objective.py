"""The relative-constraint objective: constraints a partition violates (Definition 4.2)."""

from __future__ import annotations

import numpy as np

from ...objectives import register_objective
from .hierarchy import partition_violations


@register_objective("relative")
def relative_objective(labels: np.ndarray, problem) -> dict:
    """Violated constraints ``ab|c`` (a, c or b, c together but not all three) and their share."""
    m = problem.relative.shape[0]
    bad = int(partition_violations(np.asarray(labels, dtype=np.int64), problem.relative).sum()) if m else 0
    return {"objective": bad, "objective_fraction": bad / m if m else 0.0}
