"""Preemption: a higher-priority job that cannot be placed takes GPUs from lower classes.

The victims get SIGTERM, then SIGKILL after the grace period. A job whose script handles
SIGTERM writes a checkpoint in the window; one that does not dies at once (the default action
of SIGTERM). Preempted work is requeued and resumes from its latest checkpoint when placed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drill.sim import checkpointing, free_index
from drill.sim.events import JobStateChanged
from drill.sim.free_index import Scratch
from drill.sim.jobs import PREEMPTED, Job
from drill.sim.scheduler import NOTHING, fits

if TYPE_CHECKING:
    from drill.sim.world_view import SimWorld as World


def choose_victims(world: World, job: Job) -> list[Job]:
    """The fewest lower-priority jobs whose GPUs let `job` fit: lowest class first, then the
    most recently started (it has lost the least), then by name for a stable answer."""
    running = world.running_jobs()
    leaving = [j for j in running if j.current is not None and j.current.preempting]
    chosen = _first_enough(world, job, running, leaving)
    if not chosen:
        return []
    # Drop victims of the highest class taken that the placement does not need after all.
    # Lower classes stay: the lowest class always goes first, as priority classes promise.
    top = max(j.priority_rank for j in chosen)
    for victim in [j for j in reversed(chosen) if j.priority_rank == top]:
        others = [j for j in chosen if j is not victim]
        if others and _fits_without(world, job, leaving + others):
            chosen = others
    return chosen


def _first_enough(world: World, job: Job, running: list[Job], leaving: list[Job]) -> list[Job]:
    """Candidates in preemption order up to the first that makes `job` fit (none: nothing
    needed, as what is leaving is enough, or nothing is enough)."""
    trial, skip = _trial(world, job, leaving)
    with trial:
        if leaving and fits(trial, job, skip):
            return []  # enough is already on its way out; wait for the grace window
        candidates = [
            other
            for other in running
            if other.priority_rank < job.priority_rank
            and other.preemptible
            and other.current is not None
            and not other.current.preempting
        ]
        candidates.sort(key=lambda j: (j.priority_rank, -_started(j), j.name))
        chosen: list[Job] = []
        for candidate in candidates:
            chosen.append(candidate)
            _give_back(trial, candidate, skip)
            if fits(trial, job, skip):
                return chosen
        return []


def _started(job: Job) -> float:
    """When the job's running attempt started (every candidate has one)."""
    return (job.current.start if job.current is not None else None) or 0.0


def _trial(world: World, job: Job, victims: list[Job]) -> tuple[Scratch, frozenset[int]]:
    """The cluster's free GPUs as they would be with `victims` gone, for `job`'s placement."""
    index = free_index.of(world.cluster)
    trial = index.scratch()
    skip = index.positions(job.exclude) if job.exclude else NOTHING
    for victim in victims:
        _give_back(trial, victim, skip)
    return trial, skip


def _give_back(trial: Scratch, victim: Job, skip: frozenset[int]) -> None:
    for node, gpus in victim.placement:
        position = trial.index.pos.get(node)
        if position is not None and position not in skip and trial.usable(position):
            trial.adjust(position, len(gpus))


def _fits_without(world: World, job: Job, victims: list[Job]) -> bool:
    trial, skip = _trial(world, job, victims)
    with trial:
        return fits(trial, job, skip)


def preemption_line(job: Job, clock: str) -> str:
    """slurmstepd's line when it cancels a job's step for preemption, with the job's name and
    the night's clock where Slurm prints the numeric job id and a full date (the game names
    jobs, never numbers them)."""
    node = job.nodes[0] if job.nodes else "-"
    return f"slurmstepd: error: *** JOB {job.name} ON {node} CANCELLED AT {clock} DUE TO PREEMPTION ***"


def preempt(world: World, victim: Job, by: Job) -> None:
    attempt = victim.current
    if attempt is None:
        return
    attempt.preempting = True
    attempt.preempted_at = world.now
    if victim.training and attempt.training:
        world.progress_stopped(victim, f"preempted by {by.name}")
    grace = world.incident.cluster.preempt_grace
    # Slurm's own line in the job's output: who preempted and how long the grace is are the
    # scheduler's business, not the job log's (the page and `status` say them).
    world.log(victim, None, preemption_line(victim, world.clock.label(world.now)))
    world.emit(
        JobStateChanged(
            world.now,
            victim.name,
            f"{victim.name} preempted by {by.name}: SIGTERM, grace {int(grace)}s",
        )
    )
    if victim.yours:
        world.alert(
            "critical",
            victim.name,
            f"{victim.name} is being preempted by {by.name} ({by.priority} priority)",
        )
    world.env.process(_grace_window(world, victim, attempt, by, grace))


def _grace_window(world: World, job: Job, attempt, by: Job, grace: float):
    deadline = world.now + grace
    why = f"preempted by {by.name}"
    policy = job.policy
    if attempt.writing is not None:
        # A periodic checkpoint is already being written: it has until SIGKILL to finish.
        step = attempt.writing.step
        yield world.env.timeout(grace)
        if attempt.ended:
            return
        finished = attempt.writing is None
        why += f"; checkpoint step {step} {'finished' if finished else 'was still being written at SIGKILL'}"
    elif (
        job.training
        and policy is not None
        and policy.on_sigterm
        and policy.enabled
        and attempt.training
    ):
        # The script's own handler speaks; a script without one prints nothing before it dies.
        world.log(
            job, 0, f"[rank0]: caught SIGTERM: saving a checkpoint at step {job.step} before exit"
        )
        saved = yield from checkpointing.write(world, job, attempt, deadline=deadline)
        if attempt.ended:
            return
        why += f"; checkpoint step {job.step} {'saved in the grace window' if saved else 'did not finish before SIGKILL'}"
    elif job.training and attempt.training:
        why += "; no SIGTERM handler, no checkpoint"
    if not attempt.ended:
        world.end_attempt(job, PREEMPTED, why, retry=True)
