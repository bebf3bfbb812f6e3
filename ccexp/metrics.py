"""Clustering quality against ground truth.

ARI and AMI come from scikit-learn; the pairwise precision / recall /
F-measure is the one of Liu, Zhang and Wang (2011, Section 5), computed from
the contingency table in O(n) rather than over the O(n^2) pairs.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import adjusted_mutual_info_score, adjusted_rand_score
from sklearn.metrics.cluster import contingency_matrix

from ._validation import check_labels
from .cc.contingency import contingency_table
from .objectives import problem_objective


def _check_pair(y_true, y_pred):
    """Both label vectors encoded as int codes (any hashable labels; never cast), non-empty, one length."""
    y_true = check_labels(y_true, "y_true")
    y_pred = check_labels(y_pred, "y_pred", n_items=y_true.shape[0])
    return y_true, y_pred


def _comb2(counts) -> int:
    """sum_i C(counts_i, 2), exact in integers."""
    c = np.asarray(counts, dtype=np.int64)
    return int(np.sum(c * (c - 1) // 2))


def adjusted_rand(y_true, y_pred) -> float:
    """Adjusted Rand index (Hubert and Arabie 1985).

    A wrapper of :func:`sklearn.metrics.adjusted_rand_score` with this
    package's label validation.

    Parameters
    ----------
    y_true, y_pred : array-like of int, shape (n_items,)
        Ground-truth classes and predicted clusters; any integer ids.

    Returns
    -------
    float
        1 for identical partitions, about 0 for independent ones, can be negative.

    Examples
    --------
    >>> adjusted_rand([0, 0, 1, 1], [5, 5, 2, 2])
    1.0
    """
    y_true, y_pred = _check_pair(y_true, y_pred)
    return float(adjusted_rand_score(y_true, y_pred))


def adjusted_mutual_info(y_true, y_pred) -> float:
    """Adjusted mutual information (Vinh, Epps and Bailey 2010).

    A wrapper of :func:`sklearn.metrics.adjusted_mutual_info_score` with its
    default ``average_method="arithmetic"``.

    Parameters
    ----------
    y_true, y_pred : array-like of int, shape (n_items,)

    Returns
    -------
    float
        1 for identical partitions, about 0 for independent ones.

    Examples
    --------
    >>> adjusted_mutual_info([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    y_true, y_pred = _check_pair(y_true, y_pred)
    return float(adjusted_mutual_info_score(y_true, y_pred))


def pairwise_precision_recall_f(y_true, y_pred) -> tuple[float, float, float]:
    """Pairwise precision, recall and F-measure (Liu, Zhang and Wang 2011, Section 5).

    Over unordered pairs of distinct items:

    - precision = #pairs correctly predicted in the same cluster /
      #pairs predicted in the same cluster,
    - recall = #pairs correctly predicted in the same cluster /
      #pairs in the same class,
    - F = 2 P R / (P + R).

    Parameters
    ----------
    y_true, y_pred : array-like of int, shape (n_items,)
        Ground-truth classes and predicted clusters.

    Returns
    -------
    precision, recall, f : float

    Notes
    -----
    With the contingency table ``n_ij`` (class i, cluster j), row sums
    ``a_i`` and column sums ``b_j``:
    ``TP = sum_ij C(n_ij, 2)``, predicted pairs ``= sum_j C(b_j, 2)``, true
    pairs ``= sum_i C(a_i, 2)``. O(n) for the sparse table, exact integer
    counts.

    The 0/0 cases, which the paper does not define, are set as follows:

    - no pair predicted together (all singletons): precision = 1.0
      (no predicted pair is wrong);
    - no pair together in the ground truth: recall = 1.0
      (no true pair is missed);
    - P + R == 0: F = 0.0.

    So all singletons against a ground truth with some pair gives
    (1.0, 0.0, 0.0), and a single cluster against all-singleton classes
    gives (0.0, 1.0, 0.0).

    Examples
    --------
    Classes {0,1,2}, {3,4}; clusters {0,1}, {2,3,4}. True pairs: 3 + 1 = 4;
    predicted pairs: 1 + 3 = 4; correct: (0,1), (3,4) = 2.

    >>> pairwise_precision_recall_f([0, 0, 0, 1, 1], [0, 0, 1, 1, 1])
    (0.5, 0.5, 0.5)
    """
    y_true, y_pred = _check_pair(y_true, y_pred)
    if y_true.shape[0] < 2:
        return 1.0, 1.0, 1.0  # one item, no pairs at all: both 0/0 conventions apply
    _, _, cells, class_sizes, cluster_sizes = contingency_table(y_true, y_pred)
    tp = _comb2(cells)
    true_pairs = _comb2(class_sizes)
    pred_pairs = _comb2(cluster_sizes)
    precision = tp / pred_pairs if pred_pairs > 0 else 1.0
    recall = tp / true_pairs if true_pairs > 0 else 1.0
    denom = precision + recall
    f = 2.0 * precision * recall / denom if denom > 0 else 0.0
    return float(precision), float(recall), float(f)


def n_clusters(labels) -> int:
    """Number of distinct labels.

    Examples
    --------
    >>> n_clusters([3, 3, 7, -1])
    3
    """
    return int(np.unique(check_labels(labels, "labels")).shape[0])


def clustering_metrics(labels, y) -> dict:
    """All ground-truth metrics of one clustering.

    Parameters
    ----------
    labels : array-like, shape (n_items,)
        Predicted clusters: labels of any hashable type, compared only for
        equality (``[0.1, 0.2]`` are two clusters).
    y : array-like, shape (n_items,), or None
        Ground-truth classes; None for data without ground truth.

    Raises
    ------
    ValueError
        Naming the argument: empty, not 1-d, of another length, or holding a
        missing label (NaN, None).

    Returns
    -------
    dict
        ``ari``, ``ami``, ``precision``, ``recall``, ``f_measure``,
        ``classification_error`` (floats, NaN when ``y`` is None) and
        ``n_clusters`` (int, always filled).
    """
    labels = check_labels(labels, "labels")
    if y is None:
        nan = float("nan")
        return dict(ari=nan, ami=nan, precision=nan, recall=nan, f_measure=nan,
                    classification_error=nan, n_clusters=n_clusters(labels))
    y = check_labels(y, "y", n_items=labels.shape[0])
    precision, recall, f = pairwise_precision_recall_f(y, labels)
    return dict(
        ari=adjusted_rand(y, labels),
        ami=adjusted_mutual_info(y, labels),
        precision=precision,
        recall=recall,
        f_measure=f,
        classification_error=classification_error(y, labels),
        n_clusters=n_clusters(labels),
    )


def score(labels, y, problem=None) -> dict:
    """Metrics of a clustering, plus the supervision's own objective.

    Parameters
    ----------
    labels : array-like, shape (n_items,)
        Any hashable labels, compared only for equality; empty input is
        refused (``ValueError`` naming ``labels``).
    y : array-like or None
        Ground truth, see :func:`clustering_metrics`.
    problem : ccexp.Problem, optional
        When given, :func:`ccexp.objectives.problem_objective` adds the cost of
        ``labels`` under the problem's supervision (``objective``, and
        ``lower_bound`` where one exists).

    Returns
    -------
    dict
        The keys of :func:`clustering_metrics`, plus those of
        ``problem_objective`` when ``problem`` is given.
    """
    labels = check_labels(labels, "labels")
    out = clustering_metrics(labels, y)
    if problem is not None:
        out.update(problem_objective(labels, problem))
    return out


def classification_error(y_true, y_pred) -> float:
    """Classification error EC of Gionis, Mannila and Tsaparas (2007, Section 5.2).

    Every cluster is credited with its majority class:
    ``EC = sum_i (s_i - m_i) / n`` for clusters of sizes ``s_i`` whose
    majority class has ``m_i`` members (the paper's definition; it falls
    to 0 for all singletons, so read it together with the number of
    clusters).

    Examples
    --------
    >>> classification_error([0, 0, 1, 1], [0, 0, 0, 1])
    0.25
    """
    y_true, y_pred = _check_pair(y_true, y_pred)
    _, cols, cells, _, cluster_sizes = contingency_table(y_true, y_pred)  # the non-zero cells
    majority = np.zeros(cluster_sizes.shape[0], dtype=np.int64)
    np.maximum.at(majority, cols, cells)  # each cluster's largest class
    return float(1.0 - majority.sum() / y_true.shape[0])
