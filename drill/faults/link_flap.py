"""link_flap: the uplink of one leaf switch goes down and up.

Signals: every node behind the leaf logs `mlx5_core ... Link down` and `Link up`, and jobs
behind it run `slowdown` times slower. If the flap lasts at least the job's
`collective_timeout` (or has no `duration`), jobs behind the leaf stall instead and fail at the
collective timeout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.incident.fields import Duration

if TYPE_CHECKING:
    from drill.sim.world import World


class LinkFlap(FaultBase):
    kind: Literal["link_flap"] = Field(description="a leaf switch's uplink flaps")
    slowdown: float = Field(
        2.0, ge=1.0, le=100.0, description="step time factor for jobs behind the leaf"
    )
    duration: Duration | None = Field(None, description="the link is stable again after this")
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: World, fault: LinkFlap, picks: list[Pick]) -> None:
    for pick in picks:
        _flap(world, fault, str(pick.leaf))


def _flap(world: World, fault: LinkFlap, leaf: str) -> None:
    _, members = world.cluster.leaves[leaf]
    for name in members:
        node = world.cluster.nodes[name]
        node.link_events += 6
        node.kernel_log.append((world.now, "mlx5_core: mlx5_port_change: Link down"))
        node.kernel_log.append((world.now, "mlx5_core: mlx5_port_change: Link up"))
    # While it lasts, it hits every gang behind the leaf: those running now and those placed
    # there later.
    world.failures.flap_leaf(leaf, fault.id, fault.slowdown, fault.duration)


KIND = Kind(
    name="link_flap",
    spec=LinkFlap,
    unit="leaf",
    fire=fire,
    summary="link down/up behind one leaf; jobs behind it slow down or stall",
)
