"""The rules the world keeps whatever an incident or a learner does.

`check_placement` guards every placement as it is made (start_attempt calls it): a broken one is
a bug in the engine, so it raises instead of letting a night run on impossible hardware.
`broken_rules` reads the whole world and lists every rule that does not hold right now; the
property tests call it after every event of random nights.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drill.sim.jobs import RUNNING
from drill.states import NodeState

if TYPE_CHECKING:
    from drill.sim.jobs import Job
    from drill.sim.world_view import SimWorld as World

Placement = list[tuple[str, list[int]]]


class InvariantBroken(AssertionError):
    """The engine broke a rule of the world: a bug in drill, never the learner's doing."""


def placement_problems(world: World, job: Job, placement: Placement) -> list[str]:
    cluster = world.cluster
    problems = []
    names = [name for name, _ in placement]
    if len(set(names)) != len(names):
        problems.append(f"{job.name} is placed on a node twice: {names}")
    ranks = sum(len(gpus) for _, gpus in placement)
    if ranks != job.world:
        problems.append(f"{job.name} has {job.world} ranks but holds {ranks} GPUs")
    islands = {cluster.nodes[name].island for name in names}
    if len(islands) > 1:
        problems.append(f"{job.name} spans islands {sorted(islands)}")
    for name, gpus in placement:
        node = cluster.nodes[name]
        if not node.schedulable:
            problems.append(f"{job.name} placed on {name}, which is {node.state}")
        if name in job.exclude:
            problems.append(f"{job.name} placed on {name}, which it excludes")
        if len(set(gpus)) != len(gpus) or not set(gpus) <= set(node.free_gpus()):
            problems.append(f"{job.name} placed on GPUs {gpus} of {name}, not all free")
        if len(names) > 1 and len(gpus) != cluster.gpus_per_node:
            problems.append(f"{job.name} spans nodes but takes part of {name}")
    return problems


def check_placement(world: World, job: Job, placement: Placement) -> None:
    problems = placement_problems(world, job, placement)
    if problems:
        raise InvariantBroken("; ".join(problems))


def broken_rules(world: World) -> list[str]:
    cluster = world.cluster
    problems: list[str] = []
    holder: dict[tuple[str, int], str] = {}
    for node in cluster.nodes.values():
        for job_name, gpus in node.allocations.items():
            for gpu in gpus:
                key = (node.name, gpu)
                if key in holder:
                    problems.append(f"GPU {gpu} of {node.name} holds {holder[key]} and {job_name}")
                holder[key] = job_name
            if world.jobs[job_name].state != RUNNING:
                state = world.jobs[job_name].state
                problems.append(f"{job_name} is {state} but still holds GPUs on {node.name}")
    for job in world.jobs.values():
        if job.state != RUNNING:
            continue
        names = job.nodes
        islands = {cluster.nodes[name].island for name in names}
        if len(islands) > 1:
            problems.append(f"{job.name} runs across islands {sorted(islands)}")
        for name in names:
            node = cluster.nodes[name]
            if name in job.exclude:
                problems.append(f"{job.name} runs on {name}, which it excludes")
            if node.state in (NodeState.DOWN, NodeState.REBOOTING) or not node.in_service:
                problems.append(f"{job.name} runs on {name}, which is {node.state}")
        kept, fresh = world.step_factor(job), world.fresh_step_factor(job)
        if kept != fresh:
            problems.append(f"{job.name} steps at {kept}x, but its GPUs and leaves say {fresh}x")
    # The pass reads a queue kept as jobs change: every waiting job filed as it is now.
    problems.extend(world.filing_problems())
    # Exposure's ticks read the records still active, kept apart as evidence comes and goes.
    problems.extend(world.exposure_problems())
    return problems


def checkpoints_disagree(world: World, job: Job, on_disk: set[int]) -> list[str]:
    """The catalog is what exists on disk: a backend's own files must be exactly those steps."""
    listed = {record.step for record in job.checkpoints.live()}
    if listed == on_disk:
        return []
    return [
        f"{job.name}: the catalog lists {sorted(listed)}, the backend's disk holds {sorted(on_disk)}"
    ]
