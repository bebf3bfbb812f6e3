"""The ``truncated`` rule of :func:`ccexp.report.tolerance.judge` (issue 29.3).

Gionis et al.'s Tables 2 and 3 cut their digits: 30,408.906 is printed
30,408 and 11.954 % is printed 11.9 (experiments/gionis2007/README.md,
"Printed precision").
"""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccexp.report.tolerance import DIFFERS, INDISTINGUISHABLE, REPRODUCED, WITHIN, judge

RULE = "truncated: the table cuts its digits"


def test_hand_checked_cases():
    # Table 2's AGGLOMERATIVE ED under the inclusive merge: 30,408.906 -> 30,408
    assert judge("approx", 30408, 30408.906, decimals=0, rule=RULE)[1] == REPRODUCED
    # rounding would have printed 30,409: without the rule it is not reproduced
    assert judge("approx", 30408, 30408.906, decimals=0)[1] == DIFFERS
    # the interval is [v, v + 1 unit): its upper end is out (at half a unit from the middle: within)
    assert judge("approx", 30408, 30409.0, decimals=0, rule=RULE)[1] == WITHIN
    assert judge("approx", 30408, 30409.2, decimals=0, rule=RULE)[1] == DIFFERS
    assert judge("approx", 30408, 30407.99, decimals=0, rule=RULE)[1] == DIFFERS
    # one decimal: 11.954 % -> 11.9; 15.172 % -> 15.1
    assert judge("approx", 11.9, 11.954, decimals=1, rule=RULE)[1] == REPRODUCED
    assert judge("approx", 15.1, 15.172, decimals=1, rule=RULE)[1] == REPRODUCED
    # thousands ("13.537 M", decimals = -3): [13,537,000, 13,538,000)
    assert judge("approx", 13_537_000, 13_537_999, decimals=-3, rule=RULE)[1] == REPRODUCED


def test_within_is_judged_from_the_middle_of_the_interval():
    # mean 11.82 with SE 0.1: |11.82 - 11.95| = 0.13 <= 0.05 + 0.2
    tol, status = judge("approx", 11.9, 11.82, decimals=1, sem=0.1, rule=RULE)
    assert tol == pytest.approx(0.25)
    assert status == WITHIN
    # SE 0.03: 0.13 > 0.05 + 0.06
    assert judge("approx", 11.9, 11.82, decimals=1, sem=0.03, rule=RULE)[1] == DIFFERS


def test_indistinguishable_and_cap_apply_as_in_the_written_rule():
    # 2 SE = 0.4 reaches the competitor 0.3 away; ours within half + 2 SE of the middle
    tol, status = judge("approx", 2.1, 2.0, decimals=1, sem=0.2, cap=0.3, rule=RULE)
    assert (tol, status) == (pytest.approx(0.3), INDISTINGUISHABLE)


@given(st.integers(-10**6, 10**6), st.integers(0, 999), st.sampled_from([0, 1, 2]))
def test_single_values_are_reproduced_exactly_when_their_cut_digits_match(whole, frac, decimals):
    # a deterministic value (SE 0) is reproduced iff cutting it to the printed digits gives the paper's
    scale = 10 ** decimals
    ours = whole / scale + frac / (1000 * scale)
    paper = math.floor(ours * scale + 1e-9) / scale
    assert judge("approx", paper, ours, decimals=decimals, rule=RULE)[1] == REPRODUCED
    other = paper + 1 / scale
    assert judge("approx", other, ours, decimals=decimals, rule=RULE)[1] != REPRODUCED
