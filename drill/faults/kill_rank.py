"""kill_rank: the process of one rank is killed, as the kernel's OOM killer does.

Signals: `Out of memory: Killed process ... (python)` in the node's kernel log; the rank dies
with `exitcode: -9, Signals.SIGKILL` and the attempt fails a few seconds later with a
`ChildFailedError` naming the rank and node. The node itself is healthy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target

if TYPE_CHECKING:
    from drill.sim.world import World


class KillRank(FaultBase):
    kind: Literal["kill_rank"] = Field(description="a rank's process is killed")
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: World, fault: KillRank, picks: list[Pick]) -> None:
    for pick in picks:
        node = world.cluster.nodes[str(pick.node)]
        gpu = int(pick.gpu or 0)
        node.kernel_log.append(
            (world.now, f"Out of memory: Killed process {node.pid_base + gpu} (python)")
        )
        for victim, victim_rank in world.jobs_on_gpu(node.name, gpu):
            world.failures.crash(victim, victim_rank, "exitcode: -9, Signals.SIGKILL")


KIND = Kind(
    name="kill_rank",
    spec=KillRank,
    unit="rank",
    fire=fire,
    summary="an OOM kill in the kernel log; the attempt fails with ChildFailedError",
)
