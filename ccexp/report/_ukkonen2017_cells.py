"""Ukkonen (2017), Experiment 1: the algorithms' names and order, per-cell statistics, win counts.

What the figures, Table I and the claim checkers of :mod:`ccexp.report.ukkonen2017` read:
:func:`cell_stats` (mean ARI and number of clusters per (algorithm, k, a, b)),
:func:`win_counts` (paired instances) and :class:`Context`, with the paper's
names (:data:`DISPLAY`) and order (:func:`algorithm_order`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd
from scipy.stats import binomtest

PAPER = "ukkonen2017"
EXPERIMENT = "exp1_triplets"

# Record columns of the three generator parameters (the paper's k, a, b).
K, A, B = "dataset.k", "oracle.fraction", "oracle.noise"

# The paper's order in Table I first, then the algorithms it reports only in
# the text or not at all; unknown algorithms follow in alphabetical order.
ALGORITHM_ORDER = ("ls_ad_vc", "ls_eq_vc", "crowdclust_dpmm", "tste_dpmm", "ls_ad", "ls_eq", "triplet_approx")
DISPLAY = {
    "ls_ad_vc": "Ls-AD-VC",
    "ls_eq_vc": "Ls-EQ-VC",
    "ls_ad": "Ls-AD",
    "ls_eq": "Ls-EQ",
    "triplet_approx": "Algorithm 1",
    "crowdclust_dpmm": "CrowdClust",
    "tste_dpmm": "t-STE",
}
# Fixed colour and marker per algorithm so every figure (and every scale)
# draws an algorithm the same way.
_STYLE = {
    "ls_ad_vc": ("#d62728", "o"),
    "ls_eq_vc": ("#1f77b4", "s"),
    "ls_ad": ("#ff7f0e", "v"),
    "ls_eq": ("#17becf", "D"),
    "triplet_approx": ("#2ca02c", "^"),
    "crowdclust_dpmm": ("#9467bd", "P"),
    "tste_dpmm": ("#8c564b", "X"),
}
_SPARE_STYLE = [("#e377c2", "*"), ("#7f7f7f", "h"), ("#bcbd22", "<"), ("#000000", ">")]

# The correlation-clustering methods and the embedding baselines, as the
# paper groups them in its discussion of Figure 2.
CC_METHODS = ("ls_ad_vc", "ls_eq_vc", "ls_ad", "ls_eq")
EMBEDDINGS = ("crowdclust_dpmm", "tste_dpmm")
# The algorithms of the paper's Section V; claims about "all algorithms" or
# "other methods" are about these (our extras, e.g. Algorithm 1 run on its
# own, are reported in the note but do not decide the verdict).
PAPER_ALGORITHMS = CC_METHODS + EMBEDDINGS
TABLE1_ALGORITHMS = ("ls_ad_vc", "ls_eq_vc", "crowdclust_dpmm", "tste_dpmm")
REFERENCE_ALGORITHM = "ls_ad_vc"  # the paper's win counts pair it with each other method

TABLE1_A = (1.0, 0.1, 0.05, 0.01)
TABLE1_K = (2, 4, 8, 16)
TABLE1_B = (0.0, 0.1, 0.2)

# Ties in ARI between two algorithms on the same instance (identical
# partitions give bit-identical ARI, but sums may differ in the last ulp).
ARI_TIE = 1e-12

#: The (a, b) settings at which the paper's generator is deterministic, so that the paper ran one test case
#: per k there (Section V-A: "When a = 1 and b = 0 the process outputs all possible triplets without any
#: noise. With other choices of a and b the triplet generator is non-deterministic. For each of such
#: combination of a and b we generate 10 independent sets of triplets. This results in 924 test cases").
#: We run 10 trials there too (issue 28: the labels' assignment to items, the triplets' order and the
#: baselines' initialisations are random); counted as the paper counts, those trials are one test case.
DETERMINISTIC_SETTINGS = ((1.0, 0.0),)

def algorithm_order(algorithms) -> list[str]:
    """Algorithms in the paper's order, unknown ones last (alphabetically)."""
    present = set(algorithms)
    known = [a for a in ALGORITHM_ORDER if a in present]
    return known + sorted(present - set(known))


def display(name: str) -> str:
    """The paper's name for an algorithm (the registry name if it has none)."""
    return DISPLAY.get(name, name)


def _styles(algorithms: list[str]) -> dict[str, tuple[str, str]]:
    spare = iter(_SPARE_STYLE * 4)
    return {a: _STYLE[a] if a in _STYLE else next(spare) for a in algorithms}


def _key(x) -> float:
    # Grid values come from yaml floats; rounding makes 0.1 from two sources equal.
    return round(float(x), 10)


# --------------------------------------------------------------------------- statistics


def cell_stats(ok: pd.DataFrame) -> pd.DataFrame:
    """Per (algorithm, k, a, b): mean and std of ARI and of the number of clusters over trials.

    Parameters
    ----------
    ok : DataFrame
        Records with ``status == "ok"``.

    Returns
    -------
    DataFrame
        Columns ``algorithm, k, a, b, ari_mean, ari_std, n_clusters_mean,
        n_trials``; ``a`` and ``b`` rounded so they can be matched by value.
        The std is 0 for a setting run once (the deterministic a=1, b=0).
    """
    cols = ["algorithm", "k", "a", "b", "ari_mean", "ari_std", "n_clusters_mean", "n_clusters_sem", "n_trials"]
    if not len(ok):
        return pd.DataFrame(columns=cols)
    df = pd.DataFrame(
        {
            "algorithm": ok["algorithm"].astype(str).to_numpy(),
            "k": ok[K].astype(int).to_numpy(),
            "a": [_key(v) for v in ok[A]],
            "b": [_key(v) for v in ok[B]],
            "ari": ok["ari"].astype(float).to_numpy(),
            "n_clusters": ok["n_clusters"].astype(float).to_numpy(),
        }
    )
    g = df.groupby(["algorithm", "k", "a", "b"], sort=True)
    out = g.agg(
        ari_mean=("ari", "mean"),
        ari_std=("ari", "std"),
        n_clusters_mean=("n_clusters", "mean"),
        n_clusters_sem=("n_clusters", "sem"),
        n_trials=("ari", "size"),
    ).reset_index()
    out["ari_std"] = out["ari_std"].fillna(0.0)
    out["n_clusters_sem"] = out["n_clusters_sem"].fillna(0.0)  # one deterministic run: no sampling error
    return out[cols]


def paper_case_weights(ok: pd.DataFrame) -> pd.Series:
    """Each instance's weight as a test case of the paper, indexed by ``instance_id``.

    1 for an instance of a setting the paper's generator makes random; 1 / (number of our trials) for each
    trial of a setting of :data:`DETERMINISTIC_SETTINGS` (the paper ran it once per k), so that the weights
    of the paper's grid sum to its 924 test cases.

    Examples
    --------
    >>> ok = pd.DataFrame({"instance_id": ["x", "y", "z"], "dataset.k": [2, 2, 2], "oracle.fraction": [1.0, 1.0, 0.1],
    ...                    "oracle.noise": [0.0, 0.0, 0.0], "trial": [0, 1, 0]})
    >>> paper_case_weights(ok).to_dict()
    {'x': 0.5, 'y': 0.5, 'z': 1.0}
    """
    if not len(ok):
        return pd.Series(dtype=float)
    inst = ok.drop_duplicates("instance_id").set_index("instance_id")
    det = pd.Series(False, index=inst.index)
    for a, b in DETERMINISTIC_SETTINGS:
        det |= (inst[A].map(_key) == _key(a)) & (inst[B].map(_key) == _key(b))
    setting = list(zip(inst[K].astype(int), inst[A].map(_key), inst[B].map(_key)))
    n_trials = pd.Series(setting, index=inst.index).map(pd.Series(setting).value_counts())
    return pd.Series(1.0, index=inst.index).where(~det, 1.0 / n_trials)


#: How each of the paper's four win counts reads its sentence (Section V-A): "has at least the same RI value
#: as CrowdClust", "performs at least as well" as t-STE, "has better (or the same) performance" as Ls-AD
#: (a tie counts as a win), and "Ls-AD-VC outperforms Ls-EQ-VC" (a tie is no win).
WIN_RULES = {"crowdclust_dpmm": "at_least", "tste_dpmm": "at_least", "ls_ad": "at_least", "ls_eq_vc": "strict"}


def win_counts(ok: pd.DataFrame, reference: str = REFERENCE_ALGORITHM) -> pd.DataFrame:
    """Test cases where ``reference`` has at least (or, by :data:`WIN_RULES`, more than) the ARI of each other.

    Rows are paired by ``instance_id`` (every algorithm of an instance saw the
    same noisy triplets); an instance counts only if both algorithms have an
    ok record on it, with its weight as a test case of the paper
    (:func:`paper_case_weights`: the trials of a = 1, b = 0 share one case).
    A win is ``>=`` (ties within ARI_TIE count) unless :data:`WIN_RULES`
    says ``strict`` for that algorithm (an algorithm the paper does not
    compare with gets ``>=``).

    Returns
    -------
    DataFrame
        Columns ``algorithm, versus, rule, wins, paired, percent`` (``wins``
        and ``paired`` in test cases, possibly fractional), then the two-sided
        sign test of the paired instances, unweighted: ``strict_wins, ties,
        losses`` (ties, |difference| <= ARI_TIE, are left out of the test)
        and ``sign_test_p`` (``scipy.stats.binomtest(strict_wins,
        strict_wins + losses)``); one row per other algorithm present, in
        :func:`algorithm_order`. Empty if ``reference`` is absent.
    """
    cols = ["algorithm", "versus", "rule", "wins", "paired", "percent", "strict_wins", "ties", "losses", "sign_test_p"]
    if not len(ok) or reference not in set(ok["algorithm"]):
        return pd.DataFrame(columns=cols)
    # Duplicate (instance, algorithm) pairs would be a store bug; keep the first.
    wide = ok.drop_duplicates(["instance_id", "algorithm"]).pivot(index="instance_id", columns="algorithm", values="ari")
    weights = paper_case_weights(ok) if {A, B, K} <= set(ok.columns) else pd.Series(1.0, index=wide.index)
    rows = []
    for other in algorithm_order(wide.columns):
        if other == reference:
            continue
        pair = wide[[reference, other]].dropna()
        w = weights.reindex(pair.index).fillna(1.0)
        d = pair[reference] - pair[other]
        rule = WIN_RULES.get(other, "at_least")
        won = d > ARI_TIE if rule == "strict" else d >= -ARI_TIE
        wins, n = float(w[won].sum()), float(w.sum())
        up, down = int((d > ARI_TIE).sum()), int((d < -ARI_TIE).sum())
        p = binomtest(up, up + down, 0.5, alternative="two-sided").pvalue if up + down else math.nan
        rows.append([reference, other, rule, wins, n, 100.0 * wins / n if n else math.nan, up, len(pair) - up - down,
                     down, p])
    return pd.DataFrame(rows, columns=cols)


@dataclass
class Context:
    """What the claim checkers and tables read: per-cell statistics and the grid."""

    stats: pd.DataFrame
    algorithms: list[str]
    ks: list[int] = field(default_factory=list)
    as_: list[float] = field(default_factory=list)
    bs: list[float] = field(default_factory=list)

    @classmethod
    def from_stats(cls, stats: pd.DataFrame) -> "Context":
        """The context of :func:`cell_stats`' table: its algorithms in the paper's order and its grid's k, a, b."""
        return cls(
            stats=stats,
            algorithms=algorithm_order(stats["algorithm"].unique()),
            ks=sorted(int(v) for v in stats["k"].unique()),
            as_=sorted(float(v) for v in stats["a"].unique()),
            bs=sorted(float(v) for v in stats["b"].unique()),
        )

    def value(self, algorithm: str, k, a, b, column: str = "ari_mean") -> float:
        """One statistic of one cell; NaN if the cell is not in the records."""
        s = self.stats
        m = s[(s["algorithm"] == algorithm) & (s["k"] == int(k)) & (s["a"] == _key(a)) & (s["b"] == _key(b))]
        return float(m[column].iloc[0]) if len(m) else math.nan

    @property
    def paper_algorithms(self) -> list[str]:
        """Algorithms present that the paper ran."""
        return [a for a in self.algorithms if a in PAPER_ALGORITHMS]

    @property
    def extras(self) -> list[str]:
        """Algorithms present that the paper did not run."""
        return [a for a in self.algorithms if a not in PAPER_ALGORITHMS]
