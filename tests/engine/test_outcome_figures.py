"""The outcome's figures read off small real nights (built in code, played on the sim), each
against the rule the guide states, worked out here by hand rather than by the code under test:

- a job trained through the end when its first step after the last outage came at least 15
  minutes before the end, or a fifth of the night when the night is short;
- a dead job keeps the newest whole checkpoint on disk, not an older one;
- a corrupt checkpoint counts as caught only when a `ckpt verify` found it, not merely for
  being corrupt;
- the effective step is read off the undisturbed loss curve: a loss between two steps' losses
  lands between those steps, in proportion.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drill.engine.scoring import outcome
from drill.engine.scoring.par import step_clock
from drill.engine.scoring.progress import SMOOTH_STEPS, step_for_loss
from drill.sim.events import StepTaken
from tests.drillkit import build, drill, job_spec

MINUTE = 60.0


def _first_step_after(d, when: float) -> float:
    name = d.learner_job.name
    return min(
        e.time
        for e in d.world.timeline
        if isinstance(e, StepTaken) and e.subject == name and e.time >= when
    )


def _night_with_one_restart(length: str):
    """A job killed at 03:20 with no retries, restarted by hand five minutes later."""
    incident = build(
        length=length,
        jobs=[job_spec("train", yours=True, steps=5000)],
        faults=[{"id": "kill", "kind": "kill_rank", "at": "03:20", "target": {"job": "train"}}],
    )
    d = drill(incident)
    d.advance(25 * MINUTE)
    assert d.act("restart train --from latest").accepted
    d.play_out()
    return d


def test_trained_through_the_end_is_fifteen_minutes_on_a_long_night():
    d = _night_with_one_restart("3h")
    since = max(d.learner_job.outages[-1].end, _first_step_after(d, d.learner_job.current.start))
    window = 15 * MINUTE  # a 3 hour night: a fifth would be 36 minutes, 15 is less
    assert outcome._trained_through_the_end(d, since + window)
    assert not outcome._trained_through_the_end(d, since + window - 1.0)


def test_trained_through_the_end_is_a_fifth_of_a_short_night():
    d = _night_with_one_restart("1h")
    since = max(d.learner_job.outages[-1].end, _first_step_after(d, d.learner_job.current.start))
    window = 3600.0 / 5  # 12 minutes: less than 15
    assert outcome._trained_through_the_end(d, since + window)
    assert not outcome._trained_through_the_end(d, since + window - 1.0)


def _long_job(keep: int) -> dict:
    """A job that never finishes within the night, checkpointing every 20 steps."""
    return job_spec(
        "train", yours=True, steps=5000, checkpoint={"every": 20, "keep": keep, "write_time": "20s"}
    )


def test_a_dead_job_keeps_its_newest_whole_checkpoint():
    incident = build(
        jobs=[_long_job(keep=3)],
        faults=[{"id": "kill", "kind": "kill_rank", "at": "03:40", "target": {"job": "train"}}],
    )
    d = drill(incident)
    d.play_out()
    live = sorted(r.step for r in d.learner_job.checkpoints.live() if r.condition == "ok")
    assert len(live) >= 2, live
    measured = outcome.measure(d, 300.0, step_clock(incident, 1), plan=False)
    assert not measured.alive
    assert f"(step {live[-1]})" in measured.progress_how
    assert measured.effective_step == min(live[-1], measured.baseline_step)


def test_a_corrupt_checkpoint_is_caught_only_when_verify_found_it():
    incident = build(
        jobs=[_long_job(keep=10)],
        faults=[
            {"id": "rot", "kind": "corrupt_checkpoint", "at": "03:30"},
            {"id": "rot2", "kind": "corrupt_checkpoint", "at": "03:45"},
            {"id": "kill", "kind": "kill_rank", "at": "03:55", "target": {"job": "train"}},
        ],
    )
    d = drill(incident)
    d.advance(56 * MINUTE)
    bad = sorted(r.step for r in d.learner_job.checkpoints.records if r.condition != "ok")
    assert len(bad) == 2, bad
    assert d.act(f"ckpt verify train {bad[0]}").accepted
    assert outcome._caught_by_condition(d) == 1


def test_newest_good_on_disk_is_the_newest():
    incident = build()
    d = drill(incident)
    d.advance(60 * MINUTE)
    good = [r.step for r in d.learner_job.checkpoints.live() if r.condition == "ok"]
    assert len(good) >= 2
    assert outcome._newest_good_on_disk(d).step == max(good)


# -- the loss curve ------------------------------------------------------------------------------

_CURVES = st.lists(
    st.floats(min_value=0.01, max_value=5.0, allow_nan=False),
    min_size=SMOOTH_STEPS + 2,
    max_size=60,
).map(lambda xs: sorted(xs, reverse=True))


def _smoothed_curve(losses: list[float]) -> list[float]:
    """The smoothed loss at each step, by hand: the mean of the last ten steps' losses."""
    out = []
    for k in range(1, len(losses) + 1):
        window = losses[max(0, k - SMOOTH_STEPS) : k]
        out.append(sum(window) / len(window))
    return out


@given(_CURVES, st.data())
def test_a_loss_between_two_steps_lands_between_them_in_proportion(losses, data):
    curve = _smoothed_curve(losses)  # non-increasing, so it is its own envelope
    k = data.draw(st.integers(min_value=2, max_value=len(curve) - 1))
    above, below = curve[k - 2], curve[k - 1]  # steps k - 1 and k
    if not above > below:
        return
    share = data.draw(st.floats(min_value=0.0, max_value=1.0))
    loss = above - share * (above - below)
    if not below < loss <= above or any(curve[j] <= loss for j in range(k - 1)):
        return
    step = step_for_loss(losses, loss)
    assert abs(step - ((k - 1) + share)) < 1e-6, (step, k, share)


def test_a_loss_no_better_than_the_start_is_step_zero_and_nan_is_no_progress():
    losses = [3.0 - 0.01 * k for k in range(40)]
    assert step_for_loss(losses, 5.0) == 0.0
    assert step_for_loss(losses, float("nan")) == 0.0
    assert step_for_loss(losses, 0.0) == float(len(losses))
