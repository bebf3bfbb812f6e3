"""The active correlation clustering procedure (Algorithm 1 of Aronsson & Chehreghani 2024).

One estimator, the query strategy a parameter, registered five times:
``acc_uniform``, ``acc_uncertainty``, ``acc_frequency``, ``acc_maxmin``,
``acc_maxexp``.
"""

from __future__ import annotations

import hashlib
import math
import time
from numbers import Integral, Real

import numpy as np
from sklearn.cluster import KMeans
from sklearn.utils._param_validation import Interval, Options, RealNotInt, StrOptions

from ..._validation import check_positive_int, check_random_state, unknown_name_error
from ...problem_oracle import PairwiseSimilarityOracle
from ...registry import ALGORITHMS
from ...problem import Problem
from ..base import RANDOM_STATE, ProblemEstimator, validate_params, validates_params_first
from . import _kernels as K
from .local_search import ETA
from .strategies import EXPLORATIONS, STRATEGIES, BatchSelector

INITS = ("random", "kmeans")
PRESETS = ("paper", "authors")
FIRST_KS = ("n", "init")
INIT_FITS = ("run", "dataset")
#: The authors' k-means of sigma_0 (their ``run_experiments.py``: ``KMeans(n_clusters=k, random_state=seed)``,
#: ``seed`` = 14 in every stored run's config) with the library's default initialisations: one
#: (scikit-learn >= 1.4's ``n_init="auto"`` for k-means++), which gives the stored runs' iteration-0 ARI on
#: eight of their nine datasets; a dataset names its own (``meta["init_n_init"]``: mushrooms' 10, the
#: default of the scikit-learn 1.0.2 their requirements pin).  Until 2026-11-27: 10 for every dataset.
AUTHORS_KMEANS = {"n_init": 1, "random_state": 14}

#: What each preset sets for the parameters left at ``None``.  "paper" is the
#: text of Aronsson & Chehreghani (2024) (Sections 2.4, 3.5, 4.1), tau read as
#: Appendix C.2 reads it: a cap on the answers of an edge (its tau = 1 curve
#: "remains the same" as tau >= 2 at gamma = 0, so tau = 1 allows one answer;
#: Section 3.5's max |Q_e| <= tau, with sigma_0 in Q_e, would allow none);
#: "authors"
#: is their public code (Linusaronsson/Active-Correlation-Clustering @ 313d989,
#: configs of the stored runs): tau = 3 counted without sigma_0 (an edge stays
#: eligible while 1 + answers <= tau), exploration least-queried first,
#: T = 5 restarts of at most 30 passes each, the first clustering started from
#: the K_init = 10 clusters of sigma_0, and a k-means sigma_0 fitted once per dataset
#: (``AUTHORS_KMEANS``) and shared by every repetition, strategy and noise level.
PRESET_PARAMS = {
    "paper": {"tau": 5, "tau_counts_sigma0": False, "exploration": "uniform", "n_restarts": 3,
              "max_passes": None, "first_k": "n", "init_fit": "run"},
    "authors": {"tau": 3, "tau_counts_sigma0": False, "exploration": "frequency", "n_restarts": 5,
                "max_passes": 30, "first_k": "init", "init_fit": "dataset"},
}
#: a pass cap that only guards against a non-terminating loop (the paper has none)
SAFETY_PASSES = 1000


def initial_similarity(labels, lam: float = 0.1) -> np.ndarray:
    """sigma_0 from a clustering: +lambda within a cluster, -lambda across (Section 4.1)."""
    labels = np.asarray(labels)
    S = np.where(labels[:, None] == labels[None, :], lam, -lam).astype(np.float64)
    np.fill_diagonal(S, 0.0)
    return S


def kmeans_once(X: np.ndarray, k: int, n_init: int | None = None) -> np.ndarray:
    """The authors' k-means of sigma_0 for features ``X``: one fit per dataset, reused (``AUTHORS_KMEANS``;
    ``n_init`` None: its initialisations).

    Their ``run_experiments.py`` fits ``KMeans(n_clusters=k, random_state=seed)``
    once per dataset and hands the same labels to every run; the fit is
    deterministic, so a cache keyed by the data's bytes and k gives each
    worker the same labels without refitting.  Returns a copy.
    """
    params = {**AUTHORS_KMEANS, **({} if n_init is None else {"n_init": check_positive_int(n_init, "n_init")})}
    key = (hashlib.sha1(X.tobytes()).hexdigest(), X.shape, int(k), params["n_init"], params["random_state"])
    if key not in _KMEANS_ONCE:
        _KMEANS_ONCE[key] = KMeans(n_clusters=int(k), init="k-means++", **params).fit(X).labels_
    return _KMEANS_ONCE[key].copy()


_KMEANS_ONCE: dict = {}


class ActiveCorrelationClustering(ProblemEstimator):
    """Active correlation clustering with a noisy similarity oracle (Algorithm 1).

    Every iteration clusters the current similarities with the
    max-correlation local search (Algorithm 2), asks the strategy for a
    batch of B edges, queries the oracle and sets each queried similarity
    to the mean of its answers, sigma_0 included (lines 5-10).

    Parameters
    ----------
    strategy : {"uniform", "uncertainty", "frequency", "maxmin", "maxexp"}
        Query strategy (Section 3; Eqs. 8, 9, 10, 13).
    max_queries : int or float
        Query budget: an int, or a float in (0, 1] read as a fraction of |E|.
    batch_size : int, float in (0, 1) or "auto"
        B; a float is a fraction of |E| (rounded up); "auto" is the paper's
        ceil(|E| / 1000), the same as 0.001.
    init : {"random", "kmeans"}
        sigma_0 from 10 random clusters (``init_k``), or from k-means++ on
        the problem's features with ``init_k`` clusters (default: the
        problem's ``meta["init_k"]``), as +-``lam`` (Section 4.1).
    init_k : int, optional
        Clusters of the initial clustering (random default: 10).
    lam : float
        lambda, the magnitude of sigma_0 (paper: 0.1).
    beta : float
        maxexp's inverse temperature (Eq. 11; paper: 1).
    epsilon : float
        Probability that a maxmin / maxexp batch explores instead (paper: 0.3).
    exploration : {"uniform", "frequency"} or None
        How an exploring batch is chosen: uniformly at random, as the paper
        writes (Section 3.5), or least-queried first (Eq. 9), as the
        authors' public code does.  None: the preset's.
    tau : int, inf or None
        Cap on the queries of one edge (paper: 5, authors' runs: 3); inf for
        no cap; None: the preset's.
    tau_counts_sigma0 : bool or None
        Whether tau bounds |Q_e| with sigma_0 in it (Section 3.5 with
        Algorithm 1's line 2 read literally: at most tau - 1 answers, none
        at tau = 1), or the answers alone (at most tau answers: Appendix
        C.2's tau = 1 curve, and the authors' code).  None: the preset's
        (False in both).
    xi : float in [0, 1] or None
        Fraction of the violating edges sampled by Algorithm 3 (Section 4.4);
        None samples N of them (line 3).
    n_restarts : int or None
        T of Algorithm 2 (paper: 3, authors' code: 5).  None: the preset's.
    eta : float
        Stopping threshold of Algorithm 2 (paper: 2**-52).
    max_passes : int or None
        Cap on the passes of one restart of Algorithm 2 (authors' code: 30;
        the paper has none, None there means a safety cap of 1000).
    first_k : {"n", "init"} or None
        k of the first clustering: N (the paper, Section 2.4) or the number
        of clusters of sigma_0's clustering (the authors' code).
    init_fit : {"run", "dataset"} or None
        How ``init="kmeans"`` fits its k-means: once per run, k-means++ with
        one initialisation seeded from ``random_state`` (the paper: each of
        the 15 repetitions has its own random seed, Section 4.1), or once per
        dataset as the authors' ``run_experiments.py`` does (10
        initialisations, seed 14: the same sigma_0 for every repetition,
        strategy and noise level; ``AUTHORS_KMEANS``).  None: the preset's.
    preset : {"paper", "authors"}
        Fills every parameter above left at None: "paper" follows the
        paper's text, "authors" the authors' public code where it departs
        from the text (see ``PRESET_PARAMS``).  Pair it with the oracle's
        preset of the same name (its noise model).
    random_state : int, Generator or None

    Attributes
    ----------
    labels_ : int64 array (N,)
        The clustering after the last batch.
    history_ : list of dict
        One entry per clustering computed: ``n_queries`` (answers so far),
        ``labels``, ``n_clusters``, ``n_violations`` (|E_violates| seen by
        maxmin / maxexp, -1 otherwise), ``explored`` (an epsilon batch) and
        ``seconds_cluster`` / ``seconds_select``.
    similarity_ : float64 array (N, N)
        The final sigma.
    n_queries_ : int
    objective_ : float
        Delta^MaxCor (Eq. 5) of ``labels_`` under ``similarity_``.
    status_ : str
        ``"ok"`` (every way a run ends is a normal outcome).
    stop_reason_ : str
        ``"budget"`` (max_queries spent), ``"exhausted"`` (every edge asked
        tau times first) or ``"callback"`` (a callback ended the run).
    timings_ : dict
        Seconds spent clustering, selecting and querying.

    Examples
    --------
    >>> import numpy as np
    >>> from ccexp.oracles.active import PairwiseSimilarityOracle
    >>> y = np.repeat([0, 1, 2], 5)
    >>> est = ActiveCorrelationClustering("maxexp", max_queries=1.0, random_state=0)
    >>> est.fit(PairwiseSimilarityOracle(y, gamma=0.0, random_state=0)).n_queries_ <= 105
    True
    """

    reads = ("similarity",)  # ccexp.capabilities; init="kmeans" reads the features too
    needs_features = False

    supervision = "oracle"

    # scikit-learn's validation (every fit); inf is allowed where the docs say so.
    # None of a preset-filled parameter means "the preset's" (PRESET_PARAMS).
    _parameter_constraints = {
        "strategy": [StrOptions(set(STRATEGIES))],
        "max_queries": [Interval(Integral, 0, None, closed="left"), Interval(RealNotInt, 0, 1, closed="right")],
        "batch_size": [StrOptions({"auto"}), Interval(RealNotInt, 0, 1, closed="neither"),
                       Interval(Integral, 1, None, closed="left")],
        "init": [StrOptions(set(INITS))],
        "init_k": [Interval(Integral, 1, None, closed="left"), None],
        "lam": [Interval(Real, 0, 1, closed="left")],
        "beta": [Interval(Real, 0, None, closed="left"), Options(Real, {math.inf})],
        "epsilon": [Interval(Real, 0, 1, closed="both")],
        "exploration": [StrOptions(set(EXPLORATIONS)), None],
        "tau": [Interval(Integral, 1, None, closed="left"), Options(Real, {math.inf}), None],
        "xi": [Interval(Real, 0, 1, closed="both"), None],
        "n_restarts": [Interval(Integral, 1, None, closed="left"), None],
        "eta": [Interval(Real, 0, None, closed="left")],
        "random_state": RANDOM_STATE,
        "tau_counts_sigma0": ["boolean", None],
        "max_passes": [Interval(Integral, 1, None, closed="left"), None],
        "first_k": [StrOptions(set(FIRST_KS)), None],
        "init_fit": [StrOptions(set(INIT_FITS)), None],
        "preset": [StrOptions(set(PRESETS))],
    }

    def __init__(
        self,
        strategy="maxexp",
        max_queries=1.0,
        batch_size="auto",
        init="random",
        init_k=None,
        lam=0.1,
        beta=1.0,
        epsilon=0.3,
        exploration=None,
        tau=None,
        xi=None,
        n_restarts=None,
        eta=ETA,
        random_state=None,
        tau_counts_sigma0=None,
        max_passes=None,
        first_k=None,
        init_fit=None,
        preset="paper",
    ):
        self.strategy = strategy
        self.max_queries = max_queries
        self.batch_size = batch_size
        self.init = init
        self.init_k = init_k
        self.lam = lam
        self.beta = beta
        self.epsilon = epsilon
        self.exploration = exploration
        self.tau = tau
        self.xi = xi
        self.n_restarts = n_restarts
        self.eta = eta
        self.random_state = random_state
        self.tau_counts_sigma0 = tau_counts_sigma0
        self.max_passes = max_passes
        self.first_k = first_k
        self.init_fit = init_fit
        self.preset = preset

    def resolved_params(self) -> dict:
        """The parameters that the preset fills, as this estimator runs them."""
        if self.preset not in PRESETS:
            raise unknown_name_error("preset", self.preset, PRESETS)
        out = {}
        for name, default in PRESET_PARAMS[self.preset].items():
            value = getattr(self, name)
            out[name] = default if value is None else value
        return out

    # -- validation ---------------------------------------------------------
    def _check_params(self, n_edges: int):
        """(B, budget) after validating every parameter (QECC and COBRAS reuse it for theirs).

        The budget is ``max_queries`` itself (an int) or that fraction of ``n_edges``, rounded down.
        """
        self._validate_params()
        b = self.batch_size
        if isinstance(b, str):  # "auto": the paper's ceil(|E| / 1000)
            B = max(1, math.ceil(n_edges / 1000))
        elif isinstance(b, Integral):
            B = int(b)
        else:  # a fraction of |E| in (0, 1), rounded up
            B = max(1, math.ceil(n_edges * float(b)))
        q = self.max_queries
        return B, int(q) if isinstance(q, Integral) else int(math.floor(float(q) * n_edges))

    def _initial_labels(self, n, X, meta, rng, init_fit="run"):
        if self.init == "random":
            k = 10 if self.init_k is None else check_positive_int(self.init_k, "init_k")
            return rng.integers(0, k, size=n)
        if X is None:
            raise ValueError("init='kmeans' needs features: a problem with X")
        k = self.init_k if self.init_k is not None else (meta or {}).get("init_k")
        if k is None:
            raise ValueError("init='kmeans' needs init_k (or a problem whose meta names init_k)")
        k = min(check_positive_int(k, "init_k"), n)
        if init_fit == "dataset":  # no draw from rng: the fit depends on the data alone
            return kmeans_once(np.ascontiguousarray(X, dtype=np.float64), k, (meta or {}).get("init_n_init"))
        seed = int(rng.integers(0, 2**31 - 1))
        return KMeans(n_clusters=k, init="k-means++", n_init=1, random_state=seed).fit(X).labels_

    # -- fitting ------------------------------------------------------------
    @validates_params_first
    def fit(self, oracle, y=None, X=None, callback=None):
        """Run Algorithm 1 against ``oracle`` (``query(u, v) -> answers``, ``n_items``).

        Parameters
        ----------
        oracle : object
            With ``n_items`` and ``query(u, v)``; if it has ``session()``,
            a fresh session is used, so the same oracle serves many fits.
        y : ignored
        X : array (N, d), optional
            Features, for ``init="kmeans"`` only.
        callback : callable, optional
            ``callback(n_queries, labels) -> bool`` after every clustering;
            True stops the run (a runner's convergence rule).
        """
        validate_params(self)
        return self.fit_problem(Problem(n_items=int(oracle.n_items), X=X, oracle=oracle), callback)

    @validates_params_first
    def fit_problem(self, problem, callback=None):
        """Algorithm 1 on ``problem.oracle`` (``problem.X`` for a k-means sigma_0; ``problem.meta`` its k).

        The loop of Algorithm 1 and the restarts of Algorithm 2 are written here, around the kernel of one
        restart (``_kernels.local_search_sums``), so that ``max_passes``, ``n_restarts`` and ``eta`` go from
        the runner's call to the code that applies them in one call (issue 30).
        """
        validate_params(self)
        oracle = problem.require("oracle", type(self).__name__)
        X, meta = problem.X, problem.meta
        if hasattr(oracle, "session"):
            oracle = oracle.session()
        n = int(oracle.n_items)
        if n < 2:
            raise ValueError(f"need at least 2 items, got {n}")
        n_edges = n * (n - 1) // 2
        B, budget = self._check_params(n_edges)
        p = self.resolved_params()
        rng = check_random_state(self.random_state)
        lam = float(self.lam)
        # sigma_0 and the query matrix Q (lines 1-2): total = sum of Q_uv, counts = |Q_uv| - 1
        init_labels = self._initial_labels(n, X, meta, rng, p["init_fit"])
        S = initial_similarity(init_labels, lam)
        total = S.copy()
        counts = np.zeros((n, n), dtype=np.int32)
        # the cap on answers per edge: |Q_e| = 1 + answers <= tau (paper) or answers <= tau (authors' code)
        tau = p["tau"]
        cap = None if np.isinf(tau) else int(tau) - (1 if p["tau_counts_sigma0"] else 0)
        selector = BatchSelector(n, self.strategy, self.beta, self.epsilon, cap, self.xi, p["exploration"])
        n_restarts = int(p["n_restarts"])
        max_passes = SAFETY_PASSES if p["max_passes"] is None else int(p["max_passes"])
        eta = float(self.eta)
        timings = {"cluster": 0.0, "select": 0.0, "query": 0.0}
        history = []
        n_queries = 0
        # k = |z| in the first iteration (paper), or sigma_0's clusters (authors' code); then |C^i|
        k = n if p["first_k"] == "n" else int(init_labels.max()) + 1  # their K_dyn = max label + 1
        # an upper bound on max |S| for the local search's rounding bounds: the running maximum
        # of what S has held (any bound gives the same clustering; this one saves a read of S)
        smax = K.abs_max(S)
        M = np.empty_like(S)  # the local search's per-cluster sums, a workspace every restart overwrites
        self.status_ = "ok"
        self.stop_reason_ = "budget"
        while True:
            t0 = time.perf_counter()
            # line 5: Algorithm 2 (local_search.py) on S, which is exactly symmetric (both triangles are set
            # together), so it is its own transpose; T restarts from random clusterings with min(k, N)
            # clusters (its lines 2-7), the best objective kept (lines 30-33)
            best = -np.inf
            for _ in range(n_restarts):
                seeds = rng.integers(0, 2**31 - 1, size=2)
                start = K.random_labels(n, min(k, n), int(seeds[0]))
                delta, _ = K.local_search_sums(S, S, start, int(seeds[1]), eta, max_passes, M, smax)
                if delta > best:
                    best, labels = delta, start
            K.relabel_first_appearance(labels)
            t_cluster = time.perf_counter() - t0
            timings["cluster"] += t_cluster
            k = int(labels.max()) + 1
            entry = {"n_queries": n_queries, "labels": labels, "n_clusters": k, "seconds_cluster": t_cluster}
            history.append(entry)
            if callback is not None and callback(n_queries, labels):
                self.stop_reason_ = "callback"
                break
            want = min(B, budget - n_queries)
            if want <= 0:
                break
            t0 = time.perf_counter()
            bu, bv = selector.select(S, labels, counts, want, rng)  # line 6
            t_select = time.perf_counter() - t0
            timings["select"] += t_select
            entry["seconds_select"] = t_select
            entry["n_violations"] = selector.n_violations
            entry["explored"] = selector.explored
            if bu.shape[0] == 0:
                self.stop_reason_ = "exhausted"  # every edge has reached the cap tau
                break
            t0 = time.perf_counter()
            answers = np.asarray(oracle.query(bu, bv), dtype=np.float64)  # line 8
            K.apply_answers(total, counts, S, bu, bv, answers)  # lines 9-10
            smax = max(smax, float(np.abs(S[bu, bv]).max()))
            timings["query"] += time.perf_counter() - t0
            n_queries += int(bu.shape[0])
        self.labels_ = labels
        # Eq. 5 of the last clustering: S has not changed since (every stop comes before line 8's answers)
        self.objective_ = float(K.max_correlation(S, labels))
        self.history_ = history
        self.similarity_ = S
        self.query_counts_ = counts
        self.n_queries_ = n_queries
        self.batch_size_ = B
        self.timings_ = timings
        return self

    @classmethod
    def warmup(cls) -> None:
        y = np.repeat(np.arange(3), 4)
        for strategy in STRATEGIES:
            for exploration in EXPLORATIONS:
                cls(strategy, max_queries=40, batch_size=10, epsilon=0.5, exploration=exploration, random_state=0).fit(
                    PairwiseSimilarityOracle(y, gamma=0.3, random_state=0)
                )


# One registry name per query strategy (the runner keys cases by name): the
# parameter list is ActiveCorrelationClustering's, only ``strategy``'s default differs.


@ALGORITHMS.register("acc_uniform")
class ACCUniform(ActiveCorrelationClustering, defaults={"strategy": "uniform"}):
    """Algorithm 1 with the uniform query strategy; see :class:`ActiveCorrelationClustering`."""


@ALGORITHMS.register("acc_uncertainty")
class ACCUncertainty(ActiveCorrelationClustering, defaults={"strategy": "uncertainty"}):
    """Algorithm 1 with the uncertainty query strategy; see :class:`ActiveCorrelationClustering`."""


@ALGORITHMS.register("acc_frequency")
class ACCFrequency(ActiveCorrelationClustering, defaults={"strategy": "frequency"}):
    """Algorithm 1 with the frequency query strategy; see :class:`ActiveCorrelationClustering`."""


@ALGORITHMS.register("acc_maxmin")
class ACCMaxmin(ActiveCorrelationClustering, defaults={"strategy": "maxmin"}):
    """Algorithm 1 with the maxmin query strategy; see :class:`ActiveCorrelationClustering`."""


@ALGORITHMS.register("acc_maxexp")
class ACCMaxexp(ActiveCorrelationClustering, defaults={"strategy": "maxexp"}):
    """Algorithm 1 with the maxexp query strategy; see :class:`ActiveCorrelationClustering`."""
