"""random_failures: from `at` on, nodes in service fail at random.

An exponential clock with `mtbf` per node (or `cluster.mtbf`): each failure logs
`mce: [Hardware Error]` on the node and takes it down as `node_down` does, for `duration` if
given. It picks its own nodes as it goes, so it has no `target`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Loc, Names, Pick
from drill.faults.world import FaultWorld
from drill.states import NodeState
from drill.values.fields import Duration


class RandomFailures(FaultBase):
    kind: Literal["random_failures"] = Field(description="nodes fail at random from `at` on")
    mtbf: Duration | None = Field(
        None, description="mean time between failures per node (default: cluster.mtbf)"
    )
    duration: Duration | None = Field(None, description="each failed node returns after this")


def fire(world: FaultWorld, fault: RandomFailures, picks: list[Pick]) -> None:
    mtbf = fault.mtbf or world.incident.cluster.mtbf
    if mtbf:
        world.env.process(_failing(world, fault, mtbf))


def _failing(world: FaultWorld, fault: RandomFailures, mtbf: float):
    rng = world.rng(f"random-failures:{fault.id}")
    count = 0
    while True:
        if not _live(world):
            return
        yield world.env.timeout(rng.expovariate(len(_live(world)) / mtbf))
        live = _live(world)
        if not live:
            return
        node = live[rng.randrange(len(live))]
        world.faults.record_pick(fault.id, Pick(node=node.name, leaf=node.leaf, gpu=0))
        node.kernel_log.append((world.now, "mce: [Hardware Error]: Machine check events logged"))
        count += 1
        world.failures.node_down(
            node.name, fault.duration, persists=False, cause=f"{fault.id}#{count}"
        )


def _live(world: FaultWorld):
    return [n for n in world.cluster.in_service() if n.responsive and n.state == NodeState.UP]


def check(fault: RandomFailures, names: Names) -> list[tuple[Loc, str]]:
    if fault.mtbf or names.cluster_mtbf:
        return []
    return [((), "random_failures needs `mtbf:` here or in `cluster`")]


KIND = Kind(
    name="random_failures",
    spec=RandomFailures,
    unit="cluster",
    fire=fire,
    summary="machine check errors at random; nodes go down at the MTBF",
    check=check,
)
