"""Every case runs on one BLAS / OpenMP thread, whatever runner.n_jobs is (issue 31).

Two threads per case oversubscribe the cores when cases run side by side,
and OpenBLAS rounds a product's elements by the block each thread computes,
so a case's records could depend on the number of workers; see
``ccexp.runner.execute.CASE_THREADS``.
"""

from __future__ import annotations

from threadpoolctl import threadpool_info, threadpool_limits

from ccexp.registry import ALGORITHMS
from ccexp.runner.execute import CASE_THREADS, run_instance
from ccexp.runner.grid import expand

from _sweeps import DATASET, ORACLE, SMALL


def _threads():
    return {(i["user_api"], i["num_threads"]) for i in threadpool_info()}


def test_a_case_sees_one_thread_and_the_process_gets_its_threads_back(monkeypatch):
    seen = []
    cls = ALGORITHMS.get("ls_eq")
    fit = cls.fit_problem

    def spying(self, problem, *args, **kwargs):
        seen.append(_threads())
        return fit(self, problem, *args, **kwargs)

    monkeypatch.setattr(cls, "fit_problem", spying)
    cases = [c for c in expand(SMALL, DATASET, ORACLE) if c.algorithm == "ls_eq"][:1]
    with threadpool_limits(limits=2):  # as the driver at runner.n_jobs=1 has them on two cores
        before = _threads()
        [rec] = run_instance(cases, {})
        assert _threads() == before
    assert rec["status"] == "ok"
    assert CASE_THREADS == 1 and seen and all(n == 1 for _, n in seen[0])
