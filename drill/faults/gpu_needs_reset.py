"""gpu_needs_reset: a GPU event that a GPU reset clears: an NVLink error (Xid 74), a GSP
timeout (Xid 119), or a row remap recorded and waiting for the next reset (Xid 63).

Signals: the Xid line in the node's kernel log, as the driver prints it. With 74 the rank on
that GPU dies with `CUDA error: uncorrectable NVLink error detected during the execution`; with
119 the GPU stops answering and the rank hangs until the collective timeout. Until
`reset NODE --gpu N` (or a reboot, which includes one) such a GPU is unusable and a start-up on
it fails, so an automatic restart onto the same node crash-loops. A pending remap (63) is not
that: as NVIDIA documents it, the GPU keeps working and new work starts on it; `gpus` shows
`Remapped Rows Pending: Yes` and the next reset applies the remap, whenever that is convenient.
Unlike Xid 79 or 64, nothing has to go back to the vendor.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld
from drill.faults.xids import REMAP_PENDING

LINES = {
    74: "NVLink: fatal error detected on link 5(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
    119: "Timeout after 6s of waiting for RPC response from GPU{index} GSP! Expected function 76"
    " (GSP_RM_CONTROL) (0x20800a4c 0x4).",
    63: REMAP_PENDING,
}
RAISED = {
    74: "CUDA error: uncorrectable NVLink error detected during the execution",
}


class GpuNeedsReset(FaultBase):
    kind: Literal["gpu_needs_reset"] = Field(
        description="a GPU error that `reset` clears: Xid 74, 119 or 63"
    )
    xid: Literal[74, 119, 63] = Field(
        description="74 (NVLink error), 119 (GSP timeout) or 63 (row remap pending)"
    )
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def xid_line(bus_id: str, xid: int, index: int) -> str:
    detail = LINES[xid].format(index=index)
    return f"NVRM: Xid (PCI:{bus_id[:-2]}): {xid}, pid='<unknown>', name=<unknown>, {detail}"


def fire(world: FaultWorld, fault: GpuNeedsReset, picks: list[Pick]) -> None:
    for pick in picks:
        node = world.cluster.nodes[str(pick.node)]
        index = int(pick.gpu or 0)
        gpu = node.gpus[index]
        node.kernel_log.append((world.now, xid_line(gpu.bus_id, fault.xid, index)))
        if fault.xid == 63:
            gpu.remap_pending = True  # the GPU keeps working; the work on it too
            continue
        gpu.broken = True
        gpu.needs_reset = True
        gpu.xid = fault.xid
        for job, rank in world.jobs_on_gpu(node.name, index):
            if fault.xid == 119:
                if job.training:
                    world.failures.stall(job, rank)
            else:
                world.failures.crash(job, rank, RAISED[fault.xid])


KIND = Kind(
    name="gpu_needs_reset",
    spec=GpuNeedsReset,
    unit="gpu",
    fire=fire,
    summary="Xid 74 or 119 on one GPU: the rank dies or hangs and a GPU reset clears it;"
    " or 63, a row remap the next reset applies while the GPU keeps working",
)
