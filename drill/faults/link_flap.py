"""link_flap: a leaf switch keeps resetting, and every link on it goes down and up.

A leaf whose ports all drop at once is the switch itself (its firmware, a power supply), not a
cable: every node behind it loses its links together, so a gang whose nodes all sit behind the
one leaf fails as surely as one that crosses it. (An uplink alone would not do that: traffic
between two nodes on the same leaf never leaves it, and the subnet manager routes around one
uplink of many.)

Signals: the subnet manager logs the leaf's ports going down and up each time it flaps, for as
long as it flaps (`fabric LEAF` shows it, with the count); `ibstat` on any node behind it shows
LinkDownedCounter climbing on every port at once with no symbol errors, as the cables are fine.
Jobs behind the leaf run `slowdown` times slower while it lasts. If the links stay down longer
than InfiniBand's retry window (or the flap has no `duration`), NCCL on a rank behind the leaf
fails within seconds with `transport retry counter exceeded`, and the attempt with it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld
from drill.values.bounds import HOUR, seconds
from drill.values.fields import Duration

# Ports of a leaf: one per HCA of each node behind it, then its uplinks, up to the switch's 64.
SWITCH_PORTS = 64


class LinkFlap(FaultBase):
    kind: Literal["link_flap"] = Field(description="a leaf switch keeps resetting")
    slowdown: float = Field(
        2.0, ge=1.0, le=100.0, description="step time factor for jobs behind the leaf"
    )
    duration: Duration | None = Field(None, description="the leaf is stable again after this")
    every: Annotated[Duration, seconds(30, HOUR, "closer flaps are one long outage")] = Field(
        180.0, description="time between its resets while it flaps, 30s to 1h"
    )
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: FaultWorld, fault: LinkFlap, picks: list[Pick]) -> None:
    for pick in picks:
        leaf = str(pick.leaf)
        # While it lasts, it hits every gang behind the leaf: those running now and those
        # placed there later.
        world.failures.flap_leaf(leaf, fault.id, fault.slowdown, fault.duration)
        world.env.process(_flapping(world, fault, leaf))


def _flapping(world: FaultWorld, fault: LinkFlap, leaf: str):
    """It keeps going down and up, and logging it, until it is stable again."""
    until = None if fault.duration is None else world.now + fault.duration
    while until is None or world.now < until:
        _reset_once(world, leaf)
        yield world.env.timeout(fault.every)


def _reset_once(world: FaultWorld, leaf: str) -> None:
    cluster = world.cluster
    _, members = cluster.leaves[leaf]
    hosts = sum(cluster.nodes[name].gpu_count for name in members)
    for name in members:
        node = cluster.nodes[name]
        node.link_events += 1
        for port in node.hcas:
            port.goes_down()  # a clean drop: the switch went away, the cable is fine
            port.comes_up()
    cluster.uplink_downs[leaf] = cluster.uplink_downs.get(leaf, 0) + 1
    ports = f"ports 1/1-1/{hosts} (hosts) and 1/{hosts + 1}-1/{SWITCH_PORTS} (uplinks)"
    log = cluster.switch_log.setdefault(leaf, [])
    log.append((world.now, f"{leaf} {ports}: link down"))
    log.append((world.now, f"{leaf} {ports}: link up"))


KIND = Kind(
    name="link_flap",
    spec=LinkFlap,
    unit="leaf",
    fire=fire,
    summary="a leaf switch keeps resetting; every link behind it drops, gangs on it fail in NCCL",
)
