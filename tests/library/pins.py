"""What a pinned night must show at a seed, shared by the test_nights_* files: the reference
recovers, doing nothing does not (unless the night says it does) and scores under 40, and each
graded runbook lands strictly between them (or under its `score_max`) and loses the most in a
component its pin names.

Written out here rather than read from `drill test`'s own checks, so a change to either one is
caught by the other.
"""

from __future__ import annotations

from drill.commands.testing import with_reference_discipline
from drill.engine.scoring.par import measured_run, par_and_floor, score_against
from drill.incident.library import resolve_incident
from drill.saves_dir import cache_dir

# runbook name -> (recovered, the components it may lose the most in)
Books = dict[str, tuple[bool, set[str]]]


def check_night(
    name: str,
    seed: int,
    backend: str,
    books: Books,
    *,
    nothing_recovers: bool = False,
    graded: bool = True,
) -> None:
    """Play the night's reference, doing nothing and (with `graded`) every graded runbook."""
    incident = resolve_incident(name).incident
    par, floor = par_and_floor(incident, seed, backend, cache_dir=cache_dir())
    ref = score_against(incident, par, par, floor)
    nothing = score_against(incident, floor, par, floor)
    where = f"{name} seed {seed} {backend}"
    assert par.recovered, f"{where}: the reference did not recover"
    assert floor.recovered == nothing_recovers, (
        f"{where}: doing nothing, recovered={floor.recovered}"
    )
    assert nothing.total < 40, f"{where}: doing nothing scored {nothing.total}"
    if not graded:
        return
    names = sorted(b.name for b in incident.runbooks)
    assert names == sorted(books), f"{name}: runbooks {names}, pinned {sorted(books)}"
    for book in incident.runbooks:
        mine = measured_run(
            incident, seed, backend, list(book.actions), book.name, cache_dir=cache_dir()
        )
        if book.discipline == "reference":
            mine = with_reference_discipline(mine, par)
        score = score_against(incident, mine, par, floor)
        recovered, loses_in = books[book.name]
        shown = f"{where} {book.name}: {score.total} (nothing {nothing.total}, ref {ref.total})"
        assert mine.recovered == recovered, shown
        if book.expect.score_max is None:
            assert nothing.total < score.total < ref.total, shown
        else:
            assert score.total <= book.expect.score_max and score.total < ref.total, shown
        lost = {c.name: ref.component(c.name).points - c.points for c in score.components}
        worst = max(lost.values())
        most = {c for c, v in lost.items() if abs(v - worst) < 0.01}
        assert worst > 0 and most & loses_in, f"{shown}: lost most in {most}, {lost}"


def assert_seeds_are_the_incidents_own(seeds_by_name: dict[str, tuple[int, ...]]) -> None:
    for name, seeds in seeds_by_name.items():
        assert tuple(resolve_incident(name).incident.seeds) == seeds, name
