"""The bad data shard night, pinned at two seeds: the reference recovers, doing nothing does
not, and each graded runbook lands strictly between them and loses the most in the component
its `loses_in` names. Its lesson is the damage bad data leaves in the weights, which only the
replica measures, so the graded runbooks run there (slow); the sim pins the reference and
doing nothing, which it can count.

Written out here rather than read from `drill test`'s own checks, as in test_nights_a.py.
"""

from __future__ import annotations

import pytest

from drill.commands.testing import with_reference_discipline
from drill.engine.par import measured_run, par_and_floor, score_against
from drill.incident.library import resolve_incident

NAME = "bad-data-shard"
SEEDS = (1, 2)
# runbook name -> (recovered, components it may lose most in)
BOOKS = {
    "restart-from-latest": (True, {"progress"}),
    "rewind-without-skip": (True, {"progress"}),
}


def _scores(seed: int, backend: str, books: bool):
    incident = resolve_incident(NAME).incident
    par, floor = par_and_floor(incident, seed, backend)
    ref = score_against(incident, par, par, floor)
    nothing = score_against(incident, floor, par, floor)
    graded = {}
    for book in incident.runbooks if books else ():
        mine = measured_run(incident, seed, backend, list(book.actions), book.name)
        if book.discipline == "reference":
            mine = with_reference_discipline(mine, par)
        graded[book.name] = (mine, score_against(incident, mine, par, floor))
    return par, floor, ref, nothing, graded


@pytest.mark.parametrize("seed", SEEDS)
def test_reference_recovers_and_nothing_does_not_on_the_sim(seed):
    par, floor, _, nothing, _ = _scores(seed, "sim", books=False)
    assert par.recovered, f"seed {seed}: the reference did not recover"
    assert not floor.recovered, f"seed {seed}: doing nothing recovered"
    assert nothing.total < 40, f"seed {seed}: doing nothing scored {nothing.total}"


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_night_on_the_replica(seed):
    par, floor, ref, nothing, graded = _scores(seed, "inprocess", books=True)
    assert par.recovered, f"seed {seed}: the reference did not recover"
    assert not floor.recovered, f"seed {seed}: doing nothing recovered"
    assert nothing.total < 40, f"seed {seed}: doing nothing scored {nothing.total}"
    assert set(graded) == set(BOOKS)
    for book, (mine, score) in graded.items():
        recovered, loses_in = BOOKS[book]
        shown = f"seed {seed} {book}: {score.total} (nothing {nothing.total}, ref {ref.total})"
        assert mine.recovered == recovered, shown
        assert nothing.total < score.total < ref.total, shown
        lost = {c.name: ref.component(c.name).points - c.points for c in score.components}
        worst = max(lost.values())
        most = {c for c, v in lost.items() if abs(v - worst) < 0.01}
        assert worst > 0 and most & loses_in, f"{shown}: lost most in {most}, {lost}"


def test_the_pinned_seeds_are_the_incidents_own():
    assert tuple(resolve_incident(NAME).incident.seeds) == SEEDS
