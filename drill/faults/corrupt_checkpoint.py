"""corrupt_checkpoint: bit rot or a bad disk changes the bytes of a checkpoint after it was
written.

It strikes the newest good checkpoint of `target.job` (default: the learner's job). Nothing
pages: `ckpt verify` finds it, and so does a resume with `verify_on_resume`; a resume without
the check loads the bad bytes. `{fault.ID.step}` names the corrupted step.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, JobTarget, Kind, Loc, Names, Pick
from drill.faults.targets import suggest
from drill.faults.world import FaultWorld


class CorruptCheckpoint(FaultBase):
    kind: Literal["corrupt_checkpoint"] = Field(description="a checkpoint's bytes change on disk")
    target: JobTarget = Field(JobTarget(), description="the job whose checkpoint is hit")


def select(world: FaultWorld, fault: CorruptCheckpoint, rng: random.Random) -> list[Pick]:
    name = fault.target.job or world.incident.learner_job.name
    job = world.jobs.get(name)
    good = [r for r in job.checkpoints.live() if r.condition == "ok"] if job else []
    return [Pick(job=name, step=good[-1].step)] if good else []


def fire(world: FaultWorld, fault: CorruptCheckpoint, picks: list[Pick]) -> None:
    for pick in picks:
        record = world.jobs[str(pick.job)].checkpoints.get(int(pick.step or 0))
        if record is None:
            continue
        record.condition = "corrupt"
        seed = world.rng(f"corrupt:{fault.id}").randrange(2**31)
        world.training.corrupt(str(pick.job), record.step, seed)


def check(fault: CorruptCheckpoint, names: Names) -> list[tuple[Loc, str]]:
    job = fault.target.job
    if job is None or job in names.jobs:
        return []
    return [(("target", "job"), f"no job named {job!r}; {suggest(job, set(names.jobs))}")]


KIND = Kind(
    name="corrupt_checkpoint",
    spec=CorruptCheckpoint,
    unit="checkpoint",
    fire=fire,
    summary="silent: the newest good checkpoint no longer matches its manifest",
    check=check,
    select=select,
)
