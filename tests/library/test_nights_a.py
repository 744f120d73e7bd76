"""The nights of issue 15 that the engine on main already carries, pinned at two seeds each:
the reference recovers, doing nothing does not, and each graded runbook lands strictly between
them and loses the most in the component its `loses_in` names.

Written out here rather than read from `drill test`'s own checks, so a change to either one is
caught by the other. Each night runs on the backend its lesson needs: the sim where the lesson is
about time and placement, the replica (slow) where the weights that come back decide it.
"""

from __future__ import annotations

import pytest

from tests.library.pins import assert_seeds_are_the_incidents_own, check_night

# incident id -> (backends, seeds, {runbook name: (recovered, components it may lose most in)})
# Doing nothing never recovers, except where NOTHING_RECOVERS says the job keeps training by
# itself (its retries bring it back, or a straggler never stops it) and the night is lost to
# how far behind it trains.
# "inprocess" is the real replica; a night whose lesson is the weights runs there too.
NIGHTS = {
    "corrupt-checkpoint": (
        ("sim", "inprocess"),
        (1, 2),
        {
            "restart-from-latest": (True, {"integrity", "progress"}),
            "restart-from-scratch": (True, {"progress"}),
        },
    ),
    "failures-at-scale": (
        ("sim",),
        (4, 5),
        {
            "keep-the-default": (True, {"progress", "plan"}),
            "checkpoint-every-10": (True, {"progress"}),
        },
    ),
    "thermal-straggler": (
        ("sim",),
        (1, 2),
        {
            "restart-in-place": (True, {"progress"}),
            "wait-for-it-to-cool": (True, {"progress"}),
        },
    ),
    "flapping-leaf": (
        ("sim",),
        (1, 2),
        {
            "let-the-retries-handle-it": (False, {"progress", "recovered"}),
            "exclude-the-nodes-not-the-leaf": (False, {"progress", "recovered"}),
        },
    ),
    "no-room-for-the-gang": (
        ("sim",),
        (1, 2),
        {
            "wait-for-the-spare": (True, {"progress", "time_to_recovery"}),
            # Preempting a team in the same class harms more than doing nothing: the guide's
            # `score_max` case, so it is held below the reference, not above doing nothing.
            "bump-to-urgent": (True, {"collateral"}),
        },
    ),
}
NOTHING_RECOVERS = {"failures-at-scale", "thermal-straggler"}


def _check(name: str, seed: int, backend: str) -> None:
    _, _, books = NIGHTS[name]
    check_night(name, seed, backend, books, nothing_recovers=name in NOTHING_RECOVERS)


SIM = [(n, s) for n, (b, seeds, _) in NIGHTS.items() if "sim" in b for s in seeds]
REPLICA = [(n, s) for n, (b, seeds, _) in NIGHTS.items() if "inprocess" in b for s in seeds]


@pytest.mark.parametrize(("name", "seed"), SIM)
def test_night_on_the_sim(name, seed):
    _check(name, seed, "sim")


@pytest.mark.slow
@pytest.mark.parametrize(("name", "seed"), REPLICA)
def test_night_on_the_replica(name, seed):
    _check(name, seed, "inprocess")


def test_the_pinned_seeds_are_the_incidents_own():
    assert_seeds_are_the_incidents_own({name: seeds for name, (_, seeds, _) in NIGHTS.items()})
