"""Time rules: actions cost their stated time while the world moves on; timed actions start at
their stated time or when the previous one ends; the night never runs past its end; a rejected
action costs nothing; how `advance` is chunked never changes what happens."""

from __future__ import annotations

import random

import pytest

from drill.engine.drill import Drill
from drill.engine.headless import play
from drill.engine.timed import parse_text
from drill.sim.events import NodeStateChanged, StepTaken
from tests.drillkit import build, job_spec

# Valid lines against the quiet night (learner job `train` on island a), with the seconds each
# costs, written out here: tests/engine/test_verbs.py has a row for every verb.
COSTED = [
    ("status", 15),
    ("status train", 15),
    ("queue", 15),
    ("nodes", 15),
    ("logs train", 30),
    ("logs train --rank 3", 30),
    ("health gpu-a-1", 60),
    ("ckpt list train", 15),
    ("cordon gpu-b-1", 15),
    ("drain gpu-b-2", 15),
    ("reboot gpu-b-3", 30),
    ("swap gpu-b-4", 60),
    ("set train ckpt-every 25", 10),
    ("priority train high", 10),
    ("restart train --from scratch", 30),
    ("requeue train", 15),
    ("note the job looks fine", 30),
    ("help", 0),
    ("help health", 0),
]


def steps_between(d: Drill, start: float, end: float) -> int:
    return sum(1 for e in d.world.timeline if isinstance(e, StepTaken) and start < e.time <= end)


@pytest.mark.parametrize(("line", "seconds"), COSTED, ids=[line for line, _ in COSTED])
def test_each_action_costs_its_stated_time(quiet_drill, line, seconds):
    quiet_drill.advance(300)
    result = quiet_drill.act(line)
    assert result.accepted, result.output
    assert result.time == 300.0
    assert result.end - result.time == seconds
    assert quiet_drill.now == result.end


def test_the_world_moves_on_while_the_operator_looks(quiet_drill):
    quiet_drill.advance(335)  # steps finish at 340, 350, ... (no checkpoint write until 510)
    step = quiet_drill.learner_job.step
    result = quiet_drill.act("health gpu-a-1")  # 60 s of looking: six 10 s steps go by
    assert steps_between(quiet_drill, result.time, result.end) == 6
    assert quiet_drill.learner_job.step == step + 6


def test_an_act_takes_effect_when_it_starts_not_when_it_ends(quiet_drill):
    quiet_drill.advance(100)
    result = quiet_drill.act("cordon gpu-b-1")
    [event] = [e for e in quiet_drill.world.timeline if isinstance(e, NodeStateChanged)]
    assert event.time == result.time == 100.0


def test_wait_advances_exactly_its_duration():
    d = long_night()
    d.advance(42)
    result = d.act("wait 10m")
    assert result.accepted
    assert d.now == 642.0
    assert result.end - result.time == 600.0
    assert d.act("wait 1h30m").end == 642.0 + 5400.0


def test_the_night_ends_when_the_learners_job_completes_however_time_is_sliced(quiet_drill):
    ended = quiet_drill.act("wait 2h").end
    assert quiet_drill.learner_job.state == "completed"
    assert ended == quiet_drill.end_time < 7200


def long_night() -> Drill:
    """The learner's job outlasts the night, so only the clock can end it."""
    return Drill(build(jobs=[job_spec("train", yours=True, steps=5000)]), 1)


def test_advance_never_goes_past_the_night_end():
    d = long_night()
    end = d.night_end
    d.advance(end - 5)
    result = d.act("health gpu-a-1")  # costs 60 s, only 5 s of night are left
    assert result.accepted
    assert result.end == end == d.now
    d.advance(10**6)
    assert d.now == end
    late = d.act("status")
    assert not late.accepted and "night is over" in late.output
    assert d.now == end


def test_wait_longer_than_the_night_stops_at_the_end():
    d = long_night()
    assert d.act("wait 12h").accepted
    assert d.now == d.night_end


def test_the_night_ends_early_once_the_learner_job_completes(quiet_drill):
    quiet_drill.advance(10**6)
    assert quiet_drill.learner_job.state == "completed"
    assert quiet_drill.over
    assert quiet_drill.end_time == quiet_drill.learner_job.attempts[-1].end < quiet_drill.night_end


def test_advance_rejects_negative_time(quiet_drill):
    with pytest.raises(ValueError):
        quiet_drill.advance(-1)


def test_advance_returns_only_when_the_world_has_caught_up(dead_rank_drill):
    for chunk in (1.0, 17.5, 300.0, 1234.0):
        dead_rank_drill.advance(chunk)
        assert dead_rank_drill.world.env.peek() >= dead_rank_drill.now
        assert all(e.time <= dead_rank_drill.now for e in dead_rank_drill.world.timeline)


REJECTED = [
    "statsu",
    "health gpu-z-1",
    "status nope",
    "logs train --rank 99",
    "wait ten",
    "wait 0s",
    "restart train --from 35",
    "restart train --world 12",
    "hold train",
    "release train",
    "ack P7",
    "uncordon gpu-a-1",
    "set train ckpt-every 0",
    "sta\ttus",
    "note " + "x" * 600,
    "",
]


@pytest.mark.parametrize("line", REJECTED)
def test_rejected_action_costs_no_time_and_changes_nothing(quiet_drill, line):
    quiet_drill.advance(450)  # checkpoints at steps 20 and 40 exist by now
    before = quiet_drill.snapshot()
    policy = dict(vars(quiet_drill.world.jobs["train"].policy))
    exclude = set(quiet_drill.learner_job.exclude)
    result = quiet_drill.act(line)
    assert not result.accepted
    assert result.time == result.end == 450.0
    assert quiet_drill.now == 450.0
    assert quiet_drill.snapshot() == before
    assert vars(quiet_drill.world.jobs["train"].policy) == policy
    assert quiet_drill.learner_job.exclude == exclude


def timed(lines: list[str]):
    return parse_text("\n".join(lines), "t.actions", set())


def test_timed_action_whose_time_has_passed_starts_when_the_previous_ends():
    d = Drill(build(), 1)
    play(d, timed(["03:10 health gpu-a-1", "03:10:30 status", "03:05 queue"]))
    starts = [(a.text, a.time, a.end) for a in d.actions]
    assert starts == [
        ("health gpu-a-1", 600.0, 660.0),
        ("status", 660.0, 675.0),  # stated 03:10:30, but the operator was busy until 03:11
        ("queue", 675.0, 690.0),  # stated 03:05, already past
    ]


def test_relative_times_count_from_when_the_previous_action_ended():
    d = Drill(build(), 1)
    play(d, timed(["+1m health gpu-a-1", "+2m status", "+0s queue", "03:30 nodes"]))
    assert [(a.time, a.end) for a in d.actions] == [
        (60.0, 120.0),
        (240.0, 255.0),
        (255.0, 270.0),
        (1800.0, 1815.0),
    ]


def test_actions_after_the_night_are_not_played():
    d = Drill(build(length="30m"), 1)
    skipped = play(d, timed(["03:10 status", "03:45 status"]))
    assert [a.text for a in d.actions] == ["status"]
    assert [(s.line, s.why) for s in skipped] == [(2, "the night was over")]
    assert d.now == d.night_end


def test_lines_after_a_line_past_the_night_end_are_not_played_either():
    d = Drill(build(length="30m"), 1)
    skipped = play(d, timed(["03:10 status", "03:45 status", "+1m queue"]))
    assert [a.text for a in d.actions] == ["status"]
    assert [s.line for s in skipped] == [2, 3]


def timeline_of(d: Drill):
    return list(d.world.timeline)  # frozen events: equal when every field is


@pytest.mark.parametrize("seed", [1, 2])
def test_chunking_never_changes_the_night(dead_rank, seed):
    one = Drill(dead_rank, seed)
    one.advance(10**6)
    small = Drill(dead_rank, seed)
    while small.now < small.night_end:
        small.advance(7.0)
    odd = Drill(dead_rank, seed)
    rng = random.Random(seed)
    while odd.now < odd.night_end:
        odd.advance(rng.choice([0.0, 0.5, 1.0, 29.999, 30.0, 61.0, 600.0]))
    expected = timeline_of(one)
    assert len(expected) > 100
    assert timeline_of(small) == expected
    assert timeline_of(odd) == expected
    assert small.snapshot() == one.snapshot() == odd.snapshot()


def test_chunking_with_actions_at_the_same_times_gives_the_same_night(dead_rank):
    lines = ["03:31 health gpu-a-2", "03:40 status llm-pretrain", "+1m queue"]

    def night(chunk: float) -> Drill:
        d = Drill(dead_rank, 1)
        for line in lines:
            when, _, text = line.partition(" ")
            target = 660.0 + d.now if when.startswith("+") else d.world.clock.from_clock(when)
            while d.now < target:
                d.advance(min(chunk, target - d.now))
            d.act(text)
        while d.now < d.night_end:
            d.advance(chunk)
        return d

    assert timeline_of(night(1.0)) == timeline_of(night(900.0))
