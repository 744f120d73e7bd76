"""The software nights of issue 23 (a code push whose new path hangs the gang, a swapped-in node
whose driver and NCCL hang the start-up), pinned at two seeds each: the reference recovers,
doing nothing does not, and each graded runbook lands where its `expect` says and loses the most
in the component its `loses_in` names.

Written out here rather than read from `drill test`'s own checks, so a change to either one is
caught by the other (the same checks as tests/library/test_nights_a.py). Both lessons are where
the restart lands and what it runs, which the simulation decides, so they run on the sim
backend; code-push-hang's reference is played once on the in-process replica too.
"""

from __future__ import annotations

import pytest

from tests.library.pins import assert_seeds_are_the_incidents_own, check_night

# incident id -> (seeds, {runbook name: (recovered, components it may lose most in)})
NIGHTS = {
    "code-push-hang": (
        (1, 2),
        {
            "restart-in-place": (False, {"progress", "recovered"}),
            "drain-the-node": (False, {"collateral"}),
        },
    ),
    "swap-rendezvous-hang": (
        (1, 2),
        {
            "restart-in-place": (False, {"progress", "recovered"}),
            "restart-again-then-exclude": (True, {"time_to_recovery", "progress"}),
        },
    ),
}


@pytest.mark.parametrize(
    ("name", "seed"), [(n, s) for n, (seeds, _) in NIGHTS.items() for s in seeds]
)
def test_night_on_the_sim(name, seed):
    _, books = NIGHTS[name]
    check_night(name, seed, "sim", books)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NIGHTS))
def test_the_reference_recovers_on_the_replica(name):
    check_night(name, NIGHTS[name][0][0], "inprocess", NIGHTS[name][1], graded=False)


def test_the_pinned_seeds_are_the_incidents_own():
    assert_seeds_are_the_incidents_own({name: seeds for name, (seeds, _) in NIGHTS.items()})
