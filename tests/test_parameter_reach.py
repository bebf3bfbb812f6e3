"""scripts/parameter_reach.py: the calls from ``main`` to each parameter's first read (issue 30)."""

from conftest import load_script


def _reach():
    return load_script("scripts/parameter_reach.py", "parameter_reach")


def test_first_reads_count_the_frames_below_the_runner_and_leave_out_the_validation():
    reach = _reach()
    # Ls-AD-VC reads its parameters in TripletLocalSearch._fit: fit_problem -> _fit, so 2 + 2 = 4 calls from main
    reads, unread = reach.first_reads("ls_ad_vc")
    assert reads["max_passes"] == ["_fit", "fit_problem"]
    assert unread == ["random_state"]  # read only by the validation (the triplet local search draws no number)
    # acc reads max_passes where it runs Algorithm 1 (fit_problem -> resolved_params), its budget in the check
    reads, _ = reach.first_reads("acc_uniform")
    assert reads["max_passes"] == ["resolved_params", "fit_problem"]
    assert reads["max_queries"] == ["_check_params", "fit_problem"]
    # a family's driver reads what its subclass's hook names (hook_params) and hands it on: SAMPLING's wrapped
    # algorithm was read 8 calls from main, in _inner <- _run_inner <- _level <- _cluster <- _fit_encoded
    reads, _ = reach.first_reads("sampling")
    assert reads["algorithm"] == ["_fit_encoded", "fit_problem"]


def test_the_summary_adds_up(capsys):
    """The deeper reads, listed per algorithm and counted by depth, and the reads within the limit add up to all."""
    import re

    from ccexp.registry import ALGORITHMS

    assert _reach().main(["--over", "4"]) == 0
    *rows, last = capsys.readouterr().out.splitlines()
    m = re.fullmatch(r"(\d+) parameters read by (\d+) algorithms; (\d+) within 4 calls of main; deeper: (.*)", last)
    assert m, last
    n_read, n_algorithms, n_within = map(int, m.groups()[:3])
    by_depth = {int(d): int(c) for c, d in re.findall(r"(\d+) at (\d+)", m[4])}
    assert n_algorithms == len(ALGORITHMS.names())
    assert all(d > 4 for d in by_depth) and n_within + sum(by_depth.values()) == n_read
    listed = [int(d) for row in rows for d in re.findall(r" (\d+)(?=,|$|  )", row.split(": ", 1)[1])]
    assert sorted(listed) == sorted(d for d, c in by_depth.items() for _ in range(c))
    # issue 30: every parameter reaches the code that reads it in at most 4 calls from main
    assert not by_depth, rows
