"""The simulator against checkpoint theory: waste C/T + (T/2 + R)/M, least near Young's interval.

Slow (about a minute of CPU): many seeded nights at seven cadences, and the same again with a
simulator whose restarts skip the checkpoint read, which the check must catch.
"""

from __future__ import annotations

import pytest

from drill.season import measured, theory
from drill.sim.world import World

SEEDS = list(theory.SEEDS)
BROKEN_SEEDS = list(range(1, 101))


def test_the_rig_prices_what_the_issue_asks():
    costs = theory.costs(theory.rig())
    assert costs.checkpoint == pytest.approx(theory.WRITE_SECONDS, rel=1e-4)
    # Heartbeat 30s, backoff 0s, half a 30s scheduling pass, start-up 60s, rendezvous 30s, read.
    assert costs.restart == pytest.approx(30 + 0 + 15 + 60 + 30 + theory.READ_SECONDS, rel=1e-4)
    assert costs.young == pytest.approx((2 * costs.checkpoint * costs.mtbf) ** 0.5)
    factors = theory.FACTORS
    assert len(factors) >= 7 and min(factors) == 0.25 and max(factors) == 4.0
    cadences = [costs.every_steps(f) for f in factors]
    assert cadences == sorted(set(cadences)), "each factor is its own cadence"


def test_the_fit_finds_a_known_minimum():
    costs = theory.costs(theory.rig())
    points = [
        theory.Measurement(f, 1, f * costs.young, costs.expected_waste(f * costs.young), 1e-3,
                           0.0, 1, 1)
        for f in theory.FACTORS
    ]  # fmt: skip
    assert theory.fitted_minimum(points) == pytest.approx(costs.young, rel=1e-6)


@pytest.mark.slow
def test_the_simulator_follows_checkpoint_theory():
    incident = theory.rig()
    costs = theory.costs(incident)
    points = theory.sweep(incident, SEEDS)
    assert all(p.failures >= 50 for p in points), [p.failures for p in points]
    assert theory.disagreements(points, costs.young) == []
    # The figures the runbook and the debrief quote are these measurements.
    assert len(SEEDS) == measured.NIGHTS
    assert tuple(
        (p.factor, p.every, p.interval, round(p.waste, 5), round(p.se, 5), round(p.expected, 5),
         p.failures)
        for p in points
    ) == measured.ROWS  # fmt: skip
    assert round(theory.fitted_minimum(points) / costs.young, 3) == measured.LEAST_AT


@pytest.mark.slow
def test_restarts_that_skip_the_checkpoint_read_fail_the_check(monkeypatch):
    monkeypatch.setattr(World, "checkpoint_read_time", lambda self, job: 0.0)
    incident = theory.rig()
    costs = theory.costs(incident)
    points = theory.sweep(incident, BROKEN_SEEDS)
    problems = theory.disagreements(points, costs.young)
    assert any("below the curve" in p for p in problems), problems
