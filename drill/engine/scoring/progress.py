"""How far the learner's model got: the effective step, read from the replica's loss.

The replica's loss at the end of the night, smoothed over its last steps the way the debrief
curve draws it, is read against the undisturbed run's loss curve: the effective step is the
baseline step that reached the same loss. Work trained twice, lost to a torn file or poisoned by
a corrupt checkpoint shows up by itself, because it is what the model actually lost.

Where the curve cannot tell steps apart the read-off does not pretend: a loss that the
undisturbed run's smoothed curve reaches, within its own noise, over a stretch of steps (a loss
that has plateaued) says only "somewhere in that stretch". If the steps the job completed lie in
it, they are the reading; the loss picks the step only where the curve falls faster than its
noise. Without this, a replica whose loss settles early would be read at the first step of its
plateau (or, with an unlucky wobble, past its last) whatever its weights.

Two readings need no curve: weights that match the undisturbed run bit for bit are at their own
step, and without the replica (`--backend sim`) the step is counted, not measured, and says so.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

SMOOTH_STEPS = 10  # the window the debrief's loss curve smooths over
# A smoothed loss within this many times the curve's own noise of another is indistinguishable
# from it: two standard deviations, as a wobble of one is common.
NOISE_BAND = 2.0
# Floating-point rounding alone: losses this close (relative) are the same loss.
ROUNDING = 1e-9


@dataclass(frozen=True)
class Progress:
    effective_step: int
    how: str  # one phrase for the debrief: how the step was worked out


def smoothed(losses_by_step: dict[int, float], step: int, window: int = SMOOTH_STEPS) -> float:
    values = [
        losses_by_step[s] for s in range(max(1, step - window + 1), step + 1) if s in losses_by_step
    ]
    return sum(values) / len(values) if values else float("nan")


def current_trajectory(losses: list[tuple[int, float]]) -> dict[int, float]:
    """The loss of each step as the model that exists now trained it: a step trained twice
    keeps its later value (the earlier one belonged to an attempt whose work was lost)."""
    kept: list[tuple[int, float]] = []
    for step, loss in losses:
        if kept and step <= kept[-1][0]:
            kept = kept[: bisect.bisect_left(kept, (step, float("-inf")))]
        kept.append((step, loss))
    return dict(kept)


def monotone_envelope(values: list[float]) -> list[float]:
    """The closest non-increasing curve (pool adjacent violators): a loss curve without its
    noise bumps, so a loss maps to one step."""
    blocks: list[list[float]] = []  # [sum, count]
    for value in values:
        blocks.append([value, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] < blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    out: list[float] = []
    for total, count in blocks:
        out += [total / count] * int(count)
    return out


def _smoothed_curve(baseline_losses: list[float]) -> list[float]:
    by_step = {k + 1: value for k, value in enumerate(baseline_losses)}
    return [smoothed(by_step, k) for k in range(1, len(baseline_losses) + 1)]


def step_for_loss(baseline_losses: list[float], loss: float) -> float:
    """The (fractional) baseline step whose smoothed loss first comes down to `loss`.

    `baseline_losses[k - 1]` is the undisturbed run's loss at step k."""
    curve = monotone_envelope(_smoothed_curve(baseline_losses))
    if not curve or loss != loss:  # nan: a loss that exploded is no progress at all
        return 0.0
    if loss >= curve[0]:
        return 0.0
    for k in range(1, len(curve)):
        if curve[k] <= loss:
            above, below = curve[k - 1], curve[k]
            part = (above - loss) / (above - below) if above > below else 1.0
            return k + part  # between step k (index k - 1) and step k + 1
    return float(len(curve))


def indistinct_steps(baseline_losses: list[float], loss: float) -> tuple[int, int] | None:
    """The first and last baseline step whose smoothed loss the curve's noise cannot tell from
    `loss`, or None when no step comes that close.

    The noise is how far the smoothed curve wobbles about its non-increasing envelope (root mean
    square over the run): a curve that keeps falling faster than that names one step or a few;
    a plateau names all of its steps."""
    raw = _smoothed_curve(baseline_losses)
    curve = monotone_envelope(raw)
    if not curve or loss != loss:
        return None
    wobble = (sum((r - c) ** 2 for r, c in zip(raw, curve, strict=True)) / len(curve)) ** 0.5
    band = max(NOISE_BAND * wobble, ROUNDING * abs(loss))
    near = [k + 1 for k, value in enumerate(curve) if abs(value - loss) <= band]
    return (near[0], near[-1]) if near else None


def measured(
    learner_losses: list[tuple[int, float]],
    baseline_losses: list[float],
    final_step: int,
    match: str | None,
) -> Progress:
    """The replica's reading of a job that is alive (training or completed) at the end."""
    if match == "bitexact":
        return Progress(final_step, "weights equal to the undisturbed run's, bit for bit")
    trajectory = current_trajectory(learner_losses)
    if not trajectory or not baseline_losses:
        return Progress(0, "no loss to read")
    loss = smoothed(trajectory, final_step)
    stretch = indistinct_steps(baseline_losses, loss)
    if stretch is not None and stretch[0] < stretch[1] and stretch[0] <= final_step <= stretch[1]:
        first, last = stretch
        return Progress(
            final_step,
            f"the {final_step} steps it trained: its smoothed loss {loss:.4g} is one the"
            f" undisturbed run's curve holds, within its noise, from step {first} to {last},"
            " so the loss cannot tell those steps apart",
        )
    step = step_for_loss(baseline_losses, loss)
    return Progress(int(round(step)), f"its smoothed loss {loss:.4f} read on the undisturbed curve")


def counted(step: int, poisoned_from: int | None) -> Progress:
    """The `sim` backend's estimate: the steps the job holds. A model that loaded bytes that
    were not what was written, or last trained on bad data (bad_shard), only counts the steps
    trained since."""
    if poisoned_from is not None:
        return Progress(
            max(0, step - poisoned_from),
            "counted without the replica: only the steps since a corrupt checkpoint was loaded"
            " or the model last trained on bad data",
        )
    return Progress(step, "counted without the replica (sim backend), not measured")
