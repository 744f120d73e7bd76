"""ib_flap: an InfiniBand link on a leaf switch keeps flapping (a bad cable or optic), and each
flap fails NCCL within seconds, not at the watchdog.

Signals: the leaf switch logs each port going down and up (what a switch or subnet manager view
shows; the nodes' own kernel logs stay quiet, the link is not theirs). Every gang training on a
node behind the leaf when the link drops fails within seconds: a rank's log shows
`NCCL WARN NET/IB : Got completion from peer ... with status=12 ... vendor err 129` and it raises
`NCCL error: ... transport retry counter exceeded`. It recurs every `every` until `duration`
ends (or all night), so a restart onto the same leaf fails again at the next flap. Keep the gang
off the leaf (`cordon-leaf`, `restart --exclude`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld
from drill.values.bounds import HOUR, seconds
from drill.values.fields import Duration

UPLINK_PORT = 33
RAISED = (
    "NCCL error: remote process exited or there was a network error, NET/IB : Got completion"
    " from peer {peer}<51742> with status=12 opcode=0 len=0 vendor err 129 (Send) (transport"
    " retry counter exceeded)"
)
WARN = (
    "NCCL WARN NET/IB : Got completion from peer {peer}<51742> with status=12 opcode=0 len=0"
    " vendor err 129 (Send) localGid ::ffff:{local} remoteGids ::ffff:{peer}"
)


class IbFlap(FaultBase):
    kind: Literal["ib_flap"] = Field(description="an InfiniBand link on a leaf keeps flapping")
    every: Annotated[Duration, seconds(30, 6 * HOUR, "closer flaps are one long outage")] = Field(
        600.0, description="time between flaps, 30s to 6h"
    )
    duration: Duration | None = Field(None, description="it stops flapping after this")
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def _address(world: FaultWorld, node: str) -> str:
    return world.cluster.nodes[node].address


def fire(world: FaultWorld, fault: IbFlap, picks: list[Pick]) -> None:
    for pick in picks:
        world.env.process(_flapping(world, fault, str(pick.leaf)))


def _flapping(world: FaultWorld, fault: IbFlap, leaf: str):
    until = None if fault.duration is None else world.now + fault.duration
    while until is None or world.now <= until:
        _flap_once(world, leaf)
        yield world.env.timeout(fault.every)


def _flap_once(world: FaultWorld, leaf: str) -> None:
    cluster = world.cluster
    cluster.uplink_downs[leaf] = cluster.uplink_downs.get(leaf, 0) + 1
    log = cluster.switch_log.setdefault(leaf, [])  # as link_flap writes it, for `fabric`
    log.append((world.now, f"{leaf} port 1/{UPLINK_PORT} (uplink): link down"))
    log.append((world.now, f"{leaf} port 1/{UPLINK_PORT} (uplink): link up"))
    behind = set(world.cluster.leaves[leaf][1])
    for job in sorted(world.running_jobs(), key=lambda j: j.name):
        attempt = job.current
        if not job.training or attempt is None or not attempt.training or attempt.crashed:
            continue
        on_leaf = [n for n in job.nodes if n in behind]
        if not on_leaf:
            continue
        rank = job.ranks_on(on_leaf[0])[0]
        others = [n for n in job.nodes if n not in behind] or job.nodes
        peer, local = _address(world, others[0]), _address(world, on_leaf[0])
        warn, raised = WARN.format(peer=peer, local=local), RAISED.format(peer=peer)
        world.failures.network_error(job, rank, peer, warn, raised)  # gloo's words on gloo


KIND = Kind(
    name="ib_flap",
    spec=IbFlap,
    unit="leaf",
    fire=fire,
    summary="an IB link behind a leaf flaps again and again; NCCL fails within seconds each time",
)
