"""ReCon reading outlier triplets as relative constraints, on the same answers.

Ukkonen (2017, Section II) and Liu et al. (2011, Section 3) ask the person
the same question: of ``a, b, c``, which item is the odd one out (equivalently,
which pair is the closest)?  A triplet ``(a, b, c)`` with outlier ``c`` and a
relative constraint ``ab|c`` both state ``d(a, b) < min(d(a, c), d(b, c))``,
so one answer converts to one constraint row unchanged (:func:`triplets_as_relative`).

The two papers *read* that answer differently, and Ukkonen's reading says
more about a flat clustering:

- Ukkonen: three soft pieces of pairwise evidence, ``a`` and ``b`` together,
  ``c`` apart from each; a partition pays for every one it breaks, so an
  answer counts against putting all three together and against putting all
  three apart (s(f, T), Eq. 1).
- Liu: a hard statement on a hierarchy, whose only consequence for a
  partition is conditional (Definition 4.2): if ``c`` shares a cluster with
  ``a`` or with ``b``, all three do.  All three together and all three apart
  both satisfy it; ReCon needs the features to decide, and keeps a maximal
  consistent subset of noisy answers (its greedy rule).
"""

from __future__ import annotations

import numpy as np

from ..._validation import as_index_array, unknown_name_error
from ...registry import ALGORITHMS
from .._n_clusters import n_clusters_of
from ..relative.recon import ReCon
from ..base import validate_params, validates_params_first


def triplets_as_relative(triplets, n_items: int) -> np.ndarray:
    """Relative constraints ``ab|c`` from outlier triplets ``(a, b, c)``: the same rows.

    Parameters
    ----------
    triplets : int array (m, 3)
        Rows ``(a, b, c)``, ``c`` the outlier (Ukkonen 2017).
    n_items : int

    Returns
    -------
    int64 array (m, 3)
        Rows ``(a, b, c)`` read as ``ab|c``, ``(a, b)`` the closest pair (Liu et
        al. 2011); one constraint per answer, in the answers' order.

    Examples
    --------
    >>> triplets_as_relative([[0, 1, 2], [3, 2, 0]], 4).tolist()
    [[0, 1, 2], [3, 2, 0]]
    """
    return np.array(as_index_array(triplets, "triplets", n_items, 3), dtype=np.int64, copy=True)


@ALGORITHMS.register("recon_triplets")
class ReConOnTriplets(ReCon):
    """ReCon (Liu et al. 2011, Section 4) fitted on a triplet problem's answers read as ``ab|c``.

    Every parameter is ReCon's (:class:`ccexp.algorithms.relative.ReCon`).
    It reads ``problem.triplets`` and ``problem.X`` (the oracle
    ``cross_triplets`` carries both), so in a sweep it sees exactly the
    answers the triplet algorithms of the same instance see.  Its records
    say ``supervision = "relative"`` (``record_``): the kind of
    question is the same, the reading is Liu's.

    Examples
    --------
    >>> import numpy as np
    >>> from ccexp.problem import Problem
    >>> X = np.array([[0.0], [1.0], [1.9], [3.0]])
    >>> p = Problem(n_items=4, X=X, triplets=[[0, 1, 2], [2, 3, 0]], meta={"n_clusters": 2})
    >>> ReConOnTriplets(min_branch_size=1).fit_problem(p).labels_
    array([0, 0, 1, 1])
    """

    supervision = "triplets"
    # capability declaration (ccexp.capabilities): the runner refuses a pairing with an oracle of another kind
    reads = ("triplets",)
    needs_features = True

    @validates_params_first
    def fit_problem(self, problem):
        validate_params(self)
        if self.on_inconsistent not in ("greedy", "raise"):
            raise unknown_name_error("on_inconsistent rule", self.on_inconsistent, ("greedy", "raise"))
        X = problem.require("X", type(self).__name__)
        R = triplets_as_relative(problem.require("triplets", type(self).__name__), problem.n_items)
        self._fit(X, R, n_clusters_of(self, problem), use_constraints=True)
        self.record_ = {"supervision": "relative"}
        return self
