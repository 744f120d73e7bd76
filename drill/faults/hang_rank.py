"""hang_rank: one rank stops inside a collective and never comes back.

Signals: the rank's log goes silent, the other ranks wait in the all-reduce, the learner's job
pages after five minutes without progress, and at `collective_timeout` every other rank's NCCL
watchdog logs the timed-out collective and aborts; the attempt fails with torchrun's
ChildFailedError naming one of them. `perf JOB` shows the stuck rank's last enqueued collective
lagging, `stack JOB RANK` shows it in a data loader read. `health` shows nothing wrong.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld
from drill.states import JobState


class HangRank(FaultBase):
    kind: Literal["hang_rank"] = Field(description="a rank hangs in a collective")
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: FaultWorld, fault: HangRank, picks: list[Pick]) -> None:
    for pick in picks:
        job = world.jobs.get(pick.job) if pick.job else None
        if job is not None and pick.rank is not None and job.state == JobState.RUNNING:
            world.failures.stall(job, pick.rank, how="hang")


KIND = Kind(
    name="hang_rank",
    spec=HangRank,
    unit="rank",
    fire=fire,
    summary="a rank goes silent; the job hangs until the collective timeout",
)
