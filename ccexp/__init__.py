"""ccexp: clustering from weak, noisy supervision.

Public API (stable names)::

    ds   = ccexp.load_dataset("synthetic_labels", n=160, k=4)
    prob = ccexp.make_problem("triplets", ds, fraction=0.1, noise=0.2, random_state=0)
    est  = ccexp.make_algorithm("ls_ad_vc", random_state=0)
    est.fit_problem(prob).labels_
    ccexp.score(est.labels_, ds.y, problem=prob)
"""

from ._kernel_cache import configure_kernel_cache

configure_kernel_cache()  # before any kernel module is imported: numba's cache, keyed by the kernels' sources

from ._installed import bind_checkout_conf

bind_checkout_conf()  # a checkout composes its own conf/, never another checkout's (see the function)

from ._version import __version__
from . import composed  # noqa: F401 - registers the composed oracles (cross_active_pairs)
from .algorithms import list_algorithms, make_algorithm
from .data import Dataset, list_datasets, load_dataset
from .metrics import score
from .oracles import list_oracles, make_problem
from .problem import Problem

__all__ = [
    "__version__",
    "Dataset",
    "Problem",
    "list_algorithms",
    "list_datasets",
    "list_oracles",
    "load_dataset",
    "make_algorithm",
    "make_problem",
    "score",
]
