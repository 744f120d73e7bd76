"""node_down: a node stops responding.

Signals: jobs on it stall; after `cluster.heartbeat_timeout` the node is marked down with a
"not responding" page (critical when the learner's job is on it) and its jobs end with
`node_fail`. With `duration` it comes back by itself; with `persists_after_reboot: true` a
reboot does not fix it and only `swap` helps.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld
from drill.values.fields import Duration


class NodeDown(FaultBase):
    kind: Literal["node_down"] = Field(description="a node stops responding")
    duration: Duration | None = Field(None, description="it comes back by itself after this")
    persists_after_reboot: bool = Field(
        False, description="whether a reboot leaves it down, so only `swap` helps"
    )
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: FaultWorld, fault: NodeDown, picks: list[Pick]) -> None:
    for pick in picks:
        world.failures.node_down(
            str(pick.node), fault.duration, fault.persists_after_reboot, cause=fault.id
        )


KIND = Kind(
    name="node_down",
    spec=NodeDown,
    unit="node",
    fire=fire,
    summary="no heartbeat; the node is marked down and its jobs end node_fail",
)
