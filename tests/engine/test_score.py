"""The score's arithmetic on hand-built outcomes. Every expected number here is worked out by
hand from the rules in the authoring guide ("How a night is scored"), not read from the code."""

from __future__ import annotations

from dataclasses import replace

import pytest

from drill.engine.scoring.outcome import Outcome
from drill.engine.scoring.score import build_score
from tests.clikit import run_drill

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
    # Par had the same two: the same downtime earns the full points.
    assert points(score(two, par=two))["time_to_recovery"] == 15.0
    # Against par's one outage the downtime is the same, but the needless second outage costs
    # a fifth of the weight, however short.
    assert points(score(two))["time_to_recovery"] == near(12.0)


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


# The nights whose lesson is in the weights are tested on the replica; the rest on the sim,
# where their lessons (placement, storage, pages, plans) are decided.
WEIGHTS_NIGHTS = (
    "incidents/bad-data-shard.yaml",
    "incidents/corrupt-checkpoint.yaml",
    "incidents/silent-gpu-corruption.yaml",
)


SHIPPED = sorted(p.name for p in (REPO / "incidents").glob("*.yaml"))


def _drill_test(*args: str) -> None:
    # In this process (tests/clikit.py), one incident a test, so the nights spread over the
    # suite's workers and share the run's par and floor cache.
    done = run_drill("test", *args, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAIL" not in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_incidents_pass_drill_test_on_the_sim(name):
    _drill_test(f"incidents/{name}", "--backend", "sim")


@pytest.mark.slow
@pytest.mark.parametrize("path", WEIGHTS_NIGHTS)
def test_the_nights_whose_lesson_is_in_the_weights_pass_drill_test_on_the_replica(path):
    _drill_test(path)


# -- when par is no better than doing nothing, and the uncapped comparison ----------------------


def test_when_par_is_no_better_than_nobody_a_figure_below_par_loses_by_its_own_scale():
    # Par and floor both 50 steps behind: the scale is a tenth of the job's 300 steps (30), so 15
    # steps more behind costs half the progress points.
    even = replace(FLOOR, effective_step=450, recovered=True, completed=True, alive=True)
    assert points(score(outcome(effective_step=435), floor=even))["progress"] == near(12.5)
    assert points(score(outcome(effective_step=420), floor=even))["progress"] == 0.0
    # A short job's scale is never under ten steps: 5 of its 50 steps behind par is half.
    short = {"target_steps": 50, "baseline_step": 50, "effective_step": 45}
    par, flat = outcome(**short), replace(even, **short)
    assert points(score(outcome(**{**short, "effective_step": 40}), par, flat))["progress"] == near(
        12.5
    )
    # Better than par is full points, never more, in the score that is shown.
    assert points(score(outcome(effective_step=480), floor=even))["progress"] == 25.0


def test_when_par_is_no_better_than_nobody_time_and_recovery_have_their_own_scales():
    even = replace(PAR, discipline=0.5)  # the same outages and progress as par
    # Half an hour more out of action than par costs all of time to recovery: 15 minutes, half.
    late = outcome(outages=[[1200.0, 2700.0]])
    assert points(score(late, floor=even))["time_to_recovery"] == near(7.5)
    # Half the undisturbed run's progress below par costs all of recovered: a quarter, half.
    kept_less = outcome(effective_step=325)
    assert points(score(kept_less, floor=even))["recovered"] == near(7.5)


def uncapped(mine: Outcome, par: Outcome = PAR, floor: Outcome = FLOOR):
    return build_score(
        mine, par, floor, weights={}, night_length=7200, job_gpus=16, clock=str, capped=False
    )


def test_the_uncapped_comparison_counts_up_to_a_fifth_past_par():
    # 15 steps behind where par is 50 and floor 400: (400 - 15) / (400 - 50) = 1.1 of par.
    ahead = outcome(effective_step=485)
    assert points(uncapped(ahead))["progress"] == near(25.0 * 1.1)
    assert points(score(ahead))["progress"] == 25.0
    # Never more than a fifth past, however far ahead: par 100 behind, none behind is 400 / 300.
    modest = outcome(effective_step=400)
    assert points(uncapped(outcome(effective_step=500), par=modest))["progress"] == near(30.0)
    # When par equals floor, the same scale that costs below par pays above it: 3 steps of 30.
    even = replace(FLOOR, effective_step=450, recovered=True, completed=True, alive=True)
    assert points(uncapped(outcome(effective_step=453), floor=even))["progress"] == near(27.5)
    assert uncapped(ahead).total > 100.0 and score(ahead).total == 100.0


def test_harm_below_the_reference_is_never_clipped_at_zero():
    figures = {"team": "vision", "gpus": 4, "lost": 8 * 3600.0, "blamed": 0.0, "blame": []}
    harmed = outcome(others={"vision-001": figures})
    assert points(score(harmed))["collateral"] < 0
    assert points(uncapped(harmed))["collateral"] == points(score(harmed))["collateral"]


def test_the_figures_a_save_holds_keep_their_names():
    # A save written today must verify tomorrow: the figures' shapes are part of the format.
    found = {c["name"]: c for c in score(outcome(effective_step=275)).to_json()["components"]}
    assert found["progress"]["value"] == {"steps_behind": 225}
    assert found["progress"]["par"] == {"steps_behind": 50}
    assert found["recovered"]["value"] == 0.55 and found["recovered"]["floor"] == 0.0
    thirds = score(outcome(baseline_step=300, effective_step=200)).to_json()["components"]
    assert thirds[1]["name"] == "recovered" and thirds[1]["value"] == 0.667  # three decimals
    assert found["time_to_recovery"]["value"] == 600.0
    assert found["integrity"]["value"] == {
        "weights": "bitexact",
        "corrupt_loaded": 0,
        "corrupt_caught": 0,
    }
    assert found["plan"]["value"] == 100.0 and found["collateral"]["value"] == 0.0
    assert set(found["discipline"]) == {
        *("name", "value", "par", "floor", "points", "weight", "why", "basis")
    }
