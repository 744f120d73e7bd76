"""zombie_memory: a rank crashes and its process does not let go of the GPU's memory.

Signals: the rank dies with `error` and the job fails as for any crash; the process is gone
but the memory stays in use, so the next start-up on that GPU fails with torch's
`CUDA out of memory ... Process PID has 74.00 GiB memory in use`, naming the dead rank's pid.
An automatic restart onto the same node crash-loops. `reset NODE --gpu N` (once nothing runs on
that GPU) or a reboot frees it; a restart that excludes the node avoids it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld


class ZombieMemory(FaultBase):
    kind: Literal["zombie_memory"] = Field(
        description="a crashed rank's process keeps its GPU memory"
    )
    error: str = Field(
        "CUDA error: an illegal memory access was encountered",
        min_length=1,
        max_length=300,
        description="what the rank raised when it crashed",
    )
    held: int = Field(
        75776, ge=1024, le=81559, description="MiB the dead process still holds, 1024 to 81559"
    )
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: FaultWorld, fault: ZombieMemory, picks: list[Pick]) -> None:
    for pick in picks:
        node = world.cluster.nodes[str(pick.node)]
        index = int(pick.gpu or 0)
        node.gpus[index].held_by = (node.pid_base + index, fault.held)
        for job, rank in world.jobs_on_gpu(node.name, index):
            world.failures.crash(job, rank, fault.error)


KIND = Kind(
    name="zombie_memory",
    spec=ZombieMemory,
    unit="gpu",
    fire=fire,
    summary="a rank crashes and its memory stays held; restarts there fail with CUDA OOM",
)
