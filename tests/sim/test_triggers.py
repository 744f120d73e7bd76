"""Faults whose clock starts at what happens in the night: another fault, a job's restart, its
next checkpoint write, a page. Each fires once, at the moment its trigger says, whatever the
seed; one whose trigger never happens never fires."""

from __future__ import annotations

import pytest

from drill.engine.headless import play
from drill.engine.timed import parse_text
from drill.sim.events import CheckpointEvent
from tests.drillkit import build, drill, job_spec

RETRYING = job_spec("train", yours=True, retry={"max_restarts": 2, "backoff": "30s"})
FIRST = {"id": "first", "kind": "kill_rank", "at": "10m", "target": {"job": "train", "rank": 3}}


def night(*faults: dict, job: dict = RETRYING, seed: int = 1, **fields):
    return drill(build(jobs=[job], faults=list(faults), **fields), seed=seed)


def follower(trigger: dict, at: str = "0s", **fields) -> dict:
    return {
        "id": "later",
        "kind": "kill_rank",
        "at": at,
        "trigger": trigger,
        "target": {"job": "train"},
        **fields,
    }


def test_on_fault_fires_its_delay_after_the_fault_it_follows():
    d = night(FIRST, follower({"event": "fault", "fault": "first"}, at="5m"))
    d.advance(3600)
    faults = d.world.faults
    assert faults.fired_at["later"] == faults.fired_at["first"] + 300


def test_on_restart_fires_as_the_job_starts_again():
    d = night(FIRST, follower({"event": "restart"}, at="45s"))
    d.advance(3600)
    second = d.learner_job.attempts[1]
    assert second.start is not None and second.start > 600
    assert d.world.faults.fired_at["later"] == pytest.approx(second.start + 45)
    # It struck during the start-up of the second attempt, so that one never trained.
    assert not second.training and second.ended


def test_on_checkpoint_strikes_before_the_write_and_the_write_is_lost():
    d = night(follower({"event": "checkpoint"}))
    d.advance(3600)
    # 60s start-up, 30s rendezvous, 20 steps of 10s: the first write starts at 290s.
    assert d.world.faults.fired_at["later"] == pytest.approx(290)
    first = d.learner_job.attempts[0]
    assert first.ended and first.end == pytest.approx(295), "the launcher noticed in 5s"
    texts = [e.text for e in d.world.timeline if isinstance(e, CheckpointEvent)]
    assert "train checkpoint step 20 not written: the job was stopped during the write" in texts


def test_on_page_fires_after_the_first_page_with_that_text():
    job = job_spec("train", yours=True)  # no retries: the failure pages as critical
    down = follower({"event": "page", "text": "SIGKILL"}, at="2m", kind="node_down")
    down["target"] = {"node": "gpu-b-1"}  # the failed job runs nowhere now
    d = night(FIRST, down, job=job)
    d.advance(3600)
    pages = [a for a in d.world.pager.alerts if "SIGKILL" in a.text]
    assert pages, "the failure page names the signal"
    assert d.world.faults.fired_at["later"] == pytest.approx(_ceil(pages[0].time + 120))


def _ceil(value: float) -> float:
    import math

    return float(math.ceil(value))


def test_a_trigger_armed_by_a_fault_ignores_what_happened_before_it():
    second = {**FIRST, "id": "second", "at": "40m"}
    d = night(FIRST, second, follower({"event": "restart", "fault": "second"}))
    d.advance(7200)
    starts = [a.start for a in d.learner_job.attempts if a.start is not None]
    assert len(starts) >= 3, "two failures, two restarts"
    fired = d.world.faults.fired_at["later"]
    assert fired > d.world.faults.fired_at["second"]
    assert fired == pytest.approx(starts[2]), "the restart after the second fault, not the first"


def test_a_trigger_that_never_happens_leaves_its_fault_unfired():
    d = night(follower({"event": "page", "text": "this page never comes"}))
    d.advance(7200)
    assert "later" not in d.world.faults.fired
    assert "later" not in d.world.faults.times


def test_a_reference_line_timed_from_a_triggered_fault_waits_for_it():
    d = night(FIRST, follower({"event": "restart"}, at="45s"))
    lines = "{fault.later.time}+1m status train\n+0s health {fault.later.node}"
    actions = parse_text(lines, "ref", {"first", "later"})
    play(d, actions, finish_night=False)
    fired = d.world.faults.fired_at["later"]
    status, health = d.actions
    assert status.time == pytest.approx(fired + 60)
    assert health.accepted and d.world.faults.chosen["later"][0].node in health.text


def test_a_line_timed_from_a_fault_that_never_fires_does_not_play():
    d = night(follower({"event": "page", "text": "never"}))
    skipped = play(d, parse_text("{fault.later.time}+1m status train", "ref", {"later"}))
    assert [s.why for s in skipped] == ["the night was over"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_adding_a_trigger_leaves_the_other_faults_times_alone(seed):
    jittery = {**FIRST, "id": "jittery", "at": "20m", "jitter": "10m"}
    plain = night(FIRST, jittery, seed=seed)
    with_trigger = night(
        FIRST, jittery, follower({"event": "fault", "fault": "first"}, jitter="3m"), seed=seed
    )
    assert plain.world.faults.times["jittery"] == with_trigger.world.faults.times["jittery"]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_triggered_fault_fires_in_whole_seconds_within_its_jitter(seed):
    d = night(
        FIRST, follower({"event": "fault", "fault": "first"}, at="1m", jitter="2m"), seed=seed
    )
    d.advance(3600)
    gap = d.world.faults.fired_at["later"] - d.world.faults.fired_at["first"]
    assert 60 <= gap <= 181 and d.world.faults.fired_at["later"] == int(
        d.world.faults.fired_at["later"]
    )
