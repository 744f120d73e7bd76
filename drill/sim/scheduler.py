"""Gang placement, priority classes with FIFO inside a class, EASY backfill, pending reasons.

A job wider than one node takes whole nodes inside one fabric island, all ranks or none. A job
that fits on one node takes the tightest node that fits (best fit), so big holes stay big.
Backfill follows Slurm's EASY rule: the first blocked job gets a reservation at the earliest time
running jobs' time limits free enough nodes; a later job may start now only if it ends before
that time or stays off the reserved nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

from drill.sim import free_index
from drill.sim.cluster import Cluster
from drill.sim.free_index import Overlay, Scratch
from drill.sim.jobs import Job

FreeMap = dict[str, list[int]]  # node -> free GPU indexes, usable nodes only
Placement = list[tuple[str, list[int]]]
End = tuple[float, str, Placement]  # a running job's end at its limit, its name, its GPUs


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
    if job.world <= gpn:
        # Nodes in the cluster's order, so the first of the tightest wins the tie.
        fits = [name for name in cluster.nodes if name in free and len(free[name]) >= job.world]
        if not fits:
            return None
        best = min(fits, key=lambda name: len(free[name]))
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


class Blocked(Enum):
    """Why a pending job did not start: what the scheduler decided, apart from how it reads."""

    HELD = "held"
    NEVER_FITS = "never fits"  # not with the usable nodes as they stand
    RESOURCES = "resources"  # it fits, once enough running work ends: it holds the reservation
    PRIORITY = "priority"  # behind the job that holds the reservation


@dataclass
class Decision:
    job: Job
    placement: Placement | None
    reason: str = ""  # what `queue` shows
    blocked: Blocked | None = None  # None when it starts now


def plan(
    cluster: Cluster,
    pending: list[Job],
    running: list[Job] | Callable[[], list[Job]],
    now: float,
) -> list[Decision]:
    """Decide, for every pending job in queue order, whether it starts now and if not, why.

    The rules are the ones `place` states on free maps; the pass reads them from the cluster's
    free-GPU index (drill/sim/free_index.py) instead of rebuilding a map per job, so a pass costs
    the jobs it looks at, not jobs times nodes. tests/sim/scheduler_oracle.py keeps the map
    version, and a property test holds the two to the same decisions. `running` may be a
    function: only a pass with a blocked job reads it (for the reservation)."""
    index = free_index.of(cluster)
    with index.scratch() as scratch:
        return _plan_on(scratch, cluster, pending, running, now)


def _plan_on(
    scratch: Scratch,
    cluster: Cluster,
    pending: list[Job],
    running: list[Job] | Callable[[], list[Job]],
    now: float,
) -> list[Decision]:
    index = scratch.index
    decisions: list[Decision] = []
    taken: dict[str, set[int]] = {}
    reservation: Reservation | None = None
    # Free space only shrinks during a pass: a shape that found no room finds none later.
    no_room: set[tuple[int, frozenset[int]]] = set()

    full = scratch.none_free()  # no usable node has a free GPU left in this pass
    behind = ""  # the reason of every job waiting behind the reservation
    for job in sorted(pending, key=Job.sort_key):
        if job.held:
            decisions.append(Decision(job, None, "held: `release` lets it schedule", Blocked.HELD))
            continue
        skip = index.positions(job.exclude) if job.exclude else NOTHING
        key = (job.world, skip)
        if reservation is not None and key in no_room:
            # Behind the reservation, in a shape that found no room this pass (so one that can
            # fit the usable nodes): it waits, as the full reading below would also find.
            decisions.append(Decision(job, None, behind, Blocked.PRIORITY))
            continue
        if not index.ever_fits(job.world, skip):
            decisions.append(Decision(job, None, _never_fits(cluster, job), Blocked.NEVER_FITS))
            continue
        if full and reservation is not None and job.world > 0:
            decisions.append(Decision(job, None, behind, Blocked.PRIORITY))  # nothing is free
            continue
        placement = None if key in no_room else find(scratch, job, skip, taken)
        if placement is None:
            no_room.add(key)
        elif reservation is not None:
            ends_in_time = now + job.time_limit <= reservation.shadow_time
            if not ends_in_time and reservation.nodes & {n for n, _ in placement}:
                placement = find(scratch, job, skip | reservation.positions, taken)
                if placement is None:
                    decisions.append(Decision(job, None, behind, Blocked.PRIORITY))
                    continue
        if placement is not None:
            for node, gpus in placement:
                taken.setdefault(node, set()).update(gpus)
                scratch.adjust(index.pos[node], -len(gpus))
            full = scratch.none_free()
            decisions.append(Decision(job, placement))
            continue
        if reservation is None:
            if callable(running):
                running = running()
            started = [
                (now + d.job.time_limit, d.job.name, d.placement)
                for d in decisions
                if d.placement is not None
            ]
            reservation = _reserve(scratch, job, skip, running, now, started)
            behind = f"priority: behind {job.name}"
            needs = f"resources: needs {shape(cluster, job)}"
            decisions.append(Decision(job, None, needs, Blocked.RESOURCES))
        else:
            decisions.append(Decision(job, None, behind, Blocked.PRIORITY))
    return decisions


NOTHING: frozenset[int] = frozenset()


@dataclass
class Reservation:
    """EASY backfill's promise to the first blocked job: these nodes, from this time."""

    shadow_time: float
    nodes: set[str]
    positions: frozenset[int]
    head: Job


def find(
    scratch: Scratch | Overlay,
    job: Job,
    skip: frozenset[int],
    taken: dict[str, set[int]] | None = None,
) -> Placement | None:
    """`place`'s rules on the index: best fit on one node, or the first island with enough
    wholly free nodes. `taken` holds the GPUs this pass already gave out."""
    index = scratch.index
    gpn = scratch.gpn
    if job.world <= gpn:
        position = scratch.best_node(job.world, skip)
        if position is None:
            return None
        name = index.names[position]
        held = taken.get(name, ()) if taken else ()
        free = [g for g in index.cluster.nodes[name].free_gpus() if g not in held]
        return [(name, sorted(free)[: job.world])]
    if job.world % gpn:
        return None
    names = scratch.whole_nodes(job.world // gpn, skip)
    if names is None:
        return None
    return [(name, list(range(gpn))) for name in names]


def fits(scratch: Scratch, job: Job, skip: frozenset[int]) -> bool:
    return find(scratch, job, skip) is not None


def _reserve(
    scratch: Scratch,
    job: Job,
    skip: frozenset[int],
    running: list[Job],
    now: float,
    started: list[End],
) -> Reservation:
    """When and where the blocked head job could start, if running jobs end at their limits.

    Running jobs give their GPUs back in the order their limits run out; nothing fitted before,
    so a fit can only appear on the nodes the latest one gave back. `started`: the jobs this
    pass has started so far (their GPUs are taken in `scratch`; they end by now plus their
    limits like any running job)."""
    ends: list[End] = list(started)
    for j in running:
        last = j.attempts[-1] if j.attempts else None
        began = last.start if last is not None and not last.ended else None
        ends.append((((now if began is None else began) + j.time_limit), j.name, j.placement))
    ends.sort(key=lambda entry: (entry[0], entry[1]))
    return _reserve_from(scratch, job, skip, ends, now)


def _reserve_from(
    scratch: Scratch, job: Job, skip: frozenset[int], ends: Iterable[End], now: float
) -> Reservation:
    """`_reserve` on the ends of running jobs (and of this pass's starts) sorted by (end, name):
    their GPUs given back on an overlay of `scratch`, in end order, until `job` fits."""
    trial = Overlay(scratch)
    index = trial.index
    gpn = trial.gpn
    single = job.world <= gpn
    need = job.world // gpn
    give_back, free, member = trial.give_back, trial.free, index.member
    world = job.world
    # The head fits nowhere now, so it can first fit where an end raised a node's free count:
    # on that node, or (a gang) in the island of a node the end made wholly free.
    for end_time, _, placement_held in ends:
        raised = give_back(placement_held, skip)
        if not raised:
            continue
        if single:
            newly = any(free(p) >= world for p in raised)
        else:
            islands = {member[p][0] for p in raised if p in member and free(p) == gpn}
            newly = any(trial.island_has_whole(i, need, skip) for i in sorted(islands))
        if not newly:
            continue
        placement = find(trial, job, skip)
        if placement is not None:
            nodes = {n for n, _ in placement}
            return Reservation(max(end_time, now), nodes, index.positions(nodes), job)
    return Reservation(float("inf"), set(index.names), frozenset(range(len(index.names))), job)


def _never_fits(cluster: Cluster, job: Job) -> str:
    everything = {
        name: [g.index for g in node.gpus]
        for name, node in cluster.nodes.items()
        if node.schedulable
    }
    if job.exclude and place(cluster, job, everything) is not None:
        return f"excluded nodes: no placement for {shape(cluster, job)} avoids {', '.join(sorted(job.exclude))}"
    return f"unavailable nodes: not enough usable nodes for {shape(cluster, job)}"
