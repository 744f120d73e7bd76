"""Writing a checkpoint, as a training script does: how long it takes on the shared volume,
whether it fits, and what a failed or interrupted write leaves behind.

Atomic writes go to a temp file and rename: a failure leaves the previous checkpoint and the
`latest` pointer as they were. Non-atomic writes (the naive script) move `latest` first and write
straight to the final path: a failure leaves a torn file that `latest` points at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from drill.sim.checkpoints import CheckpointRecord
from drill.sim.events import CheckpointEvent
from drill.sim.failures import rank_place
from drill.sim.jobs import FAILED, Attempt, Job
from drill.sim.shards import shard_count, shard_size
from drill.sim.storage import WritePlan
from drill.sim.torchrun import (
    SIGABRT,
    agent_failed,
    child_failed,
    collective_seq,
    watchdog_lines,
)
from drill.values.units import format_duration, format_size

if TYPE_CHECKING:
    from drill.sim.world_view import SimWorld as World

WRITER_ERROR = "PytorchStreamWriter failed writing file data/0: file write failed"
# The barrier ranks wait in after a save: dist.barrier() on NCCL is a one-element all-reduce.
BARRIER = ("ALLREDUCE", 1, 1)
SLOW_SHELF_EVERY = 4  # one rank's shard in four sits on a slow shelf


def checkpoint_size(world: World, job: Job) -> int:
    spec = job.training_spec
    return int(spec.model_params * spec.bytes_per_param)


def checkpoint_shards(job: Job) -> int:
    """Files a checkpoint of this job is: one a rank for a sharded job (drill/sim/shards.py)."""
    return shard_count(job.training_spec.model_params, job.world or job.gpus)


def write(world: World, job: Job, attempt: Attempt, *, deadline: float | None = None):
    """A SimPy generator that writes a checkpoint of the job's current step.

    Returns True when the checkpoint landed. `deadline` is a SIGKILL time (preemption grace).
    """
    policy = job.checkpoint_policy
    step = job.step
    size = checkpoint_size(world, job)
    # A fault waiting for this write strikes now, before the write is planned.
    world.faults.checkpoint_starting(job)
    if attempt.ended:
        return False
    volume = world.volumes.get(policy.volume) if policy.volume else None
    if not policy.atomic and job.checkpoints.get(step) is not None:
        # Opening the final path for writing truncates the old file: its space is free now.
        delete(world, job, step, by="overwrite")
    plan = (
        volume.plan_write(world.now, job.team, size)
        if volume
        else WritePlan(policy.write_time, False)
    )
    killed_at = None
    duration = plan.duration
    if deadline is not None and world.now + duration > deadline:
        killed_at = deadline
        duration = max(0.0, deadline - world.now)
    shards = checkpoint_shards(job)
    if shards > 1:
        # Sharded (FSDP/ZeRO): every rank writes its own slice, all at once, each at its share
        # of the volume's bandwidth, so the whole write takes the total over the volume's rate.
        piece = format_size(shard_size(size, shards))
        for rank in range(shards):
            world.log(
                job,
                rank,
                f"saving checkpoint step {step}: shard {rank} of {shards}"
                f" ({piece}, {format_size(size)} in all)",
            )
    else:
        world.log(job, 0, f"saving checkpoint step {step} ({format_size(size)})")
    barrier = _barrier_timeout(job, volume, plan, shards) if killed_at is None else None
    if barrier is not None:
        duration = barrier
    if volume:
        volume.writers += 1
    started = world.now
    attempt.writing = InFlight(step, size, started, plan)
    yield world.env.timeout(duration)
    if attempt.writing is None:
        return False  # the attempt was ended mid-write; interrupt() already recorded it
    attempt.writing = None
    if volume:
        volume.writers -= 1
    if killed_at is not None:
        written = plan.fraction * (world.now - started) / plan.duration if plan.duration else 0.0
        _torn_or_lost(world, job, step, size, written, "killed by SIGKILL during the write")
        return False
    if barrier is not None:
        _barrier_failed(world, job, step, size, shards, barrier / plan.duration)
        return False
    if plan.fails:
        # torch prints its writer's words only: no errno, so a full volume and a spent quota
        # read the same in the log and in the night's event feed, and `df` tells them apart.
        # The errno stays in the event's data, for the debrief and for tests.
        _torn_or_lost(world, job, step, size, plan.fraction, WRITER_ERROR, cause=plan.error)
        text = f"[rank0]: RuntimeError: {WRITER_ERROR}"
        world.log(job, 0, text)
        node, local, pid = rank_place(world, job, 0)
        world.log(job, None, agent_failed(local, pid, 1))
        world.end_attempt(job, FAILED, child_failed(node, 0, local, pid, 1, text))
        return False
    world.training.save(job.name, step, atomic=policy.atomic, fail_fraction=None)
    replaced = job.checkpoints.get(step)
    if volume:
        volume.add(world.now, job.team, size)
        if replaced is not None:
            volume.remove(world.now, job.team, replaced.size)  # the rename freed the old file
    job.checkpoints.add(
        CheckpointRecord(
            step,
            world.now,
            size,
            poisoned_from=attempt.poisoned_from,
            data_next=attempt.data_next,
            shards=shards,
        )
    )
    apply_retention(world, job)
    took = format_duration(world.now - started)
    if shards > 1:
        world.log(
            job, 0, f"checkpoint step {step} saved: {shards} shards and the manifest in {took}"
        )
    else:
        world.log(job, 0, f"checkpoint step {step} saved in {took}")
    world.emit(
        CheckpointEvent(world.now, job.name, f"{job.name} checkpoint step {step} saved", step=step)
    )
    return True


def _slow_ranks(shards: int) -> list[int]:
    """The ranks whose shards land on a slow shelf: a file system stripes files over its
    disks, so a quarter of them, spread over both nodes."""
    return [rank for rank in range(shards) if rank % SLOW_SHELF_EVERY == SLOW_SHELF_EVERY - 1]


def _barrier_timeout(job: Job, volume, plan: WritePlan, shards: int) -> float | None:
    """When a sharded save on a slowed volume dies in the barrier after it: the ranks whose
    shards sit on healthy disks finish at the volume's normal pace and wait for the others in
    a barrier (a one-element all-reduce). Past the collective timeout, their NCCL watchdog
    takes the job down. Returns the seconds into the write when that happens, or None."""
    if shards <= 1 or volume is None or volume.slowdown <= 1.0 or plan.fails:
        return None
    healthy = plan.duration / volume.slowdown
    if plan.duration - healthy <= job.collective_timeout:
        return None
    return healthy + job.collective_timeout


def _barrier_failed(
    world: World, job: Job, step: int, size: int, shards: int, slow_fraction: float
) -> None:
    slow = _slow_ranks(shards)
    written = (shards - len(slow) + len(slow) * slow_fraction) / shards
    _torn_or_lost(world, job, step, size, written, "the NCCL watchdog stopped the job in the save")
    ms = int(job.collective_timeout * 1000)
    seq = collective_seq(job.step) + 1  # the barrier after the save
    waiting = [rank for rank in range(shards) if rank not in slow]
    for rank in waiting:
        for line in watchdog_lines(rank, seq, ms, BARRIER):
            world.log(job, rank, line)
    reporter = waiting[0]
    node, local, pid = rank_place(world, job, reporter)
    world.log(job, None, agent_failed(local, pid, SIGABRT))
    error = watchdog_lines(reporter, seq, ms, BARRIER)[0]
    world.end_attempt(job, FAILED, child_failed(node, reporter, local, pid, SIGABRT, error))


@dataclass
class InFlight:
    step: int
    size: int
    started: float
    plan: WritePlan


def interrupt(world: World, job: Job, attempt: Attempt) -> None:
    """The attempt ended while a checkpoint was being written: what reached the disk stays."""
    flight = attempt.writing
    if flight is None:
        return
    attempt.writing = None
    policy = job.checkpoint_policy
    volume = world.volumes.get(policy.volume) if policy.volume else None
    if volume:
        volume.writers -= 1
    elapsed = world.now - flight.started
    written = flight.plan.fraction * elapsed / flight.plan.duration if flight.plan.duration else 0.0
    _torn_or_lost(
        world, job, flight.step, flight.size, written, "the job was stopped during the write"
    )


def _torn_or_lost(
    world: World, job: Job, step: int, size: int, fraction: float, why: str, cause: str = ""
) -> None:
    policy = job.checkpoint_policy
    volume = world.volumes.get(policy.volume) if policy.volume else None
    fraction = max(0.0, min(1.0, fraction))
    world.training.save(job.name, step, atomic=policy.atomic, fail_fraction=max(fraction, 0.01))
    if policy.atomic:
        world.emit(
            CheckpointEvent(
                world.now,
                job.name,
                f"{job.name} checkpoint step {step} not written: {why}",
                step=step,
                cause=cause or why,
            )
        )
        return
    partial = int(size * fraction)
    if volume:
        volume.add(world.now, job.team, partial)
    job.checkpoints.add(
        CheckpointRecord(
            step,
            world.now,
            partial,
            condition="torn",
            shards=checkpoint_shards(job),
            planned=size,
        )
    )
    world.emit(
        CheckpointEvent(
            world.now,
            job.name,
            f"{job.name} checkpoint step {step} written in part: {why}",
            step=step,
            cause=cause or why,
        )
    )


def apply_retention(world: World, job: Job) -> None:
    """Keep the newest K, as the training script's own cleanup does after a good save."""
    keep = job.checkpoint_policy.keep
    live = job.checkpoints.live()
    for record in live[: max(0, len(live) - keep)]:
        delete(world, job, record.step, by="retention")


def delete(world: World, job: Job, step: int, by: str) -> None:
    record = job.checkpoints.get(step)
    if record is None:
        return
    if by == "you" and record.condition == "ok":
        good = [r.step for r in job.checkpoints.live() if r.condition == "ok"]
        if not [s for s in good if s > step]:
            # The newest good checkpoint: the work since the one before it is gone with it.
            before = max((s for s in good if s < step), default=0)
            lost = (step - before) * job.step_time * job.gpus
            world.harm(
                "needed_checkpoint", lost, f"deleted checkpoint step {step}, the newest good one"
            )
    policy = job.checkpoint_policy
    volume = world.volumes.get(policy.volume) if policy.volume else None
    if volume:
        volume.remove(world.now, job.team, record.size)
    job.checkpoints.remove(step)
    world.training.remove(job.name, step)
    if by not in ("retention", "overwrite"):
        world.emit(
            CheckpointEvent(
                world.now, job.name, f"{job.name} checkpoint step {step} deleted by {by}", step=step
            )
        )
