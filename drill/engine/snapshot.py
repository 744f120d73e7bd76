"""The full visible state for one UI frame: plain data, cheap to build, read-only.

Only what an operator could see is here. Fault identities and the noise flag never are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from drill.engine.actions.context import submitted

if TYPE_CHECKING:
    from drill.sim.jobs import Job
    from drill.sim.world import World


@dataclass(frozen=True)
class GpuView:
    index: int
    job: str | None
    broken: bool


@dataclass(frozen=True)
class NodeView:
    name: str
    island: str
    leaf: str | None
    state: str
    responsive: bool
    gpus: tuple[GpuView, ...]
    jobs: tuple[str, ...]


@dataclass(frozen=True)
class JobView:
    name: str
    team: str
    yours: bool
    state: str
    reason: str
    priority: str
    gpus: int
    nodes: tuple[str, ...]
    step: int
    steps: int
    attempts: int
    last_checkpoint: int | None


@dataclass(frozen=True)
class AlertView:
    id: str
    time: float
    severity: str
    source: str
    text: str
    acked: bool


@dataclass(frozen=True)
class Snapshot:
    time: float
    clock: str
    night_end: float
    over: bool
    nodes: tuple[NodeView, ...]
    jobs: tuple[JobView, ...]
    alerts: tuple[AlertView, ...]
    losses: tuple[tuple[int, float], ...]  # the learner's job: (step, loss) as trained


def build_snapshot(
    world: World,
    learner: Job,
    night_end: float,
    over: bool,
    inspected: Mapping[str, float] | None = None,
) -> Snapshot:
    """The frame at the world's present. The night's end and whether it is over are the engine's
    rules (drill/engine/drill.py), handed in so this module stays below the engine it serves;
    so is when the learner last looked at each node (`inspected`), which decides what the map
    may show of a dead GPU."""
    looks = inspected or {}
    nodes = []
    for node in world.cluster.nodes.values():
        owners = {gpu: job for job, gpus in node.allocations.items() for gpu in gpus}
        gpus = tuple(
            GpuView(
                g.index, owners.get(g.index), g.broken and _broken_visible(world, node, g, looks)
            )
            for g in node.gpus
        )
        nodes.append(
            NodeView(
                node.name,
                node.island,
                node.leaf,
                node.state,
                node.responsive,
                gpus,
                tuple(sorted(node.allocations)),
            )
        )
    jobs = []
    for job in world.jobs.values():
        if not submitted(job):
            continue  # another team's job that has not been submitted does not exist yet
        latest = job.checkpoints.latest_step if job.training else None
        jobs.append(
            JobView(
                job.name,
                job.team,
                job.yours,
                job.state,
                job.reason,
                job.priority,
                job.world,
                tuple(job.nodes),
                job.step,
                job.steps,
                len(job.attempts),
                latest,
            )
        )
    alerts = tuple(
        AlertView(a.id, a.time, a.severity, a.source, a.text, a.acked_at is not None)
        for a in world.pager.alerts
    )
    return Snapshot(
        time=world.now,
        clock=world.clock.label(world.now),
        night_end=night_end,
        over=over,
        nodes=tuple(nodes),
        jobs=tuple(jobs),
        alerts=alerts,
        losses=tuple(learner.losses),
    )


def _broken_visible(world: World, node, gpu, looks: Mapping[str, float]) -> bool:
    """Whether the map may mark this broken GPU. A dashboard does not know a GPU died the moment
    it does: the first signal of a dead rank is silence. The map shows it once something the
    learner could read has: a look at the node (`health`, `gpus`) since the driver logged the
    fault, a real page naming the node since then, or the node no longer up (its state says so
    on the map anyway)."""
    if not node.responsive or node.state in ("down", "rebooting"):
        return True
    since = _logged_at(node, gpu)
    if looks.get(node.name, -1.0) >= since:
        return True
    return any(
        alert.time >= since
        and not alert.noise
        and _names(node.name, f"{alert.source} {alert.text}")
        for alert in world.pager.alerts
    )


def _logged_at(node, gpu) -> float:
    """When the driver logged this GPU's fault (its Xid line); 0 when nothing did."""
    pci = f"PCI:{gpu.bus_id[:-2]}"
    return min((t for t, text in node.kernel_log if pci in text and "Xid" in text), default=0.0)


def _names(name: str, text: str) -> bool:
    """The node's name as a word (gpu-a-1 is not in gpu-a-12)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None
