"""The pre-shift plan: `set` actions stamped with the night's start, inside the declared ranges,
free of night time, and seen by the night, the save and the replay alike."""

from __future__ import annotations

from drill.engine.drill import Drill
from drill.engine.headless import play
from drill.engine.timed import parse_text
from tests.drillkit import build, job_spec

PLAN = {
    "job": "train",
    "choices": {
        "ckpt-every": {"min": 25, "max": 200},
        "ckpt-keep": {"min": 1, "max": 5},
        "ckpt-on-sigterm": {"allowed": ["yes", "no"]},
    },
}


def planned() -> Drill:
    return Drill(build(jobs=[job_spec("train", yours=True)], plan=PLAN), 1)


def test_settings_inside_the_range_cost_no_night_time():
    d = planned()
    for line in (
        "set train ckpt-every 100",
        "set train ckpt-keep 2",
        "set train ckpt-on-sigterm yes",
    ):
        result = d.act(line)
        assert result.accepted and result.time == result.end == 0.0
    policy = d.world.jobs["train"].policy
    assert (policy.every, policy.keep, policy.on_sigterm) == (100, 2, True)


def test_settings_outside_the_range_are_rejected_with_the_range():
    d = planned()
    result = d.act("set train ckpt-every 10")
    assert not result.accepted and "25 to 200" in result.output
    result = d.act("set train ckpt-on-sigterm maybe")
    assert not result.accepted and "yes or no" in result.output
    result = d.act("set train verify-on-resume yes")
    assert not result.accepted and "ckpt-every" in result.output  # names what can be chosen
    assert d.world.jobs["train"].policy.every == 20  # nothing changed


def test_once_the_night_starts_a_set_costs_time():
    d = planned()
    d.act("status")
    result = d.act("set train ckpt-every 50")
    assert result.accepted and result.end > result.time


def test_the_plan_changes_the_night():
    def checkpoints(lines: list[str]) -> list[int]:
        d = planned()
        play(d, parse_text("\n".join(lines), "plan", set()))
        return [r.step for r in d.world.jobs["train"].checkpoints.live()]

    assert checkpoints([]) == [140, 160, 180]  # every 20, keep 3; the last step writes none
    assert checkpoints(["03:00 set train ckpt-every 50", "03:00 set train ckpt-keep 1"]) == [150]
