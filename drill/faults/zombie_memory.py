"""zombie_memory: a rank crashes and a process it leaves behind keeps the GPU's memory.

Signals: the rank dies with `error` and the job fails as for any crash. An illegal memory
access is also an MMU fault, so the driver logs Xid 31 naming the rank's pid in the kernel log.
A process the rank forked (a data loader worker that still has the device open) outlives it:
it holds the memory under a pid of its own, belongs to no job, and `gpus` lists it. The next
start-up on that GPU fails with torch's `CUDA out of memory ... Process PID has 74.00 GiB
memory in use`, naming that pid. An automatic restart onto the same node crash-loops.

`kill NODE PID` ends the leftover and frees the memory; a GPU reset is refused while it lives,
as `nvidia-smi -r` refuses. With `killable: false` it is stuck in the driver (D state), SIGKILL
does not end it, and only a reboot frees the memory. A restart that excludes the node avoids it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld
from drill.faults.xids import ILLEGAL_ACCESS, xid_lines

# The Xid the driver logs for an illegal memory access: a GPU memory page fault.
MMU_FAULT_XID = 31


class ZombieMemory(FaultBase):
    kind: Literal["zombie_memory"] = Field(
        description="a crashed rank leaves a process behind that keeps its GPU memory"
    )
    error: str = Field(
        ILLEGAL_ACCESS,
        min_length=1,
        max_length=300,
        description="what the rank raised when it crashed",
    )
    held: int = Field(
        75776, ge=1024, le=81559, description="MiB the leftover process holds, 1024 to 81559"
    )
    killable: bool = Field(
        True,
        description="false: the leftover is stuck in the driver (D state), `kill` cannot end"
        " it and only a reboot frees the memory",
    )
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: FaultWorld, fault: ZombieMemory, picks: list[Pick]) -> None:
    for number, pick in enumerate(picks):
        node = world.cluster.nodes[str(pick.node)]
        index = int(pick.gpu or 0)
        gpu = node.gpus[index]
        rank_pid = world.pid_on_gpu(node.name, index) or node.spawn()
        if fault.error == ILLEGAL_ACCESS:
            for line in xid_lines(gpu.bus_id, MMU_FAULT_XID, rank_pid, index):
                node.kernel_log.append((world.now, line))
        # The leftover was forked by the rank, so its pid is newer than the rank's.
        leftover = node.spawn()
        gpu.held_by = (leftover, fault.held)
        gpu.holder_unkillable = not fault.killable
        picks[number] = replace(pick, pid=leftover)  # what `{fault.ID.pid}` names
        for job, rank in world.jobs_on_gpu(node.name, index):
            world.failures.crash(job, rank, fault.error)


KIND = Kind(
    name="zombie_memory",
    spec=ZombieMemory,
    unit="gpu",
    fire=fire,
    summary="a rank crashes and a process it left behind keeps the memory; restarts there fail"
    " with CUDA OOM",
)
