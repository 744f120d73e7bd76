"""gpu_xid: one GPU raises an Xid.

Signals: the driver's `NVRM: Xid (PCI:...): CODE, ...` line in the node's kernel log (for 79
followed by `GPU has fallen off the bus.`), and what the code does to the process on that GPU,
from the catalogue in xids.py: the application codes (13, 31, 43) crash it with a CUDA error
and leave the GPU usable; 48, 64, 74, 94 and 95 crash it; 79 and 119 leave the rank hanging
until the collective timeout; 63 only records a row remap and the GPU keeps working. A GPU that
breaks takes no work until it is reset: `reset NODE --gpu N` clears 48, 95 (which apply their
row remap), 74 and 119, and a reboot includes that reset. 64 (the remap failed) and 79 persist,
unless `persists_after_reboot` says otherwise; an attempt placed on a broken GPU fails at
start-up, which is how automatic retries crash-loop.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld
from drill.faults.xids import xid, xid_lines


class GpuXid(FaultBase):
    kind: Literal["gpu_xid"] = Field(description="a GPU raises an Xid")
    xid: int = Field(ge=1, le=200, description="the Xid code, like 79 (fell off the bus) or 13")
    persists_after_reboot: bool | None = Field(
        None, description="whether a reboot leaves the GPU broken (default: by code, 64 and 79)"
    )
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: FaultWorld, fault: GpuXid, picks: list[Pick]) -> None:
    for pick in picks:
        _raise_xid(world, fault, str(pick.node), int(pick.gpu or 0))


def _raise_xid(world: FaultWorld, fault: GpuXid, node_name: str, gpu_index: int) -> None:
    node = world.cluster.nodes[node_name]
    gpu = node.gpus[gpu_index]
    record = xid(fault.xid)
    # The driver names the process on the GPU; an idle GPU's error names whatever touched it.
    pid = world.pid_on_gpu(node_name, gpu_index) or node.spawn()
    for line in xid_lines(gpu.bus_id, fault.xid, pid, gpu_index):
        node.kernel_log.append((world.now, line))
    persists = fault.persists_after_reboot
    if persists is None:
        persists = record.persists
    if record.breaks:
        # A reset clears the GPU only if it clears every fault on it: 79 or 64 win.
        resettable = not gpu.broken or gpu.needs_reset
        gpu.break_down(fault.xid, clears_on_reboot=not persists)
        gpu.needs_reset = resettable and record.reset_clears and not persists
    if record.remap and not persists:
        gpu.remap_pending = True
    for job, rank in world.jobs_on_gpu(node_name, gpu_index):
        if record.effect == "crash":
            world.failures.crash(job, rank, record.error)
        elif record.effect == "hang" and job.training:
            world.failures.stall(job, rank)


KIND = Kind(
    name="gpu_xid",
    spec=GpuXid,
    unit="gpu",
    fire=fire,
    summary="an Xid line in the kernel log; the rank crashes or hangs by code",
)
