"""FIFO with EASY backfill on one pool of units, written from the textbook, for the peer test.

Independent of drill/sim/scheduler.py on purpose: no nodes, no free index, no SimPy. At each
instant something arrives or ends, jobs start from the head of the queue while they fit; the
first that does not gets a reservation at the earliest time running jobs' true ends free enough
units (the shadow time), and a later job may start now if it fits and either ends by the shadow
time or uses only the units the head will not need then (the extra units).
"""

from __future__ import annotations

import heapq


def easy_backfill(jobs: list[tuple[float, int, float]], capacity: int) -> list[float]:
    """Completion minus arrival for each job, in input order. `jobs`: (arrival, units,
    duration), arrivals in order; a job wider than the pool is refused (ValueError)."""
    if any(units > capacity for _, units, _ in jobs):
        raise ValueError("a job is wider than the pool")
    done = [0.0] * len(jobs)
    running: list[tuple[float, int, int]] = []  # (end, index, units), a heap
    queue: list[int] = []
    free = capacity
    upcoming = 0
    while upcoming < len(jobs) or queue or running:
        times = []
        if upcoming < len(jobs):
            times.append(jobs[upcoming][0])
        if running:
            times.append(running[0][0])
        now = min(times)
        while running and running[0][0] <= now:
            _, _, units = heapq.heappop(running)
            free += units
        while upcoming < len(jobs) and jobs[upcoming][0] <= now:
            if jobs[upcoming][1] == 0:
                # No units asked: it fits now and fits any reservation's extra, so it never waits.
                _start(jobs, upcoming, running, now, done)
            else:
                queue.append(upcoming)
            upcoming += 1
        free = _schedule(jobs, queue, running, free, now, done)
    return done


def _start(jobs, index, running, now, done) -> None:
    arrival, units, duration = jobs[index]
    heapq.heappush(running, (now + duration, index, units))
    done[index] = now + duration - arrival


def _schedule(jobs, queue, running, free, now, done) -> int:
    waiting: list[int] = []
    shadow = extra = None
    for position, index in enumerate(queue):
        if shadow is not None and free == 0:
            # Nothing is free: the rest of the queue waits (every queued job asks for units).
            waiting.extend(queue[position:])
            break
        _, units, duration = jobs[index]
        if shadow is None:
            if units <= free:
                _start(jobs, index, running, now, done)
                free -= units
                continue
            # The head is blocked: when do running jobs free enough for it?
            have = free
            for end, _, held in sorted(running):
                have += held
                if have >= units:
                    shadow, extra = end, have - units
                    break
            waiting.append(index)
            continue
        if units <= free and (now + duration <= shadow or units <= extra):
            if now + duration > shadow:
                extra -= units
            _start(jobs, index, running, now, done)
            free -= units
            continue
        waiting.append(index)
    queue[:] = waiting
    return free
