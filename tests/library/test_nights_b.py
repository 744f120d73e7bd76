"""The start-up and silent-hang nights of issue 15 (/dev/shm full, a zombie holding GPU memory,
a rank stuck reading from NFS), pinned at two seeds each: the reference recovers, doing nothing
does not, and each graded runbook lands strictly between them and loses the most in the
component its `loses_in` names.

Written out here rather than read from `drill test`'s own checks, so a change to either one is
caught by the other (the same checks as tests/library/test_nights_a.py). These nights' lessons
are where the restart lands and how long the job is down, which the simulation decides, so they
run on the sim backend.
"""

from __future__ import annotations

import pytest

from tests.library.pins import assert_seeds_are_the_incidents_own, check_night

# incident id -> (seeds, {runbook name: (recovered, components it may lose most in)})
NIGHTS = {
    "shm-full": (
        (1, 2),
        {
            "restart-in-place": (False, {"progress", "recovered"}),
            "reboot-both-nodes": (True, {"time_to_recovery", "collateral", "progress"}),
        },
    ),
    "zombie-memory": (
        (1, 2),
        {
            "restart-again": (False, {"progress", "recovered"}),
            "reboot-the-node": (True, {"time_to_recovery", "progress"}),
        },
    ),
    "silent-nfs-hang": (
        (1, 2),
        {
            "wait-for-the-watchdog": (False, {"progress", "recovered"}),
            "drain-the-node": (True, {"collateral"}),
        },
    ),
}


def _check(name: str, seed: int) -> None:
    _, books = NIGHTS[name]
    check_night(name, seed, "sim", books)


@pytest.mark.parametrize(
    ("name", "seed"), [(n, s) for n, (seeds, _) in NIGHTS.items() for s in seeds]
)
def test_night_on_the_sim(name, seed):
    _check(name, seed)


def test_the_pinned_seeds_are_the_incidents_own():
    assert_seeds_are_the_incidents_own({name: seeds for name, (seeds, _) in NIGHTS.items()})
