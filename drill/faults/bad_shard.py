"""bad_shard: a stretch of the training data stream goes bad (a shard whose join lost its key,
so every sample carries another sample's labels): the data that steps `first_step` to
`first_step + steps - 1` of an undisturbed run read.

It strikes the data, not a node: whoever trains on those batches trains on them. The stream is
read in order, so the job meets the bad stretch at step `first_step` (steps count from 1, as
the job's log numbers them). Nothing pages: the loss in the job's step lines jumps while it trains on the stretch and comes down after it,
and the weights keep the damage. With the replica the corrupt samples are real (rotated
deterministically from the night's seed) and the loss is what the model really got; the `sim`
backend follows the job's data position and counts progress only from the last step that
trained on bad data (drill/sim/runner.py), an estimate, so a night about this fault sets
`expect.backend: replica`.
`restart JOB --from STEP --skip A-B` resumes from a checkpoint and skips the stretch.
`{fault.ID.step}` is `first_step`.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, JobTarget, Kind, Loc, Names, Pick
from drill.faults.targets import suggest
from drill.faults.world import FaultWorld


class BadShard(FaultBase):
    kind: Literal["bad_shard"] = Field(description="a stretch of the data stream goes bad")
    target: JobTarget = Field(JobTarget(), description="the job whose data stream it is")
    first_step: int = Field(
        ge=1, le=100_000, description="the first step of an undisturbed run that reads bad data"
    )
    steps: int = Field(ge=1, le=10_000, description="how many steps in a row read bad data")


def select(world: FaultWorld, fault: BadShard, rng: random.Random) -> list[Pick]:
    name = fault.target.job or world.incident.learner_job.name
    return [Pick(job=name, step=fault.first_step)] if name in world.jobs else []


def fire(world: FaultWorld, fault: BadShard, picks: list[Pick]) -> None:
    seed = world.rng(f"bad_shard:{fault.id}").randrange(2**31)
    last = fault.first_step + fault.steps - 1
    for pick in picks:
        world.jobs[str(pick.job)].bad_data.append((fault.first_step, last))
        world.training.corrupt_data(str(pick.job), fault.first_step, last, seed)


def check(fault: BadShard, names: Names) -> list[tuple[Loc, str]]:
    job = fault.target.job
    if job is None or job in names.jobs:
        return []
    return [(("target", "job"), f"no job named {job!r}; {suggest(job, set(names.jobs))}")]


KIND = Kind(
    name="bad_shard",
    spec=BadShard,
    unit="cluster",
    fire=fire,
    summary="silent: the job's loss jumps while it trains on a bad stretch of its data",
    check=check,
    select=select,
)
