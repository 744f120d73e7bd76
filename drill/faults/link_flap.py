"""link_flap: the uplink of one leaf switch goes down and up.

Signals: the leaf switch logs its uplink going down and up (`fabric LEAF` shows it, with the
port's link-down counter); the nodes' own kernel logs show nothing, since their own links stay
up. Jobs behind the leaf run `slowdown` times slower while it lasts. If the link stays down
longer than InfiniBand's retry window (or the flap has no `duration`), NCCL on a rank behind
the leaf fails within seconds with `transport retry counter exceeded`, and the attempt with it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld
from drill.values.fields import Duration


class LinkFlap(FaultBase):
    kind: Literal["link_flap"] = Field(description="a leaf switch's uplink flaps")
    slowdown: float = Field(
        2.0, ge=1.0, le=100.0, description="step time factor for jobs behind the leaf"
    )
    duration: Duration | None = Field(None, description="the link is stable again after this")
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: FaultWorld, fault: LinkFlap, picks: list[Pick]) -> None:
    for pick in picks:
        _flap(world, fault, str(pick.leaf))


def _flap(world: FaultWorld, fault: LinkFlap, leaf: str) -> None:
    _, members = world.cluster.leaves[leaf]
    for name in members:
        world.cluster.nodes[name].link_events += 6
    cluster = world.cluster
    cluster.uplink_downs[leaf] = cluster.uplink_downs.get(leaf, 0) + 3
    log = cluster.switch_log.setdefault(leaf, [])
    for _ in range(3):
        log.append((world.now, f"{leaf} port 1/33 (uplink): link down"))
        log.append((world.now, f"{leaf} port 1/33 (uplink): link up"))
    # While it lasts, it hits every gang behind the leaf: those running now and those placed
    # there later.
    world.failures.flap_leaf(leaf, fault.id, fault.slowdown, fault.duration)


KIND = Kind(
    name="link_flap",
    spec=LinkFlap,
    unit="leaf",
    fire=fire,
    summary="a leaf's uplink goes down and up; jobs behind it slow down or fail in NCCL",
)
