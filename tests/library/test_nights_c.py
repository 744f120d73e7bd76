"""The nights-c nights of issue 15, pinned at two seeds each: the reference recovers, doing
nothing does not, and each graded runbook lands strictly between them (or under its
`score_max`) and loses the most in the component its `loses_in` names.

Written out here rather than read from `drill test`'s own checks, so a change to either one is
caught by the other, the same way tests/library/test_nights_a.py pins its nights. Each night runs
on the backend its lesson needs: the sim where the lesson is time, space and placement.
"""

from __future__ import annotations

import pytest

from drill.commands.testing import with_reference_discipline
from drill.engine.par import measured_run, par_and_floor, score_against
from drill.incident.library import resolve_incident

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
            "reset-only-the-nvlink-gpu": (False, {"progress", "recovered"}),
            "drain-and-swap": (True, {"progress", "time_to_recovery"}),
            "reboot-both-nodes": (True, {"progress", "time_to_recovery"}),
        },
    ),
    "fabric-manager-down": (
        ("sim",),
        (1, 2),
        {
            "swap-the-node": (True, {"progress", "time_to_recovery"}),
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


def _night(name: str, seed: int, backend: str):
    incident = resolve_incident(name).incident
    _, _, books = NIGHTS[name]
    par, floor = par_and_floor(incident, seed, backend)
    ref = score_against(incident, par, par, floor)
    nothing = score_against(incident, floor, par, floor)
    graded = {}
    for book in incident.runbooks:
        mine = measured_run(incident, seed, backend, list(book.actions), book.name)
        if book.discipline == "reference":
            mine = with_reference_discipline(mine, par)
        graded[book.name] = (mine, score_against(incident, mine, par, floor))
    assert set(graded) == set(books), f"{name}: runbooks {sorted(graded)}, pinned {sorted(books)}"
    return incident, par, floor, ref, nothing, graded, books


def _check(name: str, seed: int, backend: str) -> None:
    incident, par, floor, ref, nothing, graded, books = _night(name, seed, backend)
    assert par.recovered, f"{name} seed {seed}: the reference did not recover"
    assert floor.recovered == (name in NOTHING_RECOVERS), f"{name} seed {seed}: doing nothing"
    assert nothing.total < 40, f"{name} seed {seed}: doing nothing scored {nothing.total}"
    for book, (mine, score) in graded.items():
        recovered, loses_in = books[book]
        shown = f"{name} seed {seed} {backend} {book}: {score.total} (nothing {nothing.total}, ref {ref.total})"
        assert mine.recovered == recovered, shown
        limit = next(b.expect.score_max for b in incident.runbooks if b.name == book)
        if limit is None:
            assert nothing.total < score.total < ref.total, shown
        else:
            assert score.total <= limit and score.total < ref.total, shown
        lost = {c.name: ref.component(c.name).points - c.points for c in score.components}
        worst = max(lost.values())
        most = {c for c, v in lost.items() if abs(v - worst) < 0.01}
        assert worst > 0 and most & loses_in, f"{shown}: lost most in {most}, {lost}"


SIM = [(n, s) for n, (b, seeds, _) in NIGHTS.items() if "sim" in b for s in seeds]


@pytest.mark.parametrize(("name", "seed"), SIM)
def test_night_on_the_sim(name, seed):
    _check(name, seed, "sim")


def test_the_pinned_seeds_are_the_incidents_own():
    for name, (_, seeds, _) in NIGHTS.items():
        assert tuple(resolve_incident(name).incident.seeds) == seeds, name
