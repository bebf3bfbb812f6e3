"""A *simplified* nCOBRAS (Soenen, Van Craenendonck & Blockeel 2021): COBRAS that re-asks inconsistent answers.

nCOBRAS makes COBRAS robust to wrong answers by looking for
*inconsistent cycles* in the constraint graph (a cycle with exactly one
cannot-link cannot be right), asking extra queries to find out which
constraints are noisy under a known noise rate, correcting them and
undoing the COBRAS steps that relied on them.

What this module implements (and what it leaves out) — said again in
``experiments/aronsson2024/README.md``:

* **done**: after every new answer to a pair (u, v) it checks whether
  that answer closes an inconsistent cycle with the constraints accepted
  so far: a cannot-link between two items joined by a path of
  must-links, or a must-link between two must-link components that a
  cannot-link separates.  If so, it asks the *same pair* again, through
  the oracle (every extra answer is counted against the budget), until
  the posterior of the more probable sign reaches ``confidence`` or
  ``max_requeries`` extra answers have been asked.  The evidence: each
  answer's sign is wrong with probability ``gamma / 2`` (the oracle's
  noisy answers have a random sign), and the rest of the inconsistent
  cycle counts as one more vote, of the same reliability, for the
  opposite sign (a crude stand-in for nCOBRAS's cycle probabilities).
  The accepted constraint is the more probable sign.
* **not done**: nCOBRAS's search for the most probable set of noisy
  constraints over *all* the constraints of the inconsistent cycles (here
  only the newest constraint of a cycle is re-examined, the older ones
  are trusted), the extra queries nCOBRAS asks to put constraints into
  cycles, and the backtracking that undoes earlier splits and merges when
  an older constraint is corrected.
* ``gamma`` is the noise rate assumed (nCOBRAS also needs it, as
  Aronsson & Chehreghani remark); with ``gamma = 0`` nothing is re-asked
  and the run is COBRAS's, query for query.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval
from ...cc.union_find import UnionFind
from ...registry import ALGORITHMS
from . import _cobras_kernels as CK
from .cobras import COBRAS, _CobrasRun, _Stop


class _NCobrasRun(_CobrasRun):
    def __init__(self, *args, gamma: float, confidence: float, max_requeries: int):
        super().__init__(*args)
        self.flip = gamma / 2.0  # probability that an answer's sign is wrong
        self.confidence = confidence
        self.max_requeries = max_requeries
        self.must_links = UnionFind(self.n)  # the accepted must-links
        self.n_requeries = 0
        self.n_inconsistent = 0

    def inconsistent(self, u: int, v: int, must_link: bool) -> bool:
        """Would this constraint close a cycle with exactly one cannot-link?"""
        # every item's must-link component from one kernel call: cheaper than
        # a find per cannot-link, each crossing the Python/numba boundary
        comp = self.must_links.labels()
        ru, rv = comp[u], comp[v]
        if not must_link:
            return bool(ru == rv)
        if ru == rv:
            return False
        # a cannot-link accepted between the two components (any(...) over the pairs, in numba)
        return bool(CK.links_components(comp, self.cl_u[:self.n_cl], self.cl_v[:self.n_cl], ru, rv))

    def _one(self, u: int, v: int) -> float:
        if self.n_queries >= self._next_record:
            self.record()
        if self.n_queries >= self.budget:
            raise _Stop("budget")
        self.n_queries += 1
        return float(np.asarray(self.oracle.query([u], [v]), dtype=np.float64)[0])

    def ask(self, u: int, v: int) -> bool:
        key = (u, v) if u < v else (v, u)
        if key in self.answers:
            return self.answers[key] > 0
        answers = [self._one(*key)]
        implied = 0  # the sign the rest of an inconsistent cycle implies, as one vote
        if self.flip > 0 and self.inconsistent(key[0], key[1], answers[0] > 0):
            self.n_inconsistent += 1
            implied = -1 if answers[0] > 0 else 1
            log_odds_step = math.log((1.0 - self.flip) / self.flip) if self.flip < 0.5 else 0.0
            need = math.log(self.confidence / (1.0 - self.confidence))
            while len(answers) - 1 < self.max_requeries:
                margin = implied + sum(1 if a > 0 else -1 for a in answers)
                if log_odds_step > 0 and abs(margin) * log_odds_step >= need:
                    break  # the more probable sign is probable enough
                try:
                    answers.append(self._one(*key))
                except _Stop:
                    self._accept(key, answers, implied)  # the budget ran out: keep what was learnt
                    raise
                self.n_requeries += 1
        return self._accept(key, answers, implied)

    def _accept(self, key, answers, implied) -> bool:
        margin = implied + sum(1 if a > 0 else -1 for a in answers)
        # the accepted answer: the mean of the answers of the winning sign (a tie keeps the first)
        sign = (margin > 0) if margin != 0 else (answers[0] > 0)
        chosen = [a for a in answers if (a > 0) == sign]
        # no answer of the sign the cycle implies: +-1 stands for the cycle's verdict
        value = float(np.mean(chosen)) if chosen else (1.0 if sign else -1.0)
        self.answers[key] = value
        if value > 0:
            self.must_links.union(key[0], key[1])
        else:
            self.add_cannot_link(key[0], key[1])
        return value > 0


@ALGORITHMS.register("ncobras")
class NCOBRAS(COBRAS):
    """Simplified nCOBRAS (Soenen et al. 2021): COBRAS re-asking answers that close an inconsistent cycle.

    See the module docstring for exactly what differs from nCOBRAS.

    Parameters
    ----------
    gamma : float in [0, 1]
        The noise rate assumed (nCOBRAS's known noise level); 0 turns
        the noise handling off (plain COBRAS).
    confidence : float in (0.5, 1)
        Posterior probability of the majority sign at which re-asking stops.
    max_requeries : int
        Extra answers at most per inconsistent constraint.
    max_queries, batch_size, n_init, random_state
        As for :class:`~ccexp.algorithms.active.cobras.COBRAS`.

    Attributes
    ----------
    n_requeries_ : int
        Extra answers asked (included in ``n_queries_``).
    n_inconsistent_ : int
        Answers that closed an inconsistent cycle.
    constraints_ : dict
        ``(u, v) -> accepted answer`` (the mean of the answers of the accepted sign).
    """

    _parameter_constraints = {
        **COBRAS._parameter_constraints,
        "gamma": [Interval(Real, 0, 1, closed="both")],
        "confidence": [Interval(Real, 0.5, 1, closed="neither")],
        "max_requeries": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(self, max_queries=1.0, batch_size="auto", gamma=0.1, confidence=0.95, max_requeries=4,
                 n_init=10, random_state=None):
        super().__init__(max_queries=max_queries, batch_size=batch_size, n_init=n_init, random_state=random_state)
        self.gamma = gamma
        self.confidence = confidence
        self.max_requeries = max_requeries

    def _run(self, X, oracle, budget, batch, rng, callback, *, n_init, gamma, confidence, max_requeries):
        return _NCobrasRun(X, oracle, budget, batch, int(n_init), rng, callback, gamma=float(gamma),
                           confidence=float(confidence), max_requeries=int(max_requeries))

    def _finish(self, run) -> None:
        self.n_requeries_ = run.n_requeries
        self.n_inconsistent_ = run.n_inconsistent


__all__ = ["NCOBRAS"]
