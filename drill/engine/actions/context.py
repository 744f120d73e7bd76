"""What a handler can reach, plus lookups that reject with the closest valid name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from drill.engine.actions.errors import Reject, unknown
from drill.sim.cluster import Node
from drill.sim.jobs import Job

if TYPE_CHECKING:
    from drill.sim.storage import Volume
    from drill.sim.world import World

# Without volumes the checkpoints still sit on shared storage every node mounts (a restart on
# other nodes reads them); only its space and speed are left out of the night.
NO_VOLUMES = (
    "this incident models no storage volumes; checkpoints go to shared storage that every node"
    " reads, and its space and speed are not part of this night"
)


def submitted(job: Job) -> bool:
    """Whether the job has been submitted: the world opens its first attempt at submission.
    Until then another team's job does not exist for the learner (the queue does not show it and
    naming it finds nothing); the learner's own job is theirs to know about."""
    return job.submitted or job.yours


@dataclass
class Context:
    world: World
    hints_shown: list[int] = field(default_factory=list)
    notes: list[tuple[float, str]] = field(default_factory=list)
    # The accepted actions so far, as (verb, lowercased words after it): `hint` skips a hint
    # whose commands the learner has already run.
    done: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    # The parser, handed in by the Drill: handlers sit below it in the layers, and `hint` reads
    # the commands a hint quotes with it. None: no hint is ever taken as done.
    parse: Callable[[str], Any] | None = None
    # True until the first action that is not a plan verb at the night's start: the plan.
    pre_shift: bool = True
    # When the learner last looked at each node (a look verb on it: `health`, `gpus`, ...):
    # the cluster map shows a dead GPU only once a look or a page could have shown it.
    inspected: dict[str, float] = field(default_factory=dict)

    def visible_jobs(self) -> dict[str, Job]:
        return {name: job for name, job in self.world.jobs.items() if submitted(job)}

    def job(self, name: str) -> Job:
        jobs = self.visible_jobs()
        if name in jobs:
            return jobs[name]
        raise unknown("job", name, jobs)

    def learner_job(self) -> Job:
        return self.world.jobs[self.world.incident.learner_job.name]

    def node(self, name: str, *, spares: bool = False) -> Node:
        nodes = self.world.cluster.nodes
        if name in nodes and (spares or nodes[name].in_service):
            return nodes[name]
        raise unknown("node", name, [n for n, node in nodes.items() if spares or node.in_service])

    def volume(self, name: str) -> Volume:
        volumes = self.world.volumes
        if not volumes:
            raise Reject(NO_VOLUMES)
        if name not in volumes:
            raise unknown("volume", name, volumes)
        return volumes[name]

    def clock(self, seconds: float) -> str:
        return self.world.clock.label(seconds)


@dataclass(frozen=True)
class Call:
    """A parsed action with the nodes, jobs and volumes it names looked up in the world: what a
    handler gets. Values are keyed by argument name (`job`, `step`) and option (`--from`); an
    optional one that was not given is None."""

    verb: str
    values: dict[str, Any]
    rest: str = ""

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def get(self, name: str, default: Any = None) -> Any:
        value = self.values.get(name)
        return default if value is None else value


def in_range(value: int, what: str, low: int, high: int) -> int:
    """A bound that depends on the world (a job's ranks, the cluster's GPUs), checked when the
    action runs; the parser has already made sure it is a whole number."""
    if not low <= value <= high:
        raise Reject(f"{what} must be between {low} and {high}, got {value}")
    return value
