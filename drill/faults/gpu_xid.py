"""gpu_xid: one GPU raises an Xid.

Signals: an `NVRM: Xid (PCI:...): CODE, ...` line in the node's kernel log. Codes that point at
the application (13, 31, 43) crash the process on that GPU with a CUDA error and leave the GPU
usable. Hardware codes break the GPU: 79 (fell off the bus) leaves the rank hanging until the
collective timeout, 48, 94 and 95 crash it. 48 and 79 persist after a reboot unless
`persists_after_reboot` says otherwise; an attempt placed on a broken GPU fails at start-up,
which is how automatic retries crash-loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.xids import (
    APP_XIDS,
    CRASHING_XIDS,
    PERSISTENT_XIDS,
    XID_NAMES,
    XID_PROCESS_ERRORS,
    xid_line,
)

if TYPE_CHECKING:
    from drill.sim.world import World


class GpuXid(FaultBase):
    kind: Literal["gpu_xid"] = Field(description="a GPU raises an Xid")
    xid: int = Field(ge=1, le=200, description="the Xid code, like 79 (fell off the bus) or 13")
    persists_after_reboot: bool | None = Field(
        None, description="whether a reboot leaves the GPU broken (default: by code, 48 and 79)"
    )
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: World, fault: GpuXid, picks: list[Pick]) -> None:
    for pick in picks:
        _raise_xid(world, fault, str(pick.node), int(pick.gpu or 0))


def _raise_xid(world: World, fault: GpuXid, node_name: str, gpu_index: int) -> None:
    node = world.cluster.nodes[node_name]
    gpu = node.gpus[gpu_index]
    xid = fault.xid
    node.kernel_log.append((world.now, xid_line(gpu.bus_id, xid, node.pid_base + gpu_index)))
    persists = fault.persists_after_reboot
    if persists is None:
        persists = xid in PERSISTENT_XIDS
    if xid not in APP_XIDS and xid != 94:
        gpu.break_down(xid, clears_on_reboot=not persists)
    for job, rank in world.jobs_on_gpu(node_name, gpu_index):
        if xid in CRASHING_XIDS or xid not in XID_NAMES:
            world.failures.crash(
                job, rank, XID_PROCESS_ERRORS.get(xid, "CUDA error: unknown error")
            )
        elif job.training:
            world.failures.stall(job, rank)


KIND = Kind(
    name="gpu_xid",
    spec=GpuXid,
    unit="gpu",
    fire=fire,
    summary="an Xid line in the kernel log; the rank crashes or hangs by code",
)
