"""fabric_manager_down: the NVSwitch fabric manager on a node is not running, so the GPUs never
join the NVLink fabric and CUDA cannot initialise: every start-up there fails at its first CUDA
call with torch's `Error 802: system not yet initialized`, and no process gets a context on
those GPUs. Running work keeps running.

With `after_reboot: true` (the default) it happens the way it usually does: the driver was
upgraded in place and the fabric manager package was not, so at the node's next boot (a
person's `reboot`, or any reboot) the new kernel module loads and the fabric manager refuses
it. Its journal (`systemctl NODE nvidia-fabricmanager`) says the versions do not match, and
every later boot fails the same way: a reboot is not the fix. The node goes out for repair
(`swap`) or stays out of the job's way. With `after_reboot: false` the daemon exits now; the
next boot starts it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.units import FABRIC_MANAGER, crash_lines
from drill.faults.world import FaultWorld


class FabricManagerDown(FaultBase):
    kind: Literal["fabric_manager_down"] = Field(
        description="the NVSwitch fabric manager is not running on a node"
    )
    after_reboot: bool = Field(
        True,
        description="it fails to start at the node's next boot and every boot after (true),"
        " or stops now and starts again at the next boot (false)",
    )
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: FaultWorld, fault: FabricManagerDown, picks: list[Pick]) -> None:
    for pick in picks:
        node = world.cluster.nodes[str(pick.node)]
        if fault.after_reboot:
            node.fabric_manager_fails_on_boot = True
        else:
            node.fabric_manager_up = False
            # systemd's words, in the unit's journal: the kernel ring buffer says nothing.
            lines = node.journal.setdefault(FABRIC_MANAGER, [])
            lines += [(world.now, line) for line in crash_lines()]


KIND = Kind(
    name="fabric_manager_down",
    spec=FabricManagerDown,
    unit="node",
    fire=fire,
    summary="the fabric manager is down on a node; start-ups there fail with CUDA error 802",
)
