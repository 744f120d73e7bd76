"""Other teams' work, drawn from the seed: the queue is busy, so taking GPUs has a cost."""

from __future__ import annotations

import math
from bisect import bisect_right
from functools import cache
from itertools import accumulate
from typing import TYPE_CHECKING

from drill.sim import free_index
from drill.sim.events import JobStateChanged
from drill.sim.jobs import RUNNING, Job

if TYPE_CHECKING:
    from drill.sim.world_view import SimWorld as World


def start(world: World) -> None:
    spec = world.incident.background
    rng = world.rng("background")  # a variant night redraws it (World.rng)
    counter = [0]
    total = world.cluster.total_gpus()
    target = spec.utilization * total
    busy = sum(len(n.used_gpus()) for n in world.cluster.in_service())
    misses = 0
    # Jobs already running when the night starts: submitted earlier, part way through.
    while busy < target and misses < 20:
        job = _draw(world, rng, counter, submit_time=-rng.uniform(600, 7200))
        job.elapsed_before = rng.uniform(0, job.duration * 0.8)
        world.add_job(job, job.submit_time)
        world.schedule_pass()
        # Nothing frees GPUs while the load is drawn, so only this job can have started.
        if job.state == RUNNING:
            busy += job.world
        else:
            # It did not fit: take it back out rather than leave a wall of pending work.
            world.forget(job)
            misses += 1
    if spec.trace is not None:
        world.env.process(_trace_arrivals(world, spec.trace_jobs))
    elif spec.arrivals_per_hour > 0:
        world.env.process(_arrivals(world, rng, counter))


def _trace_arrivals(world: World, rows: list):
    """The trace's jobs, each at its submit_time into the night, by one process walking the
    rows in time order (ties in file order), not a process per job waiting to be submitted."""
    gpn = world.cluster.gpus_per_node
    length = world.incident.night.length
    for row in sorted(rows, key=lambda r: r.submit):  # sorted() is stable: file order on ties
        if row.submit >= length:
            return
        gpus = math.ceil(row.gpus) * row.instances  # no GPU sharing here: a whole GPU at least
        if gpus == 0:
            continue  # CPU work: the world models GPUs only
        if gpus > gpn and gpus % gpn:
            gpus += gpn - gpus % gpn  # wider than a node: whole nodes, as every gang takes
        if row.submit > world.env.now:
            yield world.env.timeout(row.submit - world.env.now)
        name = f"{row.user}-t{row.job_id}"
        if name in world.jobs:
            name = f"{name}-{world.next_seq()}"
        job = Job(
            name=name,
            team=row.user,
            gpus=gpus,
            priority="normal",
            submit_time=world.env.now,
            time_limit=float(round(row.duration * 1.5)) or 60.0,
            duration=row.duration,
            max_restarts=1,
            restart_backoff=60.0,
        )
        world.add_job(job, job.submit_time)
        world.emit(
            JobStateChanged(
                world.now, job.name, f"{job.name} submitted by {job.team} ({job.gpus} GPUs)"
            )
        )


# Arrivals' random draws are taken several jobs at a time, the same calls in the same order on
# the same stream (a job's draws never depend on the world), so the same jobs arrive: first a
# few (a small night sees only a handful), then twice as many each time, up to BATCH.
FIRST_BATCH, BATCH = 4, 256


def _arrivals(world: World, rng, counter: list[int]):
    spec = world.incident.background
    rate = spec.arrivals_per_hour / 3600.0
    if rate <= 0.0:
        return  # a rate so small it underflows to zero: nothing ever arrives
    length = world.incident.night.length
    timeout, now = world.env.timeout, lambda: world.env.now
    batch = FIRST_BATCH
    while True:
        draws = _draw_batch(rng, rate, spec, batch)
        batch = min(BATCH, 2 * batch)
        for gap, team, size, duration, klass in draws:
            yield timeout(gap)
            if now() >= length:
                return
            job = _job_from(world, counter, now(), team, size, duration, klass)
            world.add_job(job, job.submit_time)
            world.emit(
                JobStateChanged(
                    world.now, job.name, f"{job.name} submitted by {job.team} ({job.gpus} GPUs)"
                )
            )


def _draw_batch(rng, rate: float, spec, count: int) -> list[tuple[float, int, float, float, float]]:
    """`count` arrivals' draws, each in the order one arrival takes them: the gap before it,
    its team, its size (the one random() that Random.choices takes), its duration, its class."""
    expovariate, randrange, random, uniform = (
        rng.expovariate,
        rng.randrange,
        rng.random,
        rng.uniform,
    )
    teams, low, high = len(spec.teams), spec.min_duration, spec.max_duration
    return [
        (expovariate(rate), randrange(teams), random(), uniform(low, high), random())
        for _ in range(count)
    ]


def _draw(world: World, rng, counter: list[int], submit_time: float) -> Job:
    spec = world.incident.background
    team = rng.randrange(len(spec.teams))
    size = rng.random()
    duration = rng.uniform(spec.min_duration, spec.max_duration)
    return _job_from(world, counter, submit_time, team, size, duration, rng.random())


def _job_from(
    world: World,
    counter: list[int],
    submit_time: float,
    team_draw: int,
    size_draw: float,
    duration_draw: float,
    class_draw: float,
) -> Job:
    spec = world.incident.background
    counter[0] += 1
    team = spec.teams[team_draw]
    total = free_index.of(world.cluster).in_service_gpus
    sizes, cum_weights = _sizes(tuple(spec.sizes), total)
    # Random.choices(sizes, weights) with its one draw: small jobs common, wide ones rare, as
    # on most shared clusters (weights 1, 1/2, 1/3, ... over the sizes that fit).
    gpus = sizes[bisect_right(cum_weights, size_draw * (cum_weights[-1] + 0.0), 0, len(sizes) - 1)]
    if gpus > world.cluster.gpus_per_node:
        gpus -= gpus % world.cluster.gpus_per_node
    duration = float(round(duration_draw))
    high = class_draw < spec.high_priority_share
    return Job(
        name=f"{team}-{counter[0]:03d}",
        team=team,
        gpus=gpus,
        priority="high" if high else "normal",
        submit_time=submit_time,
        time_limit=float(round(duration * 1.5)),
        duration=duration,
        max_restarts=1,
        restart_backoff=60.0,
    )


@cache
def _sizes(sizes: tuple[int, ...], total: int) -> tuple[list[int], list[float]]:
    """The sizes that fit `total` GPUs in service (or one GPU), and their cumulative weights
    as Random.choices adds them up."""
    fit = [s for s in sizes if s <= total] or [1]
    return fit, list(accumulate(1.0 / (1 + i) for i in range(len(fit))))
