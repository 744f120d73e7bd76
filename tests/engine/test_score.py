"""The score's arithmetic on hand-built outcomes. Every expected number here is worked out by
hand from the rules in the authoring guide ("How a night is scored"), not read from the code."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from drill.engine.outcome import Outcome
from drill.engine.score import build_score

REPO = __import__("pathlib").Path(__file__).resolve().parents[2]


def near(value: float):
    """Points are rounded to hundredths."""
    return pytest.approx(value, abs=0.006)


# The weights the guide states, written out again here on purpose.
WEIGHTS = {
    "progress": 25.0,
    "recovered": 15.0,
    "time_to_recovery": 15.0,
    "integrity": 10.0,
    "collateral": 10.0,
    "plan": 10.0,
    "discipline": 15.0,
}


def outcome(**changes) -> Outcome:
    base = Outcome(
        end_time=4000.0,
        completed=True,
        alive=True,
        recovered=True,
        final_step=300,
        target_steps=300,
        baseline_step=500,
        effective_step=450,
        pace=12.0,
        outages=[[1200.0, 1800.0]],
        match="bitexact",
        others={
            "vision-001": {
                "team": "vision",
                "gpus": 4,
                "killed": 0.0,
                "waited": 0.0,
                "running": True,
            }
        },
        changes=3,
        changes_after_look=3,
        pages_due=2,
        pages_acked_in_time=2,
        notes=1,
        discipline=1.0,
        plan_fallback=100.0,
        plan_nights=[100, 100],
    )
    return replace(base, **changes)


PAR = outcome()
FLOOR = outcome(
    completed=False,
    alive=False,
    recovered=False,
    final_step=110,
    effective_step=100,
    outages=[[1200.0, None]],
    match=None,
    changes=0,
    changes_after_look=0,
    pages_acked_in_time=0,
    notes=0,
    discipline=0.5,
    plan_fallback=0.0,
)


def score(mine: Outcome, par: Outcome = PAR, floor: Outcome = FLOOR, **weights):
    return build_score(mine, par, floor, weights=weights, night_length=7200, job_gpus=16, clock=str)


def points(result) -> dict[str, float]:
    return {c.name: c.points for c in result.components}


def test_par_scores_100_and_nobody_scores_only_what_costs_nothing():
    assert score(PAR).total == 100.0 and score(PAR).grade == "A"
    # Nobody: no progress, no recovery, no time back, a dead job, the defaults' plan; only
    # "harmed nobody" (10) is left, out of 100.
    floor = score(FLOOR)
    assert points(floor) == {
        "progress": 0.0,
        "recovered": 0.0,
        "time_to_recovery": 0.0,
        "integrity": 0.0,
        "collateral": 10.0,
        "plan": 0.0,
        "discipline": 0.0,
    }
    assert floor.total == 10.0 and floor.grade == "F"


def test_points_fall_linearly_between_floor_and_par():
    # 275 steps behind: halfway between par (50) and floor (400 behind) is 225 behind.
    half = score(outcome(effective_step=275))
    assert points(half)["progress"] == near(25.0 * (400 - 225) / (400 - 50))
    # Half an hour out of action more than par (600 s): floor is out 2800 s.
    slow = score(outcome(outages=[[1200.0, 3000.0]]))
    assert points(slow)["time_to_recovery"] == near(15.0 * (2800 - 1800) / (2800 - 600))


def test_two_outages_are_each_measured_from_their_own_stop():
    two = outcome(outages=[[1200.0, 1500.0], [2000.0, 2300.0]])
    assert two.downtime == 600.0
    assert points(score(two))["time_to_recovery"] == 15.0


def test_a_dead_job_has_no_integrity_and_a_corrupt_load_costs_half():
    dead = score(outcome(alive=False, completed=False, recovered=False))
    assert points(dead)["integrity"] == 0.0
    poisoned = score(outcome(corrupt_loaded=1))
    assert points(poisoned)["integrity"] == near(5.0)
    close = score(outcome(match="close"))
    assert points(close)["integrity"] == near(8.0)


def test_recovered_scales_with_progress_kept():
    # Par keeps 450/500; a recovery that kept 225/500 is (0.45 - 0) / (0.9 - 0) of the way.
    late = score(outcome(effective_step=225))
    assert points(late)["recovered"] == near(15.0 * 0.45 / 0.9)
    not_yet = score(outcome(recovered=False, completed=False))
    assert points(not_yet)["recovered"] == 0.0


def test_harm_to_others_is_proportional_and_has_no_floor():
    def lost(gpu_hours: float, blamed: float = 0.0) -> Outcome:
        figures = {
            "team": "vision",
            "gpus": 4,
            "lost": gpu_hours * 3600,
            "blamed": blamed * 3600,
            "blame": ["you did it"] if blamed else [],
        }
        return outcome(others={"vision-001": figures})

    # The scale is ten minutes of the learner's 16 GPUs: 2.67 GPU hours cost all 10 points.
    assert points(score(lost(1.0)))["collateral"] == near(10.0 * (1 - 1.0 / (16 / 6)))
    assert points(score(lost(16 / 6)))["collateral"] == near(0.0)
    assert points(score(lost(8.0)))["collateral"] == near(10.0 * (1 - 8.0 / (16 / 6)))
    why = score(lost(8.0)).component("collateral").why
    assert "vision-001 of team vision lost 8.0 GPU hours" in why


def test_harm_the_incident_did_anyway_is_not_charged_unless_you_caused_it():
    figures = {"team": "vision", "gpus": 4, "lost": 7200.0, "blamed": 0.0, "blame": []}
    both = {"vision-001": figures}
    result = score(outcome(others=both), floor=replace(FLOOR, others=both))
    assert points(result)["collateral"] == 10.0
    yours = {"vision-001": {**figures, "blamed": 7200.0, "blame": ["you put it back"]}}
    result = score(outcome(others=yours), floor=replace(FLOOR, others=both))
    assert points(result)["collateral"] == near(10.0 * (1 - 2.0 / (16 / 6)))
    assert "you put it back" in result.component("collateral").why


def test_sparing_one_team_does_not_pay_for_harming_another():
    spared = {"team": "rl", "gpus": 8, "lost": 0.0, "blamed": 0.0, "blame": []}
    harmed = {"team": "vision", "gpus": 4, "lost": 3600.0, "blamed": 0.0, "blame": []}
    before = {"rl-001": {**spared, "lost": 7200.0}, "vision-001": {**harmed, "lost": 0.0}}
    mine = outcome(others={"rl-001": spared, "vision-001": harmed})
    result = score(mine, floor=replace(FLOOR, others=before))
    assert points(result)["collateral"] == near(10.0 * (1 - 1.0 / (16 / 6)))


def test_hints_cost_a_bounded_amount():
    def with_hints(n: int) -> float:
        value = (1 + 1 + 1 + (1 - 0.25 * min(n, 3))) / 4
        return points(score(outcome(hints_used=n, discipline=value)))["discipline"]

    assert with_hints(1) == near(15.0 * (0.9375 - 0.5) / 0.5)
    assert with_hints(3) == with_hints(7)
    assert 15.0 - with_hints(3) == near(15.0 * 0.1875 / 0.5)


def test_without_a_plan_the_plan_is_not_scored():
    bare = [replace(o, plan_fallback=None, plan_nights=[]) for o in (PAR, FLOOR)]
    result = score(bare[0], bare[0], bare[1])
    assert result.component("plan").weight == 0
    assert result.total == 100.0


def test_a_plan_with_nothing_to_fall_back_on_loses_the_plan():
    assert points(score(outcome(plan_fallback=50.0)))["plan"] == near(5.0)
    # When par and floor agree, a third of the steps below par costs it all.
    same = replace(FLOOR, plan_fallback=100.0)
    assert points(score(outcome(plan_fallback=0.0), floor=same))["plan"] == 0.0


def test_incident_weights_override_the_defaults():
    result = score(PAR, collateral=40.0)
    assert result.component("collateral").weight == 40.0
    for name, weight in WEIGHTS.items():
        if name != "collateral":
            assert result.component(name).weight == weight


def test_every_component_says_why_in_plain_english():
    for component in score(outcome(effective_step=300)).components:
        assert component.why and "\u2014" not in component.why


@pytest.mark.slow
def test_shipped_incidents_pass_drill_test():
    done = subprocess.run(
        [sys.executable, "-m", "drill", "test", "incidents/"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAIL" not in done.stdout
