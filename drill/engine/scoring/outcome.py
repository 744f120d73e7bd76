"""What the night measurably achieved, read off the world and the replica. The score is built
from this and nothing else: no table of guesses, no credit for typing the right words.

An Outcome is plain data (it is cached for par and floor and compared across runs), measured the
same way for the learner, the reference solution and nobody.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, cast

from drill.engine.scoring import collateral, excess, plan_check, progress
from drill.engine.scoring.discipline import measure_discipline
from drill.sim.events import StepTaken
from drill.sim.jobs import COMPLETED, RUNNING

if TYPE_CHECKING:
    from drill.engine.drill import Drill
    from drill.engine.scoring.undisturbed import StepClock

# "Training again for the last part of the night": at least this long before the end.
RECOVERED_FOR = 900.0
RECOVERED_SHARE = 0.2  # or this share of the night, when the night is short


@dataclass
class Outcome:
    end_time: float
    completed: bool
    alive: bool  # making steps (or completed) at the end
    recovered: bool  # completed, or training again for the last part of the night
    final_step: int
    target_steps: int
    # Progress: the undisturbed run's step at the end against the learner's effective step.
    baseline_step: int = 0  # where the undisturbed run would be at the night's end, at its pace
    effective_step: int = 0
    progress_how: str = ""
    pace: float = 0.0  # the undisturbed run's seconds per step, checkpoints included
    # Outages: [start, end] from each stop to its own restart (end None: still out at the end).
    # A pair in a list (JSON's shape), so the type cannot say start is never None: casts read it.
    outages: list[list[float | None]] = field(default_factory=list)
    # Integrity.
    match: str | None = None  # bitexact, close, diverged; None without the replica
    rel_l2: float | None = None
    final_loss: float | None = None
    baseline_loss: float | None = None
    corrupt_loaded: int = 0
    corrupt_caught: int = 0
    failed_loads: int = 0  # attempts that ended on a checkpoint that would not load or verify
    # Collateral, raw: per other job, killed and waited GPU seconds; the learner's own harms.
    others: dict[str, dict] = field(default_factory=dict)
    harms: list[list[Any]] = field(default_factory=list)  # [time, kind, gpu_seconds, text]
    healthy_gpu_seconds: float = 0.0
    # Discipline.
    changes: int = 0
    changes_after_look: int = 0
    pages_due: int = 0
    pages_acked_in_time: int = 0
    hints_used: int = 0
    notes: int = 0
    discipline: float = 0.0
    # The plan, over this night and the ensemble (None: the incident has no plan).
    plan_fallback: float | None = None
    plan_nights: list[int] = field(default_factory=list)
    first_page: float | None = None  # when the pager first fired for something real
    # Figures read as an expectation over the ensemble (drill/engine/scoring/ensemble.py): component
    # name -> {"nights": N, "mean": figure, "values": per night, "dropped": count, ...}.
    expected: dict[str, dict] = field(default_factory=dict)
    # Risk left behind (drill/sim/exposure.py), over the whole night: GPU seconds a broken node
    # the learner could see was offered to others while schedulable, and other teams' GPU
    # seconds lost to a throttled GPU or flapping leaf left in place. Priced into `harms`.
    risk_gpu_seconds: float = 0.0
    slowed_gpu_seconds: float = 0.0
    # Work beyond need (drill/engine/scoring/excess.py), read by the score's fixed costs: every step
    # trained (steps trained again after a rewind included), data skipped that was not bad, GPU
    # seconds held beyond the job's need while others queued, and other teams' running jobs
    # stopped by an act on their job.
    steps_trained: int = 0
    skipped_steps: int = 0
    extra_gpu_seconds: float = 0.0
    stopped_others: list[str] = field(default_factory=list)
    # Looks after the first signal (a night with pages due and no change is judged by them).
    looks_after_signal: int = 0
    skips: list[list[int]] = field(default_factory=list)  # `restart --skip` ranges, as recorded
    target_gpus: int = 0  # the GPUs the job needs
    # Discipline: changes with no informing look after the first visible signal, and for each
    # its line, when, and the look that would have counted ("restart llm --from 100 at 03:40:00
    # came without a look at llm after the first sign of trouble at 03:25:00: `ckpt list` or
    # `ckpt verify` of llm would have counted"), for the debrief.
    uninformed_changes: int = 0
    uninformed_lines: list[str] = field(default_factory=list)
    # Broken nodes the learner could see, still schedulable for other teams when the night ended
    # (seen at least a paging target before the end): risk left behind, not just risk taken.
    left_schedulable: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def steps_behind(self) -> int:
        return max(0, self.baseline_step - self.effective_step)

    @property
    def downtime(self) -> float:
        return round(
            sum(
                (end if end is not None else self.end_time) - cast(float, start)
                for start, end in self.outages
            ),
            3,
        )

    @property
    def thrown_away(self) -> int:
        """Steps of work the night threw away: trained and then lost (trained again after a
        rewind, or never saved), and good data skipped."""
        return max(0, self.steps_trained - self.final_step) + self.skipped_steps

    @property
    def progress_share(self) -> float:
        """Effective progress as a share of the undisturbed run's."""
        return min(1.0, self.effective_step / self.baseline_step) if self.baseline_step else 1.0


def measure(drill: Drill, paging_target: float, clock: StepClock, *, plan: bool = True) -> Outcome:
    world = drill.world
    job = drill.learner_job
    end = drill.end_time
    attempt = job.current
    training = bool(
        attempt is not None
        and attempt.training
        and attempt.stall_wake is None
        and job.state == RUNNING
    )
    completed = job.state == COMPLETED
    alive = completed or training
    recovered = completed or (training and _trained_through_the_end(drill, end))
    outcome = Outcome(
        end_time=round(end, 3),
        completed=completed,
        alive=alive,
        recovered=recovered,
        final_step=job.step,
        target_steps=job.steps,
        baseline_step=int(round(clock.steps_by(drill.night_end))),
        pace=round(clock.pace, 3),
        outages=[[o.start, o.end] for o in job.outages],
        first_page=_first_page(drill),
    )
    d = measure_discipline(drill, paging_target, end)
    outcome.changes, outcome.changes_after_look = d.changes, d.changes_after_look
    outcome.pages_due, outcome.pages_acked_in_time = d.pages_due, d.pages_acked_in_time
    outcome.hints_used, outcome.notes, outcome.discipline = d.hints_used, d.notes, d.value
    outcome.looks_after_signal = d.looks_after_signal
    outcome.uninformed_changes = d.changes - d.changes_after_look
    outcome.uninformed_lines = list(d.uninformed)
    _measure_progress(drill, outcome, clock)
    # Other teams' night goes on after the learner's job is done; measure all of it.
    world.run_rest_of_night()
    whole = drill.night_end
    outcome.others = collateral.other_jobs(drill, whole)
    outcome.harms = [[h.time, h.kind, h.gpu_seconds, h.text] for h in world.ledger.harms]
    outcome.healthy_gpu_seconds = round(_healthy_taken(drill, whole), 3)
    world.exposure.settle()
    outcome.risk_gpu_seconds = round(world.exposure.risk_gpu_seconds, 3)
    outcome.slowed_gpu_seconds = round(world.exposure.slowed_gpu_seconds, 3)
    outcome.left_schedulable = world.exposure.left_schedulable(whole - paging_target)
    outcome.harms += collateral.left_behind(drill)
    outcome.steps_trained = job.steps_executed
    outcome.skipped_steps = excess.skipped_beyond_bad(job)
    outcome.extra_gpu_seconds = excess.extra_gpu_seconds(drill, whole)
    outcome.stopped_others = excess.stopped_others(drill)
    outcome.failed_loads = sum(1 for a in job.attempts if a.failed_load)
    outcome.skips = [[first, last] for first, last in job.data_skips]
    outcome.target_gpus = job.gpus
    if plan and drill.incident.plan is not None:
        lines = plan_check.plan_lines(drill)
        nights = plan_check.ensemble_fallbacks(drill.incident, drill.seed, lines)
        outcome.plan_nights = [plan_check.fallback_step(drill), *nights]
        outcome.plan_fallback = plan_check.plan_figure(outcome.plan_nights[0], nights)
    return outcome


def _measure_progress(drill: Drill, outcome: Outcome, clock: StepClock) -> None:
    job = drill.learner_job
    report = drill.replica_report()
    poisoned_from = _poisoned_from(drill)
    if report is None:
        outcome.corrupt_loaded = sum(1 for a in job.attempts if a.loaded_corrupt)
        outcome.corrupt_caught = _caught_by_condition(drill)
        if outcome.alive:
            found = progress.counted(job.step, poisoned_from)
        else:
            record = _newest_good_on_disk(drill)
            step = record.step if record else 0
            kept = step - (record.poisoned_from or 0) if record else 0
            found = progress.Progress(
                kept, f"the newest whole checkpoint on disk (step {step}), counted"
            )
    else:
        outcome.match = report.match if outcome.alive else None
        outcome.rel_l2 = report.rel_l2 if outcome.alive else None
        outcome.final_loss = report.final_loss
        outcome.baseline_loss = report.baseline_loss
        outcome.corrupt_loaded = report.corrupt_loaded
        outcome.corrupt_caught = report.corrupt_detected
        if outcome.alive:
            found = progress.measured(job.losses, drill.baseline_losses(), job.step, report.match)
        else:
            step = _newest_verified_on_disk(drill)
            found = progress.Progress(
                step, f"the newest checkpoint that verifies on disk (step {step})"
            )
    effective = float(found.effective_step)
    if outcome.completed:
        # Finished: it went on as far as the undisturbed run's pace would take it by the end.
        effective += max(0.0, drill.night_end - drill.end_time) / clock.pace
    outcome.effective_step = min(int(round(effective)), outcome.baseline_step)
    outcome.progress_how = found.how


def is_recovered(drill: Drill) -> bool:
    job = drill.learner_job
    if job.state == COMPLETED:
        return True
    attempt = job.current
    training = bool(
        attempt is not None
        and attempt.training
        and attempt.stall_wake is None
        and job.state == RUNNING
    )
    return training and _trained_through_the_end(drill, drill.end_time)


def _first_page(drill: Drill) -> float | None:
    pages = [a.time for a in drill.world.pager.alerts if not a.noise and a.severity != "info"]
    return min(pages) if pages else None


def _trained_through_the_end(drill: Drill, end: float) -> bool:
    """Training again for the last part of the night: no outage open, and the last one (or the
    attempt's start) ended long enough before the end."""
    job = drill.learner_job
    window = min(RECOVERED_FOR, RECOVERED_SHARE * drill.night_end)
    since = job.outages[-1].end if job.outages else None
    attempt = job.current
    first = (
        _first_step_time(drill, attempt.start) if attempt and attempt.start is not None else None
    )
    if first is None:
        return False
    since = max(since or first, first)
    return since <= end - window


def _first_step_time(drill: Drill, after: float) -> float | None:
    name = drill.learner_job.name
    for event in drill.world.timeline:
        if isinstance(event, StepTaken) and event.subject == name and event.time >= after:
            return event.time
    return None


def _poisoned_from(drill: Drill) -> int | None:
    """The step a corrupt checkpoint came into the model that exists now, if one did."""
    for attempt in reversed(drill.learner_job.attempts):
        if attempt.training:
            return attempt.poisoned_from
    return None


def _caught_by_condition(drill: Drill) -> int:
    return sum(
        1
        for r in drill.learner_job.checkpoints.records
        if r.condition != "ok" and r.verified is False
    )


def _newest_good_on_disk(drill: Drill):
    good = [r for r in drill.learner_job.checkpoints.live() if r.condition == "ok"]
    return max(good, key=lambda r: r.step, default=None)


def _newest_verified_on_disk(drill: Drill) -> int:
    """A dead job keeps only what it could resume from: the newest checkpoint whose bytes match
    its manifest (real sha256), not the weights that were in memory when it died."""
    job = drill.learner_job
    verify = getattr(drill.training, "verify_on_disk", None)
    for record in sorted(job.checkpoints.live(), key=lambda r: -r.step):
        ok = verify(job.name, record.step) if verify else record.condition == "ok"
        if ok:
            return record.step
    return 0


def _healthy_taken(drill: Drill, end: float) -> float:
    total = 0.0
    for node in drill.world.cluster.nodes.values():
        total += node.healthy_gpu_seconds_taken
        if node.taken_healthy_at is not None:
            total += (end - node.taken_healthy_at) * len(node.gpus)
    return total
