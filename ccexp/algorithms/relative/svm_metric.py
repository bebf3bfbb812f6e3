"""The SVM metric of Schultz and Joachims (NIPS 2003) learned from relative constraints.

Liu, Zhang and Wang (2011, Section 5) use it as their baseline metric with
``C = 1`` and ``A = I``.  A diagonal metric ``d_W(x, y) = sum_l w_l (x_l -
y_l)^2`` with ``W >= 0`` solves (Schultz and Joachims, Eq. 5-9 with A = I)::

    min_{w >= 0, xi >= 0}  1/2 ||w||^2 + C sum_t xi_t
    s.t.  d_W(x_i, x_k) - d_W(x_i, x_j) >= 1 - xi_t   for each comparison t = (i, j, k)

and each relative constraint ``ab|c`` gives two comparisons: ``(a, b, c)``
and ``(b, a, c)``.  With ``z_t = (x_i - x_k)^2 - (x_i - x_j)^2`` (squares
taken per feature) the constraint reads ``w . z_t >= 1 - xi_t``: a linear
SVM without bias whose weights must stay non-negative.
"""

from __future__ import annotations

import numpy as np

from ..._validation import as_index_array, check_features


def comparison_features(X: np.ndarray, R: np.ndarray) -> np.ndarray:
    """``z_t`` for the two comparisons of every constraint ``ab|c`` (rows of ``R``)."""
    a, b, c = X[R[:, 0]], X[R[:, 1]], X[R[:, 2]]
    ab = (a - b) ** 2
    return np.concatenate([(a - c) ** 2 - ab, (b - c) ** 2 - ab])


def _barrier_value(w, xi, r, C, tau):
    return 0.5 * w @ w + C * xi.sum() - tau * (np.log(xi).sum() + np.log(r).sum() + np.log(w).sum())


def learn_svm_metric(X, R, C: float = 1.0, tol: float = 1e-5, max_newton: int = 500) -> tuple[np.ndarray, dict]:
    """Diagonal weights ``w >= 0`` of the Schultz-Joachims metric (module docstring).

    Parameters
    ----------
    X : float array (n, d)
    R : int array (m, 3)
        Relative constraints ``ab|c``.
    C : float
        The soft-margin parameter (1 in Liu et al. 2011).
    tol : float
        Relative duality gap at which the solver stops.
    max_newton : int
        Cap on Newton steps over all barrier stages.

    Returns
    -------
    w : float64 array (d,)
        All ones (the Euclidean metric) when there is no constraint.
    info : dict
        ``primal`` (the QP's objective at ``w``), ``dual`` (the dual
        objective at the multipliers found: a certified lower bound),
        ``gap`` (their difference, >= 0), ``n_support`` (comparisons with
        margin <= 1), ``n_newton``, ``converged``.

    Notes
    -----
    A primal log-barrier interior-point method (Boyd and Vandenberghe 2004,
    Section 11.3) on ``w >= 0, xi >= 0, Z w + xi >= 1``.  Eliminating the
    m slacks leaves a d x d Newton system, so a step costs O(m d^2), as in
    interior-point methods for linear SVMs with few features (Ferris and
    Munson 2003).  Newton's method is affine invariant, which matters
    here: the comparison features ``z_t`` inherit the squared scales of the
    raw features (Proline in Wine, Monetary in Transfusion, 0-100 pen
    coordinates), and first-order solvers stall on that.  Tried and
    rejected for this reason: scipy's L-BFGS-B and exact dual coordinate
    ascent (liblinear's method, extended to the clipped dual), both of
    which left duality gaps in the hundreds on Wine, Transfusion and
    Digits-389.  scikit-learn's ``LinearSVC`` has no sign constraint, and
    clipping its weights is not this problem's optimum.  SVM-light, which
    the paper used, is not a Python package.

    The multipliers ``alpha_t = tau / r_t`` of the margin constraints lie in
    ``(0, C)``, so ``sum(alpha) - 1/2 ||[Z^T alpha]_+||^2`` is a valid lower
    bound and the reported gap certifies the solution.
    """
    X = check_features(X, "X")
    R = as_index_array(R, "relative", X.shape[0], 3)
    d = X.shape[1]
    if R.shape[0] == 0:
        info = {"primal": 0.0, "dual": 0.0, "gap": 0.0, "n_support": 0, "n_newton": 0}
        return np.ones(d), {**info, "converged": True}
    if not C > 0:
        raise ValueError(f"C must be positive, got {C!r}")
    Z = comparison_features(X, R)
    m = Z.shape[0]
    scale = np.abs(Z).mean(axis=0)
    w = 1.0 / (d * np.where(scale > 0, scale, 1.0))
    xi = np.maximum(0.0, 1.0 - Z @ w) + 1.0
    r = Z @ w + xi - 1.0
    n_barrier = 2 * m + d
    tau = (0.5 * w @ w + C * xi.sum()) / n_barrier
    n_newton = 0
    converged = False
    best = None  # (w, primal, dual, primal) with the smallest certified gap
    while n_newton < max_newton:
        # centring: Newton on the barrier problem for this tau
        for _ in range(100):
            g_w = w - tau * (Z.T @ (1.0 / r)) - tau / w
            g_xi = C - tau / xi - tau / r
            h = tau / xi**2 + tau / r**2
            a = tau / r**2
            coef = a - a * a / h
            S = (Z.T * coef) @ Z
            S[np.diag_indices(d)] += 1.0 + tau / w**2
            rhs = -g_w + Z.T @ (a * g_xi / h)
            try:
                dw = np.linalg.solve(S, rhs)
            except np.linalg.LinAlgError:  # lost precision near the boundary: keep the best point
                n_newton = max_newton
                break
            dxi = (-g_xi - a * (Z @ dw)) / h
            decrement = -(g_w @ dw + g_xi @ dxi)
            n_newton += 1
            if decrement / 2 <= 1e-12 * max(1.0, abs(C * xi.sum())):
                break
            dr = Z @ dw + dxi
            step = 1.0
            for v, dv in ((w, dw), (xi, dxi), (r, dr)):
                neg = dv < 0
                if neg.any():
                    step = min(step, 0.99 * float(np.min(-v[neg] / dv[neg])))
            f0 = _barrier_value(w, xi, r, C, tau)
            while step > 1e-16:
                w1, xi1, r1 = w + step * dw, xi + step * dxi, r + step * dr
                if _barrier_value(w1, xi1, r1, C, tau) <= f0 - 0.25 * step * decrement:
                    break
                step *= 0.5
            w, xi, r = w1, xi1, r1
            if n_newton >= max_newton:
                break
        alpha = np.minimum(tau / r, C)  # in the box, so the dual value is a valid bound
        wp = np.maximum(Z.T @ alpha, 0.0)
        dual = float(alpha.sum() - 0.5 * wp @ wp)
        primal = float(0.5 * w @ w + C * np.maximum(0.0, 1.0 - Z @ w).sum())
        if best is None or primal - dual < best[3] - best[2]:
            best = (w.copy(), primal, dual, primal)
        if primal - dual <= tol * max(1.0, abs(primal)) or n_barrier * tau < 1e-3 * tol * max(1.0, abs(primal)):
            converged = primal - dual <= tol * max(1.0, abs(primal))
            break
        tau *= 0.1
    w, primal, dual, _ = best if best is not None else (w, np.nan, np.nan, None)
    info = {
        "primal": primal,
        "dual": dual,
        "gap": primal - dual,
        "n_support": int(np.sum(Z @ w <= 1.0 + 1e-9)),
        "n_newton": int(n_newton),
        "converged": converged,
    }
    return w, info


class SVMMetric:
    """Estimator-side transform: learn ``w`` from constraints, map ``x -> sqrt(w) * x``.

    Euclidean distance after :meth:`transform` equals ``d_W`` before it, so
    any Euclidean clustering (K-means, ReCon's centroid linkage) runs in the
    learned metric.

    Parameters
    ----------
    C : float
        Soft-margin parameter (1, as in Liu et al. 2011).

    Attributes
    ----------
    weights_ : float64 array (d,)
    info_ : dict
        See :func:`learn_svm_metric`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0., 0.], [0., 5.], [1., 0.], [1., 5.]])
    >>> m = SVMMetric().fit(X, np.array([[0, 1, 2], [2, 3, 0]]))   # feature 1 is noise
    >>> bool(m.weights_[0] > m.weights_[1])
    True
    """

    def __init__(self, C: float = 1.0):
        self.C = C

    def fit(self, X, relative):
        """Learn the diagonal weights from the relative constraints ``relative`` (rows ``a, b, c``: a closer to b than to c)."""
        self.weights_, self.info_ = learn_svm_metric(X, relative, C=self.C)
        return self

    def transform(self, X):
        """``X`` scaled by the square roots of the learned weights, so Euclidean distance is the learned metric."""
        return check_features(X, "X") * np.sqrt(self.weights_)

    def fit_transform(self, X, relative):
        """``fit(X, relative)`` then ``transform(X)``."""
        return self.fit(X, relative).transform(X)
