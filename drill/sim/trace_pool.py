"""A job trace played through the scheduler on one pool of GPUs, for the peer comparison.

The peer simulator (alibaba clusterdata's cluster-trace-gpu-v2020 simulator) sees the cluster
as one big pool and the queue as FIFO. Here the same trace goes through drill's own scheduler
(drill/sim/scheduler.py: best fit, whole nodes for wide jobs, EASY backfill) on one island with
no topology that matters: GPUs are cut into `per_gpu` sharing units so fractional requests
(0.25 or 0.5 of a GPU) take what they ask, and units are grouped in nodes of `node_units` only
because the scheduler places on nodes. Jobs arrive every `arrival_gap` seconds in trace order
(or at the times given, as the peer's arrival rate sets them), with their true duration as their
time limit (what an exact backfill assumes). A pass runs `pass_every` seconds after something
arrives or ends (the peer's loop ticks every second), so the cost follows events, not the
makespan. The pass is drill/sim/starts_pass.py: the queue is kept grouped by request shape and
running jobs' ends sorted, and a pass finds only the jobs that start, so it costs the shapes
queued plus the starts, not the backlog's length.
"""

from __future__ import annotations

from dataclasses import dataclass

import simpy

from drill.incident.models import Cluster as ClusterSpec
from drill.incident.models import Island
from drill.sim.cluster import Cluster
from drill.sim.jobs import RUNNING, Attempt, Job
from drill.sim.shape_queue import RunningEnds, ShapeQueue
from drill.sim.starts_pass import plan_starts
from drill.sim.trace import TraceJob, units


@dataclass
class PoolResult:
    jobs: int
    average_jct: float  # completion minus arrival, seconds, over every job
    average_wait: float
    makespan: float
    passes: int


def pool_cluster(total_units: int, node_units: int) -> Cluster:
    """One island of `total_units // node_units` nodes, built past the incident bounds (a
    benchmark's pool, not an incident file)."""
    nodes = max(1, total_units // node_units)
    island = Island.model_construct(name="p", leaves=1, nodes_per_leaf=nodes, spares=0)
    spec = ClusterSpec.model_construct(gpus_per_node=node_units, islands=[island])
    return Cluster(spec)


def request(job: TraceJob, per_gpu: int, node_units: int) -> int:
    """Units a job takes: a gang of its instances; wider than a node, whole nodes."""
    width = units(job.gpus, per_gpu) * job.instances
    if width > node_units and width % node_units:
        width += node_units - width % node_units
    return width


def play_pool(
    trace: list[TraceJob],
    pool_gpus: int,
    *,
    per_gpu: int = 4,
    node_units: int = 16,
    arrival_gap: float = 0.06,
    pass_every: float = 1.0,
    arrivals: list[float] | None = None,
) -> PoolResult:
    """Play `trace` on `pool_gpus` GPUs. Jobs arrive `arrival_gap` apart in trace order, or at
    `arrivals` (one time per job, in order) when given."""
    env = simpy.Environment()
    cluster = pool_cluster(pool_gpus * per_gpu, node_units)
    pending = ShapeQueue()
    running = RunningEnds()
    arrived: dict[str, float] = {}
    started: dict[str, float] = {}
    ended: dict[str, float] = {}
    state = {"queued": False, "passes": 0}

    def finish(job: Job, duration: float):
        yield env.timeout(duration)
        for node, _ in job.placement:
            cluster.nodes[node].allocations.pop(job.name, None)
        job.placement = []
        running.remove(job)
        ended[job.name] = env.now
        soon()

    def schedule():
        yield env.timeout(pass_every)
        state["queued"] = False
        state["passes"] += 1
        starts, _ = plan_starts(cluster, pending, running, env.now)
        for decision in starts:
            job = decision.job
            for node, gpus in decision.placement:
                cluster.nodes[node].allocations[job.name] = list(gpus)
            job.placement = decision.placement
            job.state = RUNNING
            job.attempts.append(Attempt(1, arrived[job.name], start=env.now))
            pending.remove(job)
            running.add(job, env.now + job.time_limit)
            started[job.name] = env.now
            env.process(finish(job, job.duration))

    def soon() -> None:
        if not state["queued"]:
            state["queued"] = True
            env.process(schedule())

    def arrive():
        for index, entry in enumerate(trace):
            if arrivals is not None:
                if arrivals[index] > env.now:
                    yield env.timeout(arrivals[index] - env.now)
            elif index:
                yield env.timeout(arrival_gap)
            name = f"t{index:06d}"
            job = Job(
                name=name,
                team=entry.user,
                gpus=request(entry, per_gpu, node_units),
                priority="normal",
                submit_time=env.now,
                time_limit=entry.duration,
                duration=entry.duration,
            )
            arrived[name] = env.now
            pending.add(job)
            soon()

    env.process(arrive())
    env.run()
    jct = [ended[name] - arrived[name] for name in ended]
    wait = [started[name] - arrived[name] for name in ended]
    return PoolResult(
        jobs=len(ended),
        average_jct=sum(jct) / len(jct) if jct else 0.0,
        average_wait=sum(wait) / len(wait) if wait else 0.0,
        makespan=max(ended.values(), default=0.0),
        passes=state["passes"],
    )
