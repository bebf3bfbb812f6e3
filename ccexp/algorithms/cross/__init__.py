"""Adapters of the cross-supervision study (issue 15): one kind's answers read by another kind's algorithm.

- ``recon_triplets``: ReCon (Liu et al. 2011) reading Ukkonen's outlier
  triplets as relative constraints ``ab|c``, on the very same answers the
  triplet algorithms read (:mod:`.recon_triplets`).

The other direction of the study, the pairs an active strategy queried read
as must-link / cannot-link constraints, is an oracle
(``cross_active_pairs`` in :mod:`ccexp.oracles.cross`), since the stock
pairwise-constraint algorithms read it unchanged.
"""

from ..._plugins import import_submodules

import_submodules(__name__, __path__)
