"""Discipline's page and hint rules read off real nights, against the guide's words rather than
the code's formula: a page acknowledged within the paging target of its own arrival is in time,
a second later is not; each of the first three hints costs the same, and a fourth costs nothing
more."""

from __future__ import annotations

from drill.engine.scoring.discipline import measure_discipline
from drill.incident.library import resolve_incident
from tests.drillkit import build, drill

PAGING = 300.0  # five minutes


def _first_page(d) -> float:
    pages = [a for a in d.world.pager.alerts if not a.noise and a.severity != "info"]
    return min(a.time for a in pages)


def _dead_rank_until_first_page():
    incident = resolve_incident("dead-rank").incident
    d = drill(incident)
    while not [a for a in d.world.pager.alerts if not a.noise and a.severity != "info"]:
        d.advance(5)
    return d, _first_page(d)


def _acked_in_time(d, page_time: float, ack_after: float) -> int:
    d.advance_to(page_time + ack_after)
    assert d.act("ack all").accepted
    return measure_discipline(d, PAGING, d.night_end).pages_acked_in_time


def test_an_ack_at_the_paging_target_is_in_time_and_a_second_later_is_not():
    # The pager's own clock: step to the page's arrival, then wait exactly the target.
    d, page = _dead_rank_until_first_page()
    on_time = _acked_in_time(d, page, PAGING)
    d2, page2 = _dead_rank_until_first_page()
    late = _acked_in_time(d2, page2, PAGING + 1.0)
    assert on_time >= 1
    assert late == on_time - 1


def _with_hints(count: int) -> float:
    incident = build(
        hints=[{"after": "0s", "text": f"hint number {i}"} for i in range(6)],
    )
    d = drill(incident)
    d.advance(60)
    for _ in range(count):
        assert d.act("hint").accepted
    return measure_discipline(d, PAGING, d.night_end).value


def test_each_of_the_first_three_hints_costs_the_same_and_a_fourth_nothing():
    values = [_with_hints(n) for n in range(5)]
    steps = [values[i] - values[i + 1] for i in range(4)]
    # The value is kept to four places, so equal costs agree to within that rounding.
    assert steps[0] > 0.01
    assert abs(steps[0] - steps[1]) < 2e-4 and abs(steps[1] - steps[2]) < 2e-4, values
    assert steps[3] == 0, values
    # The guide: at most three thirty-seconds of the discipline value.
    assert abs((values[0] - values[3]) - 3 / 32) < 2e-4
