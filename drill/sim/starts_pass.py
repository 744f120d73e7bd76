"""A scheduling pass that finds only the jobs that start, over a queue grouped by shape.

`scheduler.plan` answers every pending job (the world shows each one's reason in `queue`), so a
pass costs the queue's length. A trace-driven pool with thousands queued for hours needs only
what starts, and this pass gets it with the same rules and the same result (a property test holds
it to tests/sim/scheduler_oracle.py) at a cost of the shapes in the queue plus the jobs it starts:

- before the first blocked job, jobs start in queue order (merged from the shapes' heads);
- the first job that finds no room holds EASY backfill's reservation, read from running jobs'
  ends kept sorted across passes (drill/sim/shape_queue.py `RunningEnds`);
- behind it, free space only shrinks, so a shape that found no room is done for the pass; a
  shape whose room lies only on the reserved nodes can start only jobs that end by the shadow
  time, and those come from its jobs sorted by time limit, not from a scan of the shape.
"""

from __future__ import annotations

import heapq

from drill.sim import free_index
from drill.sim.cluster import Cluster
from drill.sim.free_index import Scratch
from drill.sim.jobs import Job
from drill.sim.scheduler import (
    Decision,
    Placement,
    Reservation,
    _reserve_from,
    find,
)
from drill.sim.shape_queue import Group, RunningEnds, ShapeQueue

ALL, SHORT = 0, 1  # behind the reservation: every job of the shape may start, or short ones


def plan_starts(
    cluster: Cluster,
    queue: ShapeQueue,
    ends: RunningEnds,
    now: float,
    never: list[Group] | None = None,
) -> tuple[list[Decision], Job | None]:
    """The jobs that start now, in queue order, and the job that holds the reservation (None
    when nothing is blocked). The caller starts them and takes them out of `queue`. `never`,
    when given, gets the shapes that fit no usable nodes even with nothing running (their
    jobs' reason says why)."""
    index = free_index.of(cluster)
    with index.scratch() as scratch:
        return _plan_starts_on(scratch, queue, ends, now, never)


def _plan_starts_on(
    scratch: Scratch,
    queue: ShapeQueue,
    ends: RunningEnds,
    now: float,
    never: list[Group] | None,
) -> tuple[list[Decision], Job | None]:
    index = scratch.index
    taken: dict[str, set[int]] = {}
    starts: list[Decision] = []

    live: list[tuple[Group, frozenset[int]]] = []
    for group in queue.groups.values():
        world, exclude = group.shape
        skip = index.positions(exclude) if exclude else frozenset()
        if index.ever_fits(world, skip):
            live.append((group, skip))
        elif never is not None:
            never.append(group)

    def take(job: Job, placement: Placement) -> None:
        for node, gpus in placement:
            taken.setdefault(node, set()).update(gpus)
            scratch.adjust(index.pos[node], -len(gpus))
        starts.append(Decision(job, placement))

    # Before the reservation: the queue's order, merged from each shape's head.
    cursor = [0] * len(live)
    heads = [(group.keys[0], g) for g, (group, _) in enumerate(live)]
    heapq.heapify(heads)
    head: Job | None = None
    head_group = -1
    while heads:
        _, g = heapq.heappop(heads)
        group, skip = live[g]
        job = group.jobs[cursor[g]]
        placement = find(scratch, job, skip, taken)
        if placement is None:
            head, head_group = job, g
            break
        take(job, placement)
        cursor[g] += 1
        if cursor[g] < len(group.jobs):
            heapq.heappush(heads, (group.keys[cursor[g]], g))
    if head is None:
        return starts, None
    _, skip = live[head_group]
    # The jobs this pass started end by their limits too, like the running ones.
    started = sorted((now + d.job.time_limit, d.job.name, d.placement) for d in starts)
    merged = heapq.merge(ends, started, key=_end_order) if started else ends
    reservation = _reserve_from(scratch, head, skip, merged, now)
    cursor[head_group] += 1
    _backfill(live, cursor, reservation, scratch, taken, now, take)
    return starts, head


def _end_order(end: tuple) -> tuple[float, str]:
    return end[0], end[1]


def _backfill(live, cursor, reservation: Reservation, scratch, taken, now, take) -> None:
    """Behind the reservation, in queue order: a job starts if it fits and either ends by the
    shadow time or fits off the reserved nodes (scheduler.plan's rule, shape by shape)."""
    shadow = reservation.shadow_time
    # A time limit a little over the exact bound: candidates are checked exactly below.
    limit = shadow - now + 1e-9 * max(1.0, abs(shadow))
    mode = [ALL] * len(live)
    short: list[list] = [[] for _ in live]  # SHORT shapes' candidates, in queue order
    heads: list[tuple[tuple, int]] = []
    for g, (group, _) in enumerate(live):
        if cursor[g] < len(group.jobs):
            heads.append((group.keys[cursor[g]], g))
    heapq.heapify(heads)

    def advance(g: int, after: tuple) -> None:
        group = live[g][0]
        if mode[g] == ALL:
            if cursor[g] < len(group.jobs):
                heapq.heappush(heads, (group.keys[cursor[g]], g))
        elif short[g]:
            heapq.heappush(heads, (short[g][-1][0], g))

    while heads:
        if scratch.none_free():
            # Nothing is free: only a job of no GPUs could still start.
            heads = [(k, g) for k, g in heads if live[g][0].shape[0] == 0]
            heapq.heapify(heads)
            if not heads:
                return
        key, g = heapq.heappop(heads)
        group, skip = live[g]
        if mode[g] == ALL:
            job = group.jobs[cursor[g]]
            cursor[g] += 1
        else:
            key, job = short[g].pop()
        ends_in_time = now + job.time_limit <= shadow
        placement = find(scratch, job, skip, taken)
        if placement is None:
            continue  # no room for this shape for the rest of the pass
        if not ends_in_time and reservation.nodes & {n for n, _ in placement}:
            placement = find(scratch, job, skip | reservation.positions, taken)
            if placement is None:
                # Room only on the reserved nodes, for the rest of the pass: from here on
                # only jobs that end by the shadow time can take it.
                mode[g] = SHORT
                found = group.limited(limit, key)
                short[g] = [(k, j) for k, j in reversed(found) if now + j.time_limit <= shadow]
                advance(g, key)
                continue
        take(job, placement)
        advance(g, key)
