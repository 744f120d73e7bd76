"""kill_rank: the process of one rank is killed, as the kernel's OOM killer does.

Signals: `Out of memory: Killed process ... (python) total-vm:... oom_score_adj:0` in the node's
kernel log; the rank's log just stops, and a few seconds later torchrun logs `failed (exitcode: -9)` and the attempt fails
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


def oom_kill_line(pid: int) -> str:
    """The kernel's oom_kill line for a training rank, with its memory counters. A CUDA
    process maps far more address space than it touches, so total-vm dwarfs anon-rss; the
    numbers vary with the pid so two kills never read alike."""
    rss = (180 + pid % 40) * 1048576 + pid % 1000 * 4
    return (
        f"Out of memory: Killed process {pid} (python) total-vm:{rss + 310 * 1048576}kB,"
        f" anon-rss:{rss}kB, file-rss:{85000 + pid % 97 * 4}kB, shmem-rss:{12288 + pid % 13 * 4}kB,"
        f" UID:1000 pgtables:{410000 + pid % 89 * 4}kB oom_score_adj:0"
    )


def fire(world: FaultWorld, fault: KillRank, picks: list[Pick]) -> None:
    for pick in picks:
        node = world.cluster.nodes[str(pick.node)]
        gpu = int(pick.gpu or 0)
        pid = world.pid_on_gpu(node.name, gpu) or node.spawn()
        node.kernel_log.append((world.now, oom_kill_line(pid)))
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
