"""The full visible state for one UI frame: plain data, cheap to build, read-only.

Only what an operator could see is here. Fault identities and the noise flag never are.
"""

from __future__ import annotations

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


def build_snapshot(world: World, learner: Job, night_end: float, over: bool) -> Snapshot:
    """The frame at the world's present. The night's end and whether it is over are the engine's
    rules (drill/engine/drill.py), handed in so this module stays below the engine it serves."""
    nodes = []
    for node in world.cluster.nodes.values():
        owners = {gpu: job for job, gpus in node.allocations.items() for gpu in gpus}
        gpus = tuple(
            GpuView(g.index, owners.get(g.index), g.broken and _broken_visible(node))
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


def _broken_visible(node) -> bool:
    """A dead GPU shows on the map the way DCGM exporters show it: once the node's health
    agent has reported it, which it does with the Xid in the kernel log."""
    return any("Xid" in text for _, text in node.kernel_log)
