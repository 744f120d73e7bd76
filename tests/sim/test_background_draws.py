"""Other teams' arrivals drawn in batches are the arrivals drawn one at a time.

drill/sim/background.py takes an arrival's random draws (its gap, team, size, duration and
class) BATCH arrivals ahead, in the order one arrival takes them, and applies the size choice
to the sizes that fit when the job arrives. The straightforward reading, kept here, draws each
arrival's numbers as it comes, with Random.choices for the size. Random nights of both must
submit the same jobs at the same moments.
"""

from __future__ import annotations

from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.sim import background, free_index
from drill.sim.events import JobStateChanged
from drill.sim.jobs import Job
from drill.sim.world import World
from tests.drillkit import build, job_spec


def one_at_a_time(world, rng, counter):
    """background._arrivals as it was: every draw made when its arrival comes."""
    spec = world.incident.background
    rate = spec.arrivals_per_hour / 3600.0
    if rate <= 0.0:
        return
    while True:
        yield world.env.timeout(rng.expovariate(rate))
        if world.env.now >= world.incident.night.length:
            return
        counter[0] += 1
        team = spec.teams[rng.randrange(len(spec.teams))]
        total = free_index.of(world.cluster).in_service_gpus
        sizes = [s for s in spec.sizes if s <= total] or [1]
        gpus = rng.choices(sizes, weights=[1.0 / (1 + i) for i in range(len(sizes))])[0]
        if gpus > world.cluster.gpus_per_node:
            gpus -= gpus % world.cluster.gpus_per_node
        duration = float(round(rng.uniform(spec.min_duration, spec.max_duration)))
        high = rng.random() < spec.high_priority_share
        job = Job(
            name=f"{team}-{counter[0]:03d}",
            team=team,
            gpus=gpus,
            priority="high" if high else "normal",
            submit_time=world.env.now,
            time_limit=float(round(duration * 1.5)),
            duration=duration,
            max_restarts=1,
            restart_backoff=60.0,
        )
        world.add_job(job, job.submit_time)
        world.emit(
            JobStateChanged(
                world.now, job.name, f"{job.name} submitted by {job.team} ({job.gpus} GPUs)"
            )
        )


def submissions(world: World) -> list[tuple]:
    return [
        (name, job.team, job.gpus, job.priority, job.submit_time, job.duration, job.state)
        for name, job in world.jobs.items()
    ]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(1, 1000),
    rate=st.sampled_from([3.0, 60.0, 900.0]),
    sizes=st.lists(st.sampled_from([1, 2, 4, 8, 16, 64, 512]), min_size=1, max_size=6),
    share=st.sampled_from([0.0, 0.2]),
)
def test_batched_draws_submit_the_jobs_one_at_a_time_draws_submit(seed, rate, sizes, share):
    incident = build(
        jobs=[job_spec("train", yours=True, steps=500)],
        background={
            "utilization": 0.5,
            "arrivals_per_hour": rate,
            "sizes": sizes,
            "high_priority_share": share,
        },
        length="3h",
    )
    ours = World(incident, seed)
    ours.run_until(incident.night.length)
    with mock.patch.object(background, "_arrivals", one_at_a_time):
        theirs = World(incident, seed)
        theirs.run_until(incident.night.length)
    assert submissions(ours) == submissions(theirs)
    assert [(e.time, e.text) for e in ours.timeline] == [(e.time, e.text) for e in theirs.timeline]
    assert len(ours.jobs) > 2 or rate < 10
