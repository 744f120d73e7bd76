"""The silent GPU corruption night, pinned at two seeds: the reference recovers, doing nothing
does not, and each graded runbook lands strictly between them and loses the most in the
component its `loses_in` names. Its main lesson is the damage a GPU's wrong results leave in the
weights, which only the replica measures, so the graded runbooks run there (slow); the sim pins
the reference and doing nothing, and the two runbooks that put the job back on the GPU (they
fail again on every backend).

Written out here rather than read from `drill test`'s own checks, as in test_nights_a.py.
"""

from __future__ import annotations

import pytest

from tests.library.pins import assert_seeds_are_the_incidents_own, check_night

NAME = "silent-gpu-corruption"
SEEDS = (1, 2)
# runbook name -> (recovered, components it may lose most in)
BOOKS = {
    "restart-from-latest": (True, {"progress"}),
    "restart-in-place": (False, {"progress", "recovered"}),
    "skip-the-data": (False, {"progress", "recovered"}),
}


@pytest.mark.parametrize("seed", SEEDS)
def test_reference_recovers_and_nothing_does_not_on_the_sim(seed):
    check_night(NAME, seed, "sim", BOOKS, graded=False)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_night_on_the_replica(seed):
    check_night(NAME, seed, "inprocess", BOOKS)


def test_the_pinned_seeds_are_the_incidents_own():
    assert_seeds_are_the_incidents_own({NAME: SEEDS})
