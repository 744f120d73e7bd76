"""Pending jobs grouped by request shape, and running jobs' ends kept sorted, across passes.

A scheduling pass over a long backlog (the peer's trace: thousands of jobs queued for hours)
spent its time visiting every queued job to answer "no room" again. Jobs of one shape (GPUs
asked, nodes excluded) get the same answer while free space only shrinks, which it does during
a pass; so a pass that keeps the queue grouped by shape looks at each shape once it is known not
to fit, not at each job (drill/sim/scheduler.py `plan_starts`).

The two structures are kept by whoever owns the queue (drill/sim/trace_pool.py, drill/sim/world.py):
a job is added when it queues and removed when it starts; a job whose sort key or shape changes
while it waits is removed under what it was filed as and added again.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from dataclasses import dataclass, field

from drill.sim.jobs import Job

Shape = tuple[int, frozenset[str]]


def shape_of(job: Job) -> Shape:
    return (job.world, frozenset(job.exclude))


@dataclass
class Group:
    """The queued jobs of one shape: in queue order, and by time limit (for backfill)."""

    shape: Shape
    keys: list[tuple] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    by_limit: list[tuple[float, tuple]] = field(default_factory=list)
    by_key: dict[tuple, Job] = field(default_factory=dict)

    def add(self, job: Job, key: tuple) -> None:
        at = bisect_left(self.keys, key)
        self.keys.insert(at, key)
        self.jobs.insert(at, job)
        insort(self.by_limit, (job.time_limit, key))
        self.by_key[key] = job

    def remove(self, job: Job, key: tuple) -> None:
        at = bisect_left(self.keys, key)
        del self.keys[at]
        del self.jobs[at]
        del self.by_limit[bisect_left(self.by_limit, (job.time_limit, key))]
        del self.by_key[key]

    def limited(self, limit: float, after: tuple) -> list[tuple[tuple, Job]]:
        """Jobs with a time limit of at most `limit` (a little over, the caller checks exactly)
        queued after `after`, in queue order."""
        cut = bisect_right(self.by_limit, (limit, (float("inf"),)))
        found = [key for _, key in self.by_limit[:cut] if key > after]
        found.sort()
        return [(key, self.by_key[key]) for key in found]


class ShapeQueue:
    """The pending queue, grouped by shape; held jobs wait apart (they never start).

    Each job is filed under the shape and sort key it had when added: a job whose priority,
    hold or excluded nodes change is taken out under what it was filed as and added again
    (the world does it, told by drill/sim/job_fields.py)."""

    def __init__(self) -> None:
        self.groups: dict[Shape, Group] = {}
        self.held: dict[str, Job] = {}
        # name -> (shape, sort key) as filed; the shape is None for a held job.
        self.filed: dict[str, tuple[Shape | None, tuple]] = {}

    def __len__(self) -> int:
        return len(self.filed)

    def __contains__(self, name: str) -> bool:
        return name in self.filed

    def add(self, job: Job) -> None:
        key = job.sort_key()
        if job.held:
            self.held[job.name] = job
            self.filed[job.name] = (None, key)
            return
        shape = shape_of(job)
        group = self.groups.get(shape)
        if group is None:
            group = self.groups[shape] = Group(shape)
        group.add(job, key)
        self.filed[job.name] = (shape, key)

    def remove(self, job: Job) -> None:
        shape, key = self.filed.pop(job.name)
        if shape is None:
            del self.held[job.name]
            return
        group = self.groups[shape]
        group.remove(job, key)
        if not group.jobs:
            del self.groups[shape]

    def discard(self, job: Job) -> None:
        if job.name in self.filed:
            self.remove(job)

    def jobs(self) -> list[Job]:
        """Every queued job in queue order (for tests and the full pass)."""
        every = [job for group in self.groups.values() for job in group.jobs]
        every.extend(self.held.values())
        return sorted(every, key=lambda job: self.filed[job.name][1])


class RunningEnds:
    """Running jobs by the time their limits run out, kept sorted as jobs start and end (EASY
    backfill's shadow time reads them in this order every blocked pass)."""

    def __init__(self) -> None:
        self.entries: list[tuple[float, str]] = []
        self.jobs: dict[str, Job] = {}
        self._end: dict[str, float] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, job: Job, end: float) -> None:
        insort(self.entries, (end, job.name))
        self.jobs[job.name] = job
        self._end[job.name] = end

    def __contains__(self, name: str) -> bool:
        return name in self._end

    def remove(self, job: Job) -> None:
        end = self._end.pop(job.name)
        del self.entries[bisect_left(self.entries, (end, job.name))]
        del self.jobs[job.name]

    def __iter__(self):
        jobs = self.jobs
        for end, name in self.entries:
            yield end, name, jobs[name].placement
