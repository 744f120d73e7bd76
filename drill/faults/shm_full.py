"""shm_full: /dev/shm on a node is full (stale NCCL segments from crashed jobs, a leaky data
loader), so NCCL cannot create its shared memory segment.

Signals: running gangs are unaffected (their segments exist); the next start-up of a multi-GPU
job on the node fails at once: its log shows NCCL's `misc/shmutils.cc` warnings (`failed to
extend /dev/shm/nccl-XXXXXX`, `Error while creating shared memory segment`, `No space left on
device (28)`), and the rank raises c10d's `unhandled system error ... ncclSystemError ... Last
error:`. On the gloo backend the rank raises torch's own `unable to write to file </torch_...>`
instead (gloo needs no /dev/shm; torch's shared tensors do). `df` (the shared volumes) shows
nothing. A reboot empties /dev/shm; a restart that excludes the node avoids it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld


class ShmFull(FaultBase):
    kind: Literal["shm_full"] = Field(description="/dev/shm on a node fills up")
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: FaultWorld, fault: ShmFull, picks: list[Pick]) -> None:
    for pick in picks:
        world.cluster.nodes[str(pick.node)].shm_full = True


KIND = Kind(
    name="shm_full",
    spec=ShmFull,
    unit="node",
    fire=fire,
    summary="/dev/shm full on a node; NCCL fails at the next start-up there",
)
