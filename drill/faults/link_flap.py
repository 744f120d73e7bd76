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
    world.failures.slow_leaf(leaf, fault.slowdown)
    for job in list(world.running_jobs()):
        behind = [n for n in job.nodes if world.cluster.nodes[n].leaf == leaf]
        if not behind or not job.training:
            continue
        if fault.duration is None or fault.duration >= job.collective_timeout:
            world.failures.stall(job, job.ranks_on(behind[0])[0], clears_after=fault.duration)
        elif job.yours:
            world.env.process(world.failures.slow_alert(job, fault.slowdown))
    if fault.duration is not None:
        world.env.process(_settles(world, leaf, fault.duration))


def _settles(world: World, leaf: str, delay: float):
    yield world.env.timeout(delay)
    world.failures.restore_leaf(leaf)


KIND = Kind(
    name="link_flap",
    spec=LinkFlap,
    unit="leaf",
    fire=fire,
    summary="link down/up behind one leaf; jobs behind it slow down or stall",
)
