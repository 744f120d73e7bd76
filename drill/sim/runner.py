"""The life of one attempt: start-up, rendezvous, checkpoint read, steps, checkpoints, the end.

Ending an attempt from outside (cancel, node failure, watchdog) only marks it ended and frees its
GPUs; the attempt's process notices at its next wake-up and stops. That keeps every change in one
place and avoids interrupt races.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drill.faults.xids import fell_off_the_bus
from drill.sim import checkpointing, gpu_state
from drill.sim.cluster import Gpu
from drill.sim.events import TRAINING, JobStateChanged, StepTaken
from drill.sim.failures import rank_place
from drill.sim.jobs import FAILED, Attempt, Job
from drill.sim.logs import STEP_LOG_EVERY
from drill.sim.torchrun import agent_failed, child_failed

if TYPE_CHECKING:
    from drill.sim.world_view import SimWorld as World

CHECKPOINT_READ_TIME = 45.0  # without a modelled volume: reading the shards back at start
# What a rank raises at its first CUDA call on a GPU the driver cannot use, and on a node
# where CUDA counts fewer GPUs than the job's local ranks.
STARTUP_ERROR = "CUDA error: unknown error"
INVALID_ORDINAL = "CUDA error: invalid device ordinal"


def failed_at_startup(world: World, job: Job, rank: int, text: str) -> str:
    node, local, pid = rank_place(world, job, rank)
    return child_failed(node, rank, local, pid, 1, text)


def _failed_load(world: World, job: Job, error: str) -> None:
    """Rank 0 raised while loading the checkpoint: its log has the RuntimeError, the agent sees
    it exit 1, and torchrun's ChildFailedError is the failure, as for any other rank error."""
    text = f"[rank0]: RuntimeError: {error}"
    world.log(job, 0, text)
    node, local, pid = rank_place(world, job, 0)
    world.log(job, None, agent_failed(local, pid, 1))
    world.end_attempt(job, FAILED, child_failed(node, 0, local, pid, 1, text))


def training_attempt(world: World, job: Job, attempt: Attempt):
    env = world.env
    catalog = job.checkpoints
    resume = world.resume_point(job)
    cluster = world.incident.cluster
    world.log(
        job,
        None,
        f"attempt {attempt.number}: launching {job.world} ranks on {', '.join(job.nodes)}",
    )
    setup = cluster.startup + cluster.rendezvous
    if resume is not None:
        read = world.checkpoint_read_time(job)
        setup += read
        volume = world.volumes.get(job.checkpoint_policy.volume or "")
        if volume is not None:
            volume.client_read(read)  # every rank reads its shard back at once
    yield env.timeout(setup)
    if attempt.ended:
        return
    odd = next((n for n in job.nodes if world.cluster.nodes[n].image_mismatch), None)
    if odd is not None:
        # NCCL's start-up across images that differ never completes, and nothing times it out.
        yield from world.failures.hang_in_startup(job, attempt, odd)
        return
    blocked = gpu_state.startup_failure(world, job)
    if blocked is not None and _broken_rank(world, job) is None:
        rank, node, gpu, lines, raised = blocked
        for line in lines:
            world.log(job, rank, line)
        text = f"[rank{rank}]: {raised}"
        world.log(job, rank, text)
        world.end_attempt(job, FAILED, failed_at_startup(world, job, rank, text))
        return
    broken = _broken_rank(world, job)
    if broken is not None:
        rank, node, error = broken
        text = f"[rank{rank}]: RuntimeError: {error}"
        world.log(job, rank, text)
        world.end_attempt(
            job, FAILED, failed_at_startup(world, job, rank, text), blame=_blame(world, node)
        )
        return
    if job.resume_from == "latest":
        resume = catalog.latest_step  # the script reads `latest` when it loads, not before
    record = catalog.get(resume) if resume is not None else None
    if resume is not None and record is None:
        # The catalog is what exists on disk, for every backend: a step deleted while the
        # restart was queued is gone, whether or not a real replica is behind the job.
        _failed_load(world, job, f"failed to load checkpoint step {resume}: no such checkpoint")
        return
    outcome = world.training.start(
        job.name,
        from_step=resume,
        condition=record.condition if record else "ok",
        world=job.world,
        verify=job.checkpoint_policy.verify_on_resume,
    )
    if not outcome.ok:
        attempt.failed_load = True
        _failed_load(world, job, outcome.message)
        return
    for first, last in job.data_skips:
        world.training.skip_data(job.name, first, last)
    job.step = resume or 0
    attempt.from_step = job.step
    start_data = record.data_next if record is not None else None
    attempt.data_next = _past_skips(job, job.step + 1 if start_data is None else start_data)
    attempt.loaded_corrupt = outcome.poisoned
    # A model that came from bad bytes stays suspect, and so does every checkpoint it writes.
    attempt.poisoned_from = (
        resume if outcome.poisoned else (record.poisoned_from if record else None)
    )
    attempt.training = True
    job.last_step_time = env.now
    where = f"checkpoint step {resume}" if resume is not None else "scratch (step 0)"
    world.log(job, None, f"rendezvous complete, world size {job.world}; resumed from {where}")
    world.emit(
        JobStateChanged(
            world.now, job.name, f"{job.name} training from {where}", state=TRAINING, step=job.step
        )
    )
    if attempt.stall_on_start is not None:
        world.failures.stall(job, attempt.stall_on_start, how=attempt.stall_how)
    world.failures.training_started(job)
    while job.step < job.steps:
        yield env.timeout(job.step_time * world.step_factor(job))
        if attempt.ended or attempt.preempting or attempt.crashed:
            return
        if attempt.stall_wake is not None:
            # A rank stopped during this step, so the step never finished. Wait until the stall
            # clears (then run the step again) or the attempt ends (watchdog, person, node).
            yield attempt.stall_wake
            if attempt.ended:
                return
            continue
        wrong = _wrong_rank(world, job)
        if wrong is not None:
            rank, seed, nan_after = wrong
            if attempt.wrong_steps >= nan_after:
                # The wrong results reached a NaN: the script's own check stops rank 0 before
                # the step completes, so nothing of this step is trained or saved.
                world.failures.crash(job, 0, f"loss is nan at step {job.step + 1}")
                return
            attempt.wrong_steps += 1
            world.training.wrong_results(job.name, rank, job.world, seed)
        job.step += 1
        job.steps_executed += 1
        if wrong is not None:
            # Trained with a rank on a GPU that computes wrong results: the `sim` backend
            # counts the model's progress from here, as after bad data.
            attempt.poisoned_from = job.step
        if any(first <= attempt.data_next <= last for first, last in job.bad_data):
            # Trained on bad data: the `sim` backend counts the model's progress from here,
            # as it does after a corrupt load (the replica measures the real damage).
            attempt.poisoned_from = job.step
        attempt.data_next = _past_skips(job, attempt.data_next + 1)
        world.progress_resumed(job)
        job.last_step_time = env.now
        loss = world.training.step(job.name)
        if loss is not None:
            job.losses.append((job.step, loss))
        world.emit(StepTaken(env.now, job.name, f"step {job.step}", step=job.step, loss=loss))
        if job.step % STEP_LOG_EVERY == 0:
            job.log.step_marks.append((env.now, job.step, loss))
        policy = job.checkpoint_policy
        if policy.enabled and job.step % policy.every == 0 and job.step < job.steps:
            yield from checkpointing.write(world, job, attempt)
            if attempt.ended or attempt.preempting:
                return
    world.log(job, None, f"training finished at step {job.step}")
    world.complete(job)


def _past_skips(job: Job, data: int) -> int:
    """The data position moved past every range the job was told to skip."""
    moved = True
    while moved:
        moved = False
        for first, last in job.data_skips:
            if first <= data <= last:
                data, moved = last + 1, True
    return data


def _wrong_rank(world: World, job: Job) -> tuple[int, int, int] | None:
    """The first rank of the job on a GPU that computes wrong results (gpu_sdc), with the
    error's seed and the steps until NaN, or None."""
    if not Gpu.wrong_ever:
        return None  # no GPU has computed wrong results: nothing to look for on every step
    rank = 0
    for node_name, gpus in job.placement:
        node = world.cluster.nodes[node_name]
        for gpu in gpus:
            wrong = node.gpus[gpu].wrong_results
            if wrong is not None:
                return rank, wrong[0], wrong[1]
            rank += 1
    return None


def _blame(world: World, node: str) -> str | None:
    if world.cluster.nodes[node].put_back_broken:
        return f"you put {node} back in service with a broken GPU"
    return None


def _broken_rank(world: World, job: Job) -> tuple[int, str, str] | None:
    """The first rank that cannot start on a broken GPU, its node, and what it raises.

    A GPU that fell off the bus is not enumerated at all: CUDA numbers the node's remaining
    GPUs from 0, so the rank with the highest local rank on that node finds no device of its
    ordinal, whichever GPU is gone. A GPU that is there but broken fails its first call.
    """
    rank = 0
    for node_name, gpus in job.placement:
        node = world.cluster.nodes[node_name]
        first = rank
        gone = [g for g in gpus if node.gpus[g].broken and fell_off_the_bus(node.gpus[g].xid)]
        if gone:
            return first + len(gpus) - 1, node_name, INVALID_ORDINAL
        for gpu in gpus:
            if node.gpus[gpu].broken:
                return rank, node_name, STARTUP_ERROR
            rank += 1
    return None


def background_attempt(world: World, job: Job, attempt: Attempt):
    """Other teams' work: runs for its duration unless a fault or a person ends it first."""
    remaining = max(60.0, job.duration - job.elapsed_before)
    attempt.carried = job.elapsed_before
    job.elapsed_before = 0.0
    yield world.env.timeout(5.0)
    if attempt.ended:
        return
    blocked = gpu_state.startup_failure(world, job)
    if blocked is not None and _broken_rank(world, job) is None:
        rank, node = blocked[0], blocked[1]
        world.end_attempt(job, FAILED, f"rank {rank} on {node} failed at start-up: {blocked[4]}")
        return
    broken = _broken_rank(world, job)
    if broken is not None:
        rank, node, error = broken
        why = f"rank {rank} on {node} failed at start-up: {error}"
        world.end_attempt(job, FAILED, why, blame=_blame(world, node))
        return
    yield world.env.timeout(remaining)
    if attempt.ended or attempt.preempting:
        return
    world.complete(job)
