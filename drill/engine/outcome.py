"""What the night measurably achieved, read off the world and the replica. The score is built
from this and nothing else: no table of guesses, no credit for typing the right words."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from drill.engine.actions.effects import effect_of
from drill.sim.jobs import COMPLETED

if TYPE_CHECKING:
    from drill.engine.drill import Drill


@dataclass
class Outcome:
    recovered: bool
    onset: float | None  # when the learner's job first stopped making progress
    recovered_at: float | None  # first real step of the attempt that recovered it
    final_step: int
    target_steps: int
    steps_recomputed: int
    gpu_hours_wasted: float
    # Steps the job still owes at the end of the night, and what they cost in GPU hours.
    steps_behind: int = 0
    gpu_hours_behind: float = 0.0
    match: str | None = None  # bitexact, close, diverged; None without the replica
    rel_l2: float | None = None
    final_loss: float | None = None
    baseline_loss: float | None = None
    corrupt_loaded: int = 0
    corrupt_detected: int = 0
    harms: list[str] = field(default_factory=list)
    surgery: int = 0
    surgery_after_look: int = 0
    pages: int = 0
    pages_acked_in_time: int = 0
    hints_used: int = 0
    notes: int = 0
    end_time: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def measure(drill: Drill, paging_target: float) -> Outcome:
    from drill.engine.account import recovered

    world = drill.world
    job = drill.learner_job
    onset = disruption_onset(drill)
    recovered_at = recovery_time(drill, onset)
    surgery, after_look = _looks_before_surgery(drill)
    pages = [a for a in world.pager.alerts if not a.noise and a.severity != "info"]
    in_time = [a for a in pages if a.acked_at is not None and a.acked_at - a.time <= paging_target]
    outcome = Outcome(
        recovered=recovered(drill),
        onset=onset,
        recovered_at=recovered_at,
        final_step=job.step,
        target_steps=job.steps,
        steps_recomputed=job.steps_recomputed,
        gpu_hours_wasted=round(_gpu_hours_wasted(drill), 3),
        steps_behind=_steps_behind(drill),
        gpu_hours_behind=round(_steps_behind(drill) * job.step_time * job.gpus / 3600.0, 3),
        harms=[text for _, _, text in world.harms],
        surgery=surgery,
        surgery_after_look=after_look,
        pages=len(pages),
        pages_acked_in_time=len(in_time),
        hints_used=len(drill.ctx.hints_shown),
        notes=len(drill.ctx.notes),
        end_time=drill.end_time,
    )
    report = drill.replica_report()
    if report is not None:
        outcome.match = report.match
        outcome.rel_l2 = report.rel_l2
        outcome.final_loss = report.final_loss
        outcome.baseline_loss = report.baseline_loss
        outcome.corrupt_loaded = report.corrupt_loaded
        outcome.corrupt_detected = report.corrupt_detected
        outcome.steps_recomputed = report.steps_recomputed
    return outcome


def disruption_onset(drill: Drill) -> float | None:
    """The first moment the learner's job stopped making progress it would keep: a stall, or an
    attempt that ended for any reason but completion."""
    job = drill.learner_job
    moments = []
    for attempt in job.attempts:
        if attempt.stalled_at is not None:
            moments.append(attempt.stalled_at)
        if attempt.end is not None and attempt.ended_as != COMPLETED:
            moments.append(attempt.end)
        if attempt.preempted_at is not None:
            moments.append(attempt.preempted_at)
    return min(moments) if moments else None


def recovery_time(drill: Drill, onset: float | None) -> float | None:
    """When the attempt that carried the job to the end (or to the end of the night) made its
    first real step after the onset."""
    job = drill.learner_job
    if onset is None:
        return None
    last = job.attempts[-1] if job.attempts else None
    if last is None or not last.training or last.start is None or last.start < onset:
        return None
    healthy_end = job.state == COMPLETED or (last.end is None and last.stall_wake is None)
    if not healthy_end:
        return None
    first_steps = [
        e.time
        for e in drill.world.timeline
        if e.kind == "step" and e.subject == job.name and e.time >= last.start
    ]
    return first_steps[0] if first_steps else None


def _gpu_hours_wasted(drill: Drill) -> float:
    """GPU time the job held beyond what its kept progress needed: hung gangs, start-ups of
    attempts that failed, steps trained twice, and steps trained but never kept."""
    job = drill.learner_job
    held = 0.0
    for attempt in job.attempts:
        if attempt.start is None:
            continue
        end = attempt.end if attempt.end is not None else drill.end_time
        held += max(0.0, end - attempt.start) * attempt.gpus
    useful = kept_step(drill) * job.step_time * job.gpus
    return max(0.0, held - useful) / 3600.0


def _steps_behind(drill: Drill) -> int:
    job = drill.learner_job
    return 0 if job.state == COMPLETED else max(0, job.steps - kept_step(drill))


def kept_step(drill: Drill) -> int:
    """Progress the job still has: its step while it trains or once it is done; otherwise the
    newest whole checkpoint it could resume from."""
    job = drill.learner_job
    attempt = job.current
    if job.state == COMPLETED or (attempt is not None and attempt.training):
        return job.step
    good = [r.step for r in job.checkpoints.live() if r.condition == "ok"]
    return max(good, default=0)


def _looks_before_surgery(drill: Drill) -> tuple[int, int]:
    """Surgery is a change to a node or a job; a look is a look at that same node or job at any
    earlier time in the night (a look at the whole cluster names neither)."""
    looked: set = set()
    surgery = after_look = 0
    for action in drill.actions:
        if not action.accepted:
            continue
        done = effect_of(action.text)
        if done.is_look:
            looked.add(done.touches)
        elif done.is_change and done.touches and done.touches[0] in ("node", "job"):
            surgery += 1
            after_look += done.touches in looked
    return surgery, after_look
