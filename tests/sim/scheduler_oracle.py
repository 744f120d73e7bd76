"""The scheduler as it was before the free-GPU index: every pass rebuilds free maps per job.

Kept as the oracle of tests/sim/test_scheduler_oracle.py, never used by the engine. It is the
straightforward reading of the rules (gang in one island, whole nodes for multi-node jobs, best
fit with ties to the node listed first, EASY backfill, priority classes): slow, and obviously
right. drill/sim/scheduler.py must make the same decisions.
"""

from __future__ import annotations

from drill.sim.cluster import Cluster
from drill.sim.jobs import Job
from drill.sim.scheduler import Blocked, Decision

FreeMap = dict[str, list[int]]  # node -> free GPU indexes, usable nodes only
Placement = list[tuple[str, list[int]]]


def free_map(cluster: Cluster, job: Job) -> FreeMap:
    return {
        name: node.free_gpus()
        for name, node in cluster.nodes.items()
        if node.schedulable and name not in job.exclude
    }


def empty_map(cluster: Cluster, job: Job) -> FreeMap:
    """Every usable node as if nothing ran: can this job ever fit, as the cluster stands?"""
    return {
        name: [gpu.index for gpu in node.gpus]
        for name, node in cluster.nodes.items()
        if node.schedulable and name not in job.exclude
    }


def place(cluster: Cluster, job: Job, free: FreeMap) -> Placement | None:
    gpn = cluster.gpus_per_node
    order = list(cluster.nodes)
    if job.world <= gpn:
        fits = [name for name in order if name in free and len(free[name]) >= job.world]
        if not fits:
            return None
        best = min(fits, key=lambda name: (len(free[name]), order.index(name)))
        return [(best, sorted(free[best])[: job.world])]
    if job.world % gpn:
        return None
    need = job.world // gpn
    for members in cluster.islands.values():
        whole = [name for name in members if len(free.get(name, [])) == gpn]
        if len(whole) >= need:
            chosen = whole[:need]
            return [(name, list(range(gpn))) for name in chosen]
    return None


def shape(cluster: Cluster, job: Job) -> str:
    gpn = cluster.gpus_per_node
    if job.world <= gpn:
        return f"{job.world} GPU{'s' if job.world > 1 else ''} on one node"
    return f"{job.world // gpn} whole nodes in one island"


def plan(cluster: Cluster, pending: list[Job], running: list[Job], now: float) -> list[Decision]:
    """Decide, for every pending job in queue order, whether it starts now and if not, why."""
    decisions: list[Decision] = []
    taken: dict[str, set[int]] = {}
    reservation: tuple[float, set[str], Job] | None = None

    def current_free(job: Job) -> FreeMap:
        free = free_map(cluster, job)
        return {n: [g for g in gpus if g not in taken.get(n, set())] for n, gpus in free.items()}

    for job in sorted(pending, key=Job.sort_key):
        if job.held:
            decisions.append(Decision(job, None, "held: `release` lets it schedule", Blocked.HELD))
            continue
        if place(cluster, job, empty_map(cluster, job)) is None:
            decisions.append(Decision(job, None, _never_fits(cluster, job), Blocked.NEVER_FITS))
            continue
        placement = place(cluster, job, current_free(job))
        if placement is not None and reservation is not None:
            shadow_time, reserved, head = reservation
            ends_in_time = now + job.time_limit <= shadow_time
            if not ends_in_time and reserved & {n for n, _ in placement}:
                outside = {n: g for n, g in current_free(job).items() if n not in reserved}
                placement = place(cluster, job, outside)
                if placement is None:
                    behind = f"priority: behind {head.name}"
                    decisions.append(Decision(job, None, behind, Blocked.PRIORITY))
                    continue
        if placement is not None:
            for node, gpus in placement:
                taken.setdefault(node, set()).update(gpus)
            decisions.append(Decision(job, placement))
            continue
        if reservation is None:
            started = [d for d in decisions if d.placement is not None]
            reservation = _reserve(cluster, job, running, started, taken, now)
            needs = f"resources: needs {shape(cluster, job)}"
            decisions.append(Decision(job, None, needs, Blocked.RESOURCES))
        else:
            behind = f"priority: behind {reservation[2].name}"
            decisions.append(Decision(job, None, behind, Blocked.PRIORITY))
    return decisions


def _never_fits(cluster: Cluster, job: Job) -> str:
    everything = {
        name: [g.index for g in node.gpus]
        for name, node in cluster.nodes.items()
        if node.schedulable
    }
    if job.exclude and place(cluster, job, everything) is not None:
        return f"excluded nodes: no placement for {shape(cluster, job)} avoids {', '.join(sorted(job.exclude))}"
    return f"unavailable nodes: not enough usable nodes for {shape(cluster, job)}"


def _reserve(
    cluster: Cluster,
    job: Job,
    running: list[Job],
    started: list[Decision],
    taken: dict[str, set[int]],
    now: float,
) -> tuple[float, set[str], Job]:
    """When and where the blocked head job could start, if running jobs, and the jobs this pass
    started, end at their limits."""
    free = free_map(cluster, job)
    free = {n: [g for g in gpus if g not in taken.get(n, set())] for n, gpus in free.items()}
    ends = [
        (
            (j.current.start if j.current and j.current.start is not None else now) + j.time_limit,
            j.name,
            j.placement,
        )
        for j in running
    ]
    ends += [(now + d.job.time_limit, d.job.name, d.placement) for d in started]
    ends.sort(key=lambda end: (end[0], end[1]))
    for end_time, _, held in ends:
        for node, gpus in held:
            if node in free:
                free[node] = sorted(set(free[node]) | set(gpus))
        placement = place(cluster, job, free)
        if placement is not None:
            return (max(end_time, now), {n for n, _ in placement}, job)
    return (float("inf"), set(cluster.nodes), job)
