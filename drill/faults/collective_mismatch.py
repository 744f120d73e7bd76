"""collective_mismatch: new training code takes a different path on some ranks, which issue a
different collective (or the same one with another size) than the rest at the same sequence
number. Every rank waits in its own collective and the gang hangs.

Signals: no rank raises anything; the job's step age grows and the learner's job pages after
five minutes without progress. Unlike a rank stuck outside NCCL (hang_rank, nfs_hang), every
rank enqueued the same number of collectives, so `perf`'s counts agree; a stack dump of an odd
rank shows it in its own collective. At `collective_timeout` every rank's watchdog logs the
collective it timed out in, with its op type and size, and the ranks write the NCCL flight
recorder (`trace JOB`): at the same sequence number the ranks disagree. The code path is in the
job's code version: every attempt on that version hangs again `after_steps` steps into
training, whatever nodes it runs on, until `rollback JOB` runs the previous version.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld

# Collectives whose output has as many elements as their input, as the watchdog line says.
Op = Literal["ALLREDUCE", "BROADCAST"]


class CollectiveMismatch(FaultBase):
    kind: Literal["collective_mismatch"] = Field(
        description="new code on some ranks issues a different collective than the rest"
    )
    op: Op = Field("BROADCAST", description="the collective the odd ranks issue")
    numel: int = Field(1, ge=1, le=2**40, description="its element count (NumelIn)")
    after_steps: int = Field(
        20, ge=1, le=100000, description="a later attempt on the same code hangs this many steps in"
    )
    target: Target = Field(
        Target(), description="the odd ranks; with `job`, a seeded rank (or `rank`)"
    )


@dataclass(frozen=True)
class Divergence:
    """What a code version does wrong, kept on the job: which ranks, with what collective."""

    cause: str  # the fault's id
    version: str
    ranks: tuple[int, ...]
    op: str
    numel: int
    after_steps: int


def fire(world: FaultWorld, fault: CollectiveMismatch, picks: list[Pick]) -> None:
    by_job: dict[str, list[int]] = {}
    for pick in picks:
        if pick.job and pick.rank is not None:
            by_job.setdefault(pick.job, []).append(pick.rank)
    for name, ranks in sorted(by_job.items()):
        job = world.jobs.get(name)
        if job is None:
            continue
        divergence = Divergence(
            fault.id, job.code_version, tuple(sorted(ranks)), fault.op, fault.numel,
            fault.after_steps,
        )  # fmt: skip
        world.failures.diverge(job, divergence)


KIND = Kind(
    name="collective_mismatch",
    spec=CollectiveMismatch,
    unit="rank",
    fire=fire,
    summary="new code issues a different collective on some ranks; the gang hangs, every attempt",
)
