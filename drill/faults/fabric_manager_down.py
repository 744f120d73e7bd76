"""fabric_manager_down: the NVSwitch fabric manager on a node is not running, so CUDA cannot
initialise: every start-up there fails with `CUDA error: system not yet initialized` (error
802). Running work keeps running.

With `after_reboot: true` (the default) it happens the way it usually does: the service fails
to start when the node next reboots (a person's `reboot`, or any reboot), and the kernel log
says `nvidia-fabricmanager.service: Failed with result 'exit-code'.` With `after_reboot: false`
it stops now. Another reboot starts it again; until then, keep work off the node.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld


class FabricManagerDown(FaultBase):
    kind: Literal["fabric_manager_down"] = Field(
        description="the NVSwitch fabric manager is not running on a node"
    )
    after_reboot: bool = Field(
        True, description="it fails to start at the node's next reboot (true) or stops now"
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
            node.kernel_log.append(
                (world.now, "systemd[1]: nvidia-fabricmanager.service: Main process exited")
            )


KIND = Kind(
    name="fabric_manager_down",
    spec=FabricManagerDown,
    unit="node",
    fire=fire,
    summary="the fabric manager is down on a node; start-ups there fail with CUDA error 802",
)
