"""t-STE (van der Maaten & Weinberger 2012) and the t-STE + DP-mixture baseline of Ukkonen (2017).

t-STE embeds items so that each triplet "i is closer to j than to k" is
likely under a heavy-tailed Student-t kernel; Ukkonen (2017, Section V) runs
it in 4 dimensions and clusters the embedding with a Dirichlet-process
mixture (:mod:`.dpmm`).
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import threadpool_limits

from ..._validation import as_index_array, check_positive_int, check_random_state
from ...registry import ALGORITHMS
from ..base import RANDOM_STATE
from .base import TripletEstimator
from . import _tste_kernels as K
from .dpmm import DP_CONSTRAINTS, DP_PRIORS, cluster_embedding

ANCHORS = ("both", "first")
#: Largest n for which the cost is computed through n x n kernel tables
#: (three float64 tables: 96 MB at n = 2000); above it, the direct kernel.
PAIR_TABLE_MAX_ITEMS = 2000


OPTIMIZERS = ("lbfgs", "gd")
STEPS = ("gradient", "tste_theano")


def tste_embedding(
    triplets,
    n_items: int,
    n_components: int = 2,
    alpha: float | None = None,
    both_anchors: bool = False,
    max_iter: int = 1000,
    init=None,
    random_state=None,
    optimizer: str = "lbfgs",
    options: dict | None = None,
):
    """Minimise the t-STE cost with L-BFGS-B (numba cost and gradient), or by the authors' gradient descent.

    The cost is -sum_t log p_t + lam ||X||^2 with p_ijk = K_ij / (K_ij + K_ik)
    and K_ij = (1 + ||x_i - x_j||^2 / alpha) ** (-(alpha + 1) / 2) (van der
    Maaten & Weinberger 2012, eqs. 3-4); lam = 0 (the L2 penalty off) is
    their code's default.

    Parameters
    ----------
    triplets : int array (m, 3)
        Rows (i, j, k): i is closer to j than to k.  Validated here.
    n_items : int
    n_components : int
        Embedding dimension d.
    alpha : float, optional
        Degrees of freedom of the Student-t kernel; ``d - 1`` (the authors'
        default) when None, and at least 1.
    both_anchors : bool
        Also count (j, i, k) for every row (a triplet of Ukkonen 2017, c the
        outlier, says both d(a, b) < d(a, c) and d(a, b) < d(b, c)).
    max_iter : int
        L-BFGS-B iterations (scipy's default tolerances otherwise, as cblearn).
    init : float array (n_items, n_components), optional
        Starting point; standard normal draws from ``random_state`` if None
        (as cblearn).
    random_state : int, Generator or None
    optimizer : {"lbfgs", "gd"}
        ``"lbfgs"`` (default): scipy's L-BFGS-B on the exact gradient.
        ``"gd"``: the loop of van der Maaten's ``tste.m`` that Wilber's
        tste-theano ports (the code Ukkonen 2017 ran): start
        ``1e-4 * N(0, I)`` (when ``init`` is None), step
        ``eta * n_items / |T|`` times the step direction, eta = 2, times
        1.01 after a decrease of the cost by more than 1e-7 and 0.5
        otherwise, stop after 5 steps without such a decrease or
        ``max_iter`` steps, return the best X seen.
    options : dict, optional
        ``lam`` (float, default 0): the L2 penalty; ``step`` ("gradient",
        default, or "tste_theano"; only with ``optimizer="gd"``): the step
        direction, the gradient, or the one tste-theano computes, which
        weighs each pair by the kernel K_ij where the gradient has
        (1 + d2 / alpha) ** -1 (equal only at alpha = 1, see
        :func:`._tste_kernels.tste_cost_grad_pairs`).

    Returns
    -------
    X : float64 array (n_items, n_components)
    info : dict
        ``cost``, ``n_iter``, ``n_evals``, ``converged``, ``message``.

    Notes
    -----
    One cost-and-gradient evaluation is one pass over the triplets:
    O(m + n^2 d) through n x n kernel tables
    (:func:`._tste_kernels.tste_cost_grad_pairs`) up to
    ``PAIR_TABLE_MAX_ITEMS`` items, O(m d) without them above.
    """
    n_items = check_positive_int(n_items, "n_items")
    n_components = check_positive_int(n_components, "n_components")
    max_iter = check_positive_int(max_iter, "max_iter")
    T = as_index_array(triplets, "triplets", n_items, 3)
    alpha = float(max(n_components - 1, 1)) if alpha is None else float(alpha)
    if not alpha > 0:
        raise ValueError(f"alpha must be > 0, got {alpha!r}")
    opts = {"lam": 0.0, "step": "gradient", **(options or {})}
    if set(opts) - {"lam", "step"}:
        raise ValueError(f"options: unknown keys {sorted(set(opts) - {'lam', 'step'})} (valid: lam, step)")
    lam = float(opts["lam"])
    if not lam >= 0:
        raise ValueError(f"lam must be >= 0, got {opts['lam']!r}")
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {optimizer!r}")
    if opts["step"] not in STEPS or (opts["step"] != "gradient" and optimizer != "gd"):
        raise ValueError(f"step must be one of {STEPS} ('tste_theano' only with optimizer='gd'), got {opts['step']!r}")
    rng = check_random_state(random_state)
    if init is None:
        X0 = rng.standard_normal((n_items, n_components)) * (1e-4 if optimizer == "gd" else 1.0)
    else:
        X0 = np.array(init, dtype=np.float64, copy=True)
        if X0.shape != (n_items, n_components) or not np.isfinite(X0).all():
            raise ValueError(f"init must be a finite array of shape {(n_items, n_components)}, got {X0.shape}")
    both = bool(both_anchors)
    if optimizer == "gd":
        return _tste_gd(X0, T, alpha, both, max_iter, lam, opts["step"])
    grad = np.empty((n_items, n_components), dtype=np.float64)
    if n_items <= PAIR_TABLE_MAX_ITEMS:
        pairs = K.pair_indices(T, n_items, both)  # once per fit, read by every evaluation

        def kernel(X, T, alpha, both, grad):
            return K.tste_cost_grad_pairs(X, T, alpha, both, grad, 1.0, pairs)
    else:
        kernel = K.tste_cost_grad_direct

    def fun(x):
        X = x.reshape(n_items, n_components)
        cost = kernel(X, T, alpha, both, grad)
        if lam:
            cost += lam * float(np.sum(X * X))
            grad[:, :] += 2.0 * lam * X
        return cost, grad.ravel().copy()

    # L-BFGS-B's updates are tiny BLAS calls: threads only add spin-up and
    # contention (6x slower at n = 160 on this 2-core machine).
    with threadpool_limits(limits=1, user_api="blas"):
        res = minimize(fun, X0.ravel(), jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    info = {
        "cost": float(res.fun),
        "n_iter": int(res.nit),
        "n_evals": int(res.nfev),
        "converged": bool(res.success),
        "message": str(res.message),
    }
    return res.x.reshape(n_items, n_components).copy(), info


def _tste_gd(X, T, alpha: float, both: bool, max_iter: int, lam: float, step: str):
    """The gradient descent of ``tste.m`` / tste-theano (see :func:`tste_embedding`), on our cost kernel."""
    n = X.shape[0]
    if n > PAIR_TABLE_MAX_ITEMS:
        raise ValueError(f"optimizer='gd' needs n_items <= {PAIR_TABLE_MAX_ITEMS} (the pair-table kernel), got {n}")
    power = (alpha + 1.0) / 2.0 if step == "tste_theano" else 1.0
    G = np.empty_like(X)
    pairs = K.pair_indices(T, n, both)
    n_trip = T.shape[0] * (2 if both else 1)
    tol, eta = 1e-7, 2.0
    C, best_C, best_X = np.inf, np.inf, X.copy()
    no_incr = it = 0
    while it < max_iter and no_incr < 5:
        old_C = C
        C = K.tste_cost_grad_pairs(X, T, alpha, both, G, power, pairs)
        if lam:
            C += lam * float(np.sum(X * X))
            G += 2.0 * lam * X
        if C < best_C:
            best_C, best_X = C, X.copy()
        X = X - (eta / max(n_trip, 1) * n) * G
        if old_C > C + tol:
            no_incr, eta = 0, eta * 1.01
        else:
            no_incr, eta = no_incr + 1, eta * 0.5
        it += 1
    info = {"cost": float(best_C), "n_iter": it, "n_evals": it, "converged": no_incr >= 5,
            "message": "no decrease in 5 steps" if no_incr >= 5 else "max_iter reached"}
    return best_X, info


def satisfied_fraction(embedding, triplets, both_anchors: bool = False) -> float:
    """Fraction of triplets (i, j, k) with d(i, j) < d(i, k) in ``embedding`` (cblearn's ``score``)."""
    X = np.ascontiguousarray(embedding, dtype=np.float64)
    T = as_index_array(triplets, "triplets", X.shape[0], 3)
    if not len(T):
        return float("nan")
    return K.satisfied_count(X, T, bool(both_anchors)) / len(T)


@ALGORITHMS.register("tste_dpmm")
class TSTEDPMM(TripletEstimator):
    """t-STE embedding, then a Dirichlet-process mixture: the t-STE baseline of Ukkonen (2017).

    Section V: t-STE (van der Maaten & Weinberger 2012; Ukkonen used
    Wilber's Theano code) computes a 4-dimensional embedding with default
    parameters, which MB-VDP (Gomes et al. 2008) clusters.  Here: our numba
    t-STE under scipy's L-BFGS-B (the authors' code uses gradient descent
    with an adaptive step; both minimise the same cost), and scikit-learn's
    Dirichlet-process ``BayesianGaussianMixture`` in place of MB-VDP
    (:func:`.dpmm.dp_mixture_labels`).

    Parameters
    ----------
    n_components : int
        Embedding dimension (the paper: 4).
    alpha : float, optional
        Student-t degrees of freedom; ``n_components - 1`` when None.
    anchors : {"both", "first"}
        How a triplet (a, b, c) with outlier c enters t-STE: ``"both"``
        (default) as the two t-STE triplets (a, b, c) and (b, a, c), which
        is what "c is the outlier" says; ``"first"`` as (a, b, c) only, the
        reading of a recorded (probe, near, far) triplet.
    max_iter : int
        Iterations of t-STE's optimiser (L-BFGS-B iterations, or gradient
        steps with ``optimizer="gd"``).
    optimizer : {"lbfgs", "gd"}
        L-BFGS-B (default) or the gradient descent of the authors' code
        (:func:`tste_embedding`).
    step : {"gradient", "tste_theano"}
        With ``optimizer="gd"``: the exact gradient (default) or the step
        tste-theano computes (:func:`tste_embedding`).
    lam : float
        L2 penalty on the embedding (the authors' code's default 0).
    dp : {"sklearn", "vdp"}
        The DP mixture: scikit-learn's (default) or the greedy variational
        DP of Kurihara et al. that MB-VDP builds on
        (:func:`.dpmm.cluster_embedding`).
    dp_prior : {"data", "unit", "vdpgm"}
        The prior of scikit-learn's mixture (:func:`.dpmm.dp_mixture_labels`).
    dp_standardize : bool
        Centre and scale the embedding before scikit-learn's mixture (default).
    dp_concentration : float, optional
        The DP concentration; None: the mixture's default.
    dp_max_components : int
        Truncation of the DP mixture (an upper bound on the number of clusters).
    dp_covariance : str
        Covariance type of the mixture components.
    random_state : int, Generator or None
        Seeds the t-STE start and the mixture's initialisation.

    Attributes
    ----------
    labels_ : int64 array (n_items,)
    embedding_ : float64 array (n_items, n_components)
    satisfied_ : float
        Fraction of the input triplets the embedding satisfies (under ``anchors``).
    n_iter_ : int
        L-BFGS-B iterations.
    converged_ : dict
        ``{"tste": bool, "dpmm": bool}``: whether each stopped before its cap.
    status_ : str
        ``"ok"`` (a run that hits a cap is still the method's answer).
    timings_ : dict
        Seconds in ``embedding`` and ``dpmm``.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([[0, 1, 2], [0, 1, 3], [2, 3, 0], [2, 3, 1]] * 5)
    >>> TSTEDPMM(random_state=0).fit(T).embedding_.shape
    (4, 4)
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="neither"), None],
        "anchors": [StrOptions(set(ANCHORS))],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "optimizer": [StrOptions(set(OPTIMIZERS))],
        "step": [StrOptions(set(STEPS))],  # "tste_theano" only with optimizer="gd": tste_embedding checks
        "lam": [Interval(Real, 0, None, closed="left")],
        "dp_prior": [StrOptions(set(DP_PRIORS))],
        "dp_standardize": ["boolean"],
        "dp_concentration": [Interval(Real, 0, None, closed="neither"), None],
        **DP_CONSTRAINTS,
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        n_components=4,
        alpha=None,
        anchors="both",
        max_iter=1000,
        optimizer="lbfgs",
        step="gradient",
        lam=0.0,
        dp="sklearn",
        dp_prior="data",
        dp_standardize=True,
        dp_concentration=None,
        dp_max_components=30,
        dp_covariance="full",
        random_state=None,
    ):
        self.n_components = n_components
        self.alpha = alpha
        self.anchors = anchors
        self.max_iter = max_iter
        self.optimizer = optimizer
        self.step = step
        self.lam = lam
        self.dp = dp
        self.dp_prior = dp_prior
        self.dp_standardize = dp_standardize
        self.dp_concentration = dp_concentration
        self.dp_max_components = dp_max_components
        self.dp_covariance = dp_covariance
        self.random_state = random_state

    def _fit(self, T, n_items):
        both = self.anchors == "both"
        rng = check_random_state(self.random_state)
        tste_seed, dp_seed = rng.spawn(2)
        t0 = time.perf_counter()
        X, info = tste_embedding(
            T, n_items, self.n_components, self.alpha, both, self.max_iter, random_state=tste_seed,
            optimizer=self.optimizer, options={"lam": self.lam, "step": self.step},
        )
        t1 = time.perf_counter()
        self.labels_, dp_converged = cluster_embedding(
            X, self.dp, max_components=self.dp_max_components, covariance_type=self.dp_covariance,
            concentration=self.dp_concentration, standardize=self.dp_standardize, prior=self.dp_prior,
            random_state=dp_seed,
        )
        t2 = time.perf_counter()
        self.embedding_ = X
        self.n_iter_ = info["n_iter"]
        self.cost_ = info["cost"]
        self.satisfied_ = satisfied_fraction(X, T, both) if len(T) else float("nan")
        # Both optimisers run as "a naive user" would (Section V): a result at
        # an iteration cap is still the method's answer, so status stays "ok"
        # and the caps are reported in converged_.
        self.converged_ = {"tste": info["n_iter"] < self.max_iter, "dpmm": dp_converged}
        self.status_ = "ok"
        self.timings_ = {"embedding": t1 - t0, "dpmm": t2 - t1}
        return self

    @classmethod
    def warmup(cls) -> None:
        T = np.array([[0, 1, 2], [0, 1, 3], [2, 3, 0], [2, 3, 1]], dtype=np.int64)
        cls(max_iter=3).fit(T)
