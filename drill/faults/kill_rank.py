"""kill_rank: the process of one rank is killed, as the kernel's OOM killer does.

Signals: `Out of memory: Killed process ... (python)` in the node's kernel log; the rank's log
just stops, and a few seconds later torchrun logs `failed (exitcode: -9)` and the attempt fails
with a `ChildFailedError` naming the rank, its host and `Signal 9 (SIGKILL)`. The node itself
is healthy.
"""

from __future__ import annotations

import signal
from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld


class KillRank(FaultBase):
    kind: Literal["kill_rank"] = Field(description="a rank's process is killed")
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: FaultWorld, fault: KillRank, picks: list[Pick]) -> None:
    for pick in picks:
        node = world.cluster.nodes[str(pick.node)]
        gpu = int(pick.gpu or 0)
        pid = world.pid_on_gpu(node.name, gpu) or node.spawn()
        node.kernel_log.append((world.now, f"Out of memory: Killed process {pid} (python)"))
        for victim, victim_rank in world.jobs_on_gpu(node.name, gpu):
            # A SIGKILLed process prints nothing: only the launcher says how it ended.
            world.failures.crash(victim, victim_rank, "", exitcode=-int(signal.SIGKILL))


KIND = Kind(
    name="kill_rank",
    spec=KillRank,
    unit="rank",
    fire=fire,
    summary="an OOM kill in the kernel log; the attempt fails with ChildFailedError",
)
