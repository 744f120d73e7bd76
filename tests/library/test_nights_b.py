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

from drill.commands.testing import with_reference_discipline
from drill.engine.par import measured_run, par_and_floor, score_against
from drill.incident.library import resolve_incident

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
    incident = resolve_incident(name).incident
    _, books = NIGHTS[name]
    par, floor = par_and_floor(incident, seed, "sim")
    ref = score_against(incident, par, par, floor)
    nothing = score_against(incident, floor, par, floor)
    assert par.recovered, f"{name} seed {seed}: the reference did not recover"
    assert not floor.recovered, f"{name} seed {seed}: doing nothing recovered"
    assert nothing.total < 40, f"{name} seed {seed}: doing nothing scored {nothing.total}"
    assert {b.name for b in incident.runbooks} == set(books), f"{name}: runbooks changed"
    for book in incident.runbooks:
        mine = measured_run(incident, seed, "sim", list(book.actions), book.name)
        if book.discipline == "reference":
            mine = with_reference_discipline(mine, par)
        score = score_against(incident, mine, par, floor)
        recovered, loses_in = books[book.name]
        shown = f"{name} seed {seed} {book.name}: {score.total} (nothing {nothing.total}, ref {ref.total})"
        assert mine.recovered == recovered, shown
        assert nothing.total < score.total < ref.total, shown
        lost = {c.name: ref.component(c.name).points - c.points for c in score.components}
        worst = max(lost.values())
        most = {c for c, v in lost.items() if abs(v - worst) < 0.01}
        assert worst > 0 and most & loses_in, f"{shown}: lost most in {most}, {lost}"


@pytest.mark.parametrize(
    ("name", "seed"), [(n, s) for n, (seeds, _) in NIGHTS.items() for s in seeds]
)
def test_night_on_the_sim(name, seed):
    _check(name, seed)


def test_the_pinned_seeds_are_the_incidents_own():
    for name, (seeds, _) in NIGHTS.items():
        assert tuple(resolve_incident(name).incident.seeds) == seeds, name
