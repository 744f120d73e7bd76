"""The nights-c nights of issue 15, pinned at two seeds each: the reference recovers, doing
nothing does not, and each graded runbook lands strictly between them (or under its
`score_max`) and loses the most in the component its `loses_in` names.

Written out here rather than read from `drill test`'s own checks, so a change to either one is
caught by the other, the same way tests/library/test_nights_a.py pins its nights. Each night runs
on the backend its lesson needs: the sim where the lesson is time, space and placement.
"""

from __future__ import annotations

import pytest

from tests.library.pins import assert_seeds_are_the_incidents_own, check_night

# incident id -> (backends, seeds, {runbook name: (recovered, components it may lose most in)})
NIGHTS = {
    "quota-cut": (
        ("sim",),
        (1, 2),
        {
            "ask-for-more-quota": (True, {"progress", "time_to_recovery"}),
            "keep-fewer-without-pruning": (False, {"progress", "recovered"}),
        },
    ),
    "nvlink-reset": (
        ("sim",),
        (1, 2),
        {
            "reset-only-the-remap-gpu": (False, {"progress", "recovered"}),
            "drain-and-swap": (True, {"collateral", "progress", "time_to_recovery"}),
            "reboot-the-nvlink-node": (True, {"progress", "time_to_recovery"}),
        },
    ),
    "fabric-manager-down": (
        ("sim",),
        (1, 2),
        {
            "reboot-again": (False, {"progress", "recovered"}),
            "restart-without-reading-the-node": (False, {"progress", "recovered"}),
        },
    ),
    "dead-gpu-full-volume": (
        ("sim",),
        (1, 2),
        {
            "wait-for-the-write-to-fail": (True, {"progress", "time_to_recovery"}),
            "restart-without-freeing-space": (False, {"progress", "recovered"}),
            "restart-on-the-same-nodes": (False, {"progress", "recovered"}),
        },
    ),
}
NOTHING_RECOVERS: set[str] = set()


def _check(name: str, seed: int, backend: str) -> None:
    _, _, books = NIGHTS[name]
    check_night(name, seed, backend, books, nothing_recovers=name in NOTHING_RECOVERS)


SIM = [(n, s) for n, (b, seeds, _) in NIGHTS.items() if "sim" in b for s in seeds]


@pytest.mark.parametrize(("name", "seed"), SIM)
def test_night_on_the_sim(name, seed):
    _check(name, seed, "sim")


def test_the_pinned_seeds_are_the_incidents_own():
    assert_seeds_are_the_incidents_own({name: seeds for name, (_, seeds, _) in NIGHTS.items()})
