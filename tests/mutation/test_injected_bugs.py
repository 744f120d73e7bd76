"""Issue 22's 13 injected bugs, each must fail a fast test (tests/mutation/injected_bugs.py).

The whole check copies the tree and runs pytest 14 times (about 35 s on a quiet machine), so it
is in the slow tier. Finding each bug's anchor is cheap and runs with the fast tests, so a moved
or reworded line is noticed at once rather than in the slow run."""

from __future__ import annotations

import pytest

from tests.mutation.injected_bugs import BUGS, ROOT, AnchorMissing, Bug, locate, main


@pytest.mark.parametrize("bug", BUGS, ids=[b.name for b in BUGS])
def test_each_anchor_is_in_drill_exactly_once(bug):
    assert locate(ROOT, bug).is_file()


def test_an_anchor_that_is_not_there_is_refused_loudly():
    with pytest.raises(AnchorMissing, match="occurs 0 times"):
        locate(ROOT, Bug("gone", "this text is in no file of drill", "x", ()))


@pytest.mark.slow
def test_every_injected_bug_fails_a_fast_test(capsys):
    code = main([])
    shown = capsys.readouterr().out
    assert code == 0, shown
    assert f"{len(BUGS)} of {len(BUGS)} injected bugs caught" in shown
