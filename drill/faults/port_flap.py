"""port_flap: one node's InfiniBand port keeps dropping (a bad cable, optic or HCA), and each
drop that outlasts InfiniBand's retry window fails the gang using it.

The port is the HCA next to GPU `gpu` (mlx5_<gpu>), so the rank on that GPU is the one whose
NCCL transport gives up: its log shows `NCCL WARN NET/IB : Got completion from peer ... status=12
... transport retry counter exceeded`, its watchdog catches the NCCL error and the process aborts.
Signals: `ibstat NODE` shows the port Down while it is down, and at any time its
LinkDownedCounter climbing with symbol and receive errors (a bad physical link); every other
port of the node, and every other node behind the leaf, stays clean. `fabric` shows nothing, as
the leaf itself is fine. It drops every `every` until `duration` ends (or all night), so a
restart onto the same node fails again at its next drop. The fix is that one node: keep the job
off it (`cordon`, `restart --exclude`), not the whole leaf.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld
from drill.values.bounds import HOUR, MINUTE, seconds
from drill.values.fields import Duration

# What each drop adds to the port's error counters: a link that drops for a bad cable or optic
# takes bit errors on the way down and back up.
SYMBOL_ERRORS_PER_DROP = 2113
RCV_ERRORS_PER_DROP = 37


class PortFlap(FaultBase):
    kind: Literal["port_flap"] = Field(description="one node's InfiniBand port keeps dropping")
    every: Annotated[Duration, seconds(60, 6 * HOUR, "closer drops are one long outage")] = Field(
        480.0, description="time between its drops, 1m to 6h"
    )
    down_for: Annotated[
        Duration, seconds(30, 10 * MINUTE, "a shorter drop is retried through by InfiniBand")
    ] = Field(45.0, description="how long each drop lasts, 30s to 10m")
    duration: Duration | None = Field(None, description="it stops dropping after this")
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: FaultWorld, fault: PortFlap, picks: list[Pick]) -> None:
    for pick in picks:
        world.env.process(_flapping(world, fault, str(pick.node), int(pick.gpu or 0)))


def _flapping(world: FaultWorld, fault: PortFlap, node_name: str, index: int):
    until = None if fault.duration is None else world.now + fault.duration
    while until is None or world.now < until:
        port = world.cluster.nodes[node_name].hcas[index]
        _drop(world, fault, node_name, index)
        yield world.env.timeout(fault.down_for)
        port.comes_up()
        yield world.env.timeout(max(0.0, fault.every - fault.down_for))


def _drop(world: FaultWorld, fault: PortFlap, node_name: str, index: int) -> None:
    node = world.cluster.nodes[node_name]
    node.link_events += 1
    node.hcas[index].goes_down(SYMBOL_ERRORS_PER_DROP, RCV_ERRORS_PER_DROP)
    for job, rank in world.jobs_on_gpu(node_name, index):
        attempt = job.current
        if not job.training or attempt is None or not attempt.training or attempt.crashed:
            continue
        cause = f"{fault.id} on {node_name} {node.hcas[index].name}"
        world.failures.link_lost(job, node_name, rank, cause, fault.down_for)


KIND = Kind(
    name="port_flap",
    spec=PortFlap,
    unit="gpu",
    fire=fire,
    summary="one node's IB port keeps dropping; the gang on it fails in NCCL, ibstat shows it",
)
