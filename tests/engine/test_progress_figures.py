"""The effective step's arithmetic (drill/engine/scoring/progress.py), each piece against what its
docstring promises, worked out here by hand or as a property, not by calling the code twice:

- the smoothed loss is the mean of the last ten steps' losses that exist;
- a step trained twice keeps its later loss, and a rewind drops the steps after it;
- the envelope is non-increasing, keeps the curve's length and its total, and leaves a curve
  that already never rises as it is;
- a lower loss never reads as an earlier step;
- where the curve is flat within its noise, the steps the job trained are the reading;
- the sim's count drops the steps before a corrupt load.

test_outcome_figures.py checks the interpolation between two steps; the replica's reading of a
real night is in tests/scoring (slow, it trains)."""

from __future__ import annotations

import math
import random

from hypothesis import given
from hypothesis import strategies as st

from drill.engine.scoring.progress import (
    SMOOTH_STEPS,
    counted,
    current_trajectory,
    indistinct_steps,
    measured,
    monotone_envelope,
    smoothed,
    step_for_loss,
)

LOSSES = st.floats(min_value=0.01, max_value=5.0, allow_nan=False)


def test_the_window_is_ten_steps():
    assert SMOOTH_STEPS == 10


def test_smoothed_is_the_mean_of_the_last_window_that_exists():
    by_step = {k: float(k) for k in range(1, 31)}
    assert smoothed(by_step, 30) == sum(range(21, 31)) / 10
    assert smoothed(by_step, 3) == 2.0  # steps 1 to 3 only: there is no step 0
    assert smoothed(by_step, 30, window=2) == 29.5
    gappy = {1: 4.0, 5: 2.0, 9: 9.0, 12: 1.0}
    assert smoothed(gappy, 12) == 4.0  # steps 3 to 12 that exist: 5, 9 and 12
    assert smoothed(gappy, 14) == 4.0
    assert math.isnan(smoothed({1: 1.0}, 40))


def test_a_rewind_keeps_the_later_training_and_drops_what_came_after_it():
    first = [(1, 5.0), (2, 4.0), (3, 3.0), (4, 2.5)]
    assert current_trajectory(first) == dict(first)
    again = [*first, (3, 3.5), (4, 2.8)]  # resumed from step 2
    assert current_trajectory(again) == {1: 5.0, 2: 4.0, 3: 3.5, 4: 2.8}
    back = [*first, (2, 4.2)]  # resumed from step 1, killed after one step
    assert current_trajectory(back) == {1: 5.0, 2: 4.2}
    assert current_trajectory([*first, (1, 6.0)]) == {1: 6.0}
    # Losses below the step numbers, as a long run's are: the rewind is read off the steps.
    late = [(101, 0.9), (102, 0.8), (103, 0.7), (104, 0.6)]
    assert current_trajectory([*late, (102, 0.85)]) == {101: 0.9, 102: 0.85}
    assert current_trajectory([]) == {}


@given(st.lists(LOSSES, min_size=1, max_size=40))
def test_the_envelope_never_rises_and_keeps_the_curves_length_and_total(values):
    curve = monotone_envelope(values)
    assert len(curve) == len(values)
    assert all(a >= b - 1e-9 for a, b in zip(curve, curve[1:], strict=False))
    assert math.isclose(sum(curve), sum(values), rel_tol=1e-9)
    falling = sorted(values, reverse=True)
    assert monotone_envelope(falling) == falling


def test_the_envelope_pools_a_bump_with_what_it_rose_from():
    assert monotone_envelope([1.0, 3.0]) == [2.0, 2.0]
    assert monotone_envelope([5.0, 1.0, 3.0, 0.5]) == [5.0, 2.0, 2.0, 0.5]
    assert monotone_envelope([]) == []


@given(st.lists(LOSSES, min_size=2, max_size=40), LOSSES, LOSSES)
def test_a_lower_loss_never_reads_as_an_earlier_step(baseline, a, b):
    low, high = sorted((a, b))
    assert step_for_loss(baseline, low) >= step_for_loss(baseline, high)
    assert 0.0 <= step_for_loss(baseline, low) <= len(baseline)


def test_a_loss_equal_to_a_steps_smoothed_loss_is_that_step():
    baseline = [10.0 - k for k in range(10)]  # 10, 9, ... 1: smoothed, the running mean
    running = [sum(baseline[: k + 1]) / (k + 1) for k in range(10)]
    for k in range(1, 10):
        assert step_for_loss(baseline, running[k]) == k + 1
    flat = [3.0, 2.0, 2.0, 2.0, 1.0]  # smoothed: 3, 2.5, 2.33, 2.25, 2.0
    assert step_for_loss(flat, 2.5) == 2.0
    # A bump pooled by the envelope: steps 2 and 3 share a loss, which first comes at step 2.
    bumpy = [3.0, 1.0, 2.0, 0.0]  # smoothed: 3, 2, 2, 1.5
    assert step_for_loss(bumpy, 2.0) == 2.0
    # The first step's own loss is no better than the start.
    assert step_for_loss(bumpy, 3.0) == 0.0
    assert step_for_loss([], 1.0) == 0.0


def test_the_replicas_reading_takes_the_smoothed_loss_at_the_final_step():
    baseline = [5.0 - 0.1 * k for k in range(40)]
    learner = [(k + 1, loss) for k, loss in enumerate(baseline)][:30]
    read = measured(learner, baseline, 30, "close")
    assert read.effective_step == 30
    loss = sum(baseline[20:30]) / 10
    assert read.how == f"its smoothed loss {loss:.4f} read on the undisturbed curve"
    # A rewind to step 10 that trained on to 20: read at step 20 of the later attempt.
    rewound = [*learner, *[(k + 1, baseline[k]) for k in range(10, 20)]]
    assert measured(rewound, baseline, 20, "diverged").effective_step == 20
    # Worse than the undisturbed run's: read as an earlier step.
    behind = [(k + 1, loss + 1.0) for k, loss in enumerate(baseline)][:30]
    assert measured(behind, baseline, 30, "diverged").effective_step < 30


def _plateau() -> list[float]:
    """Falls for 20 steps, then wobbles about 0.1 for 280: a loss that has settled."""
    wobble = random.Random(7)
    return [2.0 / (k + 1) for k in range(20)] + [
        0.1 + wobble.uniform(-0.01, 0.01) for _ in range(280)
    ]


def test_a_flat_stretch_of_the_curve_reads_the_steps_the_job_trained():
    baseline = _plateau()
    learner = [(k + 1, loss) for k, loss in enumerate(baseline)][:250]
    loss = smoothed(dict(learner), 250)
    assert step_for_loss(baseline, loss) < 200  # the curve alone puts it far from step 250
    first, last = indistinct_steps(baseline, loss)
    assert first < 40 and last > 250  # the plateau, give or take its noise
    read = measured(learner, baseline, 250, "close")
    assert read.effective_step == 250
    assert read.how == (
        f"the 250 steps it trained: its smoothed loss {loss:.4g} is one the undisturbed run's"
        f" curve holds, within its noise, from step {first} to {last}, so the loss cannot tell"
        " those steps apart"
    )
    # The same weights read at any step of the plateau: each at its own step.
    for step in (60, 120, 200, 300):
        assert measured(learner[:step] + [(k + 1, baseline[k]) for k in range(250, step)],
                        baseline, step, "close").effective_step == step  # fmt: skip


def test_a_loss_the_plateau_never_reaches_is_still_read_off_the_curve():
    baseline = _plateau()
    # Ten times the plateau's loss: the curve is steep there and says which step.
    worse = [(k + 1, 1.0) for k in range(250)]
    read = measured(worse, baseline, 250, "diverged")
    assert read.effective_step == round(step_for_loss(baseline, 1.0)) < 5
    assert read.how == "its smoothed loss 1.0000 read on the undisturbed curve"
    # A job at step 250 whose loss is the undisturbed run's at step 10: the curve rules out
    # step 250, so the count is not taken.
    tenth = smoothed({k + 1: loss for k, loss in enumerate(baseline)}, 10)
    stuck = [(k + 1, tenth) for k in range(250)]
    assert indistinct_steps(baseline, tenth) == (10, 10)
    assert measured(stuck, baseline, 250, "diverged").effective_step == 10
    assert indistinct_steps(baseline, float("nan")) is None and indistinct_steps([], 1.0) is None


def test_bit_for_bit_weights_are_at_their_own_step_and_no_loss_is_step_zero():
    read = measured([(1, 9.0)], [1.0, 0.5], 77, "bitexact")
    assert (read.effective_step, read.how) == (
        77,
        "weights equal to the undisturbed run's, bit for bit",
    )
    assert measured([], [1.0, 0.5], 5, "close") == measured([(1, 1.0)], [], 5, "close")
    assert measured([], [1.0], 5, None).effective_step == 0
    assert measured([], [1.0], 5, None).how == "no loss to read"


@given(st.integers(0, 5000), st.one_of(st.none(), st.integers(0, 5000)))
def test_the_sims_count_drops_the_steps_before_a_corrupt_load(step, poisoned_from):
    found = counted(step, poisoned_from)
    if poisoned_from is None:
        assert found.effective_step == step
        assert found.how == "counted without the replica (sim backend), not measured"
    else:
        assert found.effective_step == max(0, step - poisoned_from)
        assert found.how == (
            "counted without the replica: only the steps since a corrupt checkpoint was loaded"
            " or the model last trained on bad data"
        )
