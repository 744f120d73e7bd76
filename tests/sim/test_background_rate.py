"""A background arrival rate too small to be a number of seconds (it underflows to zero once
divided by an hour) means nothing arrives, not a ZeroDivisionError in the middle of a night.
Hypothesis found `arrivals_per_hour: 5e-324` in the extreme-bounds test."""

from __future__ import annotations

from tests.drillkit import build, drill


def test_a_rate_that_underflows_plays_a_night_with_no_arrivals():
    incident = build(background={"utilization": 0, "arrivals_per_hour": 5e-324})
    d = drill(incident)
    d.play_out()
    assert not [j for j in d.world.jobs.values() if not j.yours]
