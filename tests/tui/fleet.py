"""A fleet-sized incident for the map: 4,096 nodes of 8 GPUs in 16 fabric islands.

Building the world at that size runs the scheduler's starting load, which is slow today, so the
map is checked (and benchmarked) on a snapshot made from the incident's own cluster layout
(the engine's node names, islands and leaves) with work placed on it from a seed: about 70
percent of GPUs busy, the learner's 64-GPU job on 8 nodes of island f3, some nodes down,
draining or cordoned, a few dead GPUs.
"""

from __future__ import annotations

import random

from drill.engine.snapshot import GpuView, JobView, NodeView, Snapshot
from drill.incident.models import Incident
from drill.sim.cluster import Cluster

ISLANDS, LEAVES, NODES_PER_LEAF, GPUS = 16, 16, 16, 8
YOURS = "llm-pretrain"


def fleet_incident() -> Incident:
    islands = [
        {"name": f"f{n}", "leaves": LEAVES, "nodes_per_leaf": NODES_PER_LEAF, "spares": 0}
        for n in range(ISLANDS)
    ]
    return Incident.model_validate(
        {
            "schema": 2,
            "id": "fleet-4096",
            "title": "A fleet of 4,096 nodes, for the map",
            "briefing": "Built in code by the tests and the TUI benchmark.",
            "night": {"start": "03:00", "length": "2h"},
            "cluster": {"gpus_per_node": GPUS, "islands": islands},
            "jobs": [{"name": YOURS, "yours": True, "gpus": 64, "steps": 300, "step_time": "12s"}],
            "background": {"utilization": 0.7, "arrivals_per_hour": 100, "sizes": [1, 8, 64]},
            "seeds": [1],
        }
    )


def fleet_snapshot(seed: int = 1, time: float = 600.0) -> Snapshot:
    incident = fleet_incident()
    cluster = Cluster(incident.cluster)
    rng = random.Random(seed)
    names = list(cluster.nodes)
    mine = set(names[3 * LEAVES * NODES_PER_LEAF : 3 * LEAVES * NODES_PER_LEAF + 8])
    nodes: list[NodeView] = []
    jobs: dict[str, JobView] = {}
    for index, name in enumerate(names):
        node = cluster.nodes[name]
        state = "up"
        roll = rng.random()
        if roll < 0.004:
            state = "down"
        elif roll < 0.008:
            state = "draining"
        elif roll < 0.011:
            state = "cordoned"
        gpus = []
        if name in mine:
            owners = [YOURS] * GPUS
        elif state == "down":
            owners = [None] * GPUS
        else:
            job = f"bg-{index // 4:05d}" if rng.random() < 0.7 else None
            split = rng.randrange(GPUS + 1)
            owners = [job if i < split else None for i in range(GPUS)]
        broken_at = rng.randrange(GPUS) if rng.random() < 0.003 else None
        for i, owner in enumerate(owners):
            gpus.append(GpuView(i, owner, i == broken_at))
        held = tuple(sorted({o for o in owners if o}))
        for job in held:
            if job not in jobs:
                jobs[job] = _job(job, job == YOURS)
        nodes.append(
            NodeView(name, node.island, node.leaf, state, state != "down", tuple(gpus), held)
        )
    return Snapshot(
        time=time,
        clock="03:10",
        night_end=incident.night.length,
        over=False,
        nodes=tuple(nodes),
        jobs=tuple(jobs.values()),
        alerts=(),
        losses=(),
    )


def _job(name: str, yours: bool) -> JobView:
    return JobView(
        name=name,
        team="core" if yours else "other",
        yours=yours,
        state="running",
        reason="",
        priority="normal",
        gpus=64 if yours else 8,
        nodes=(),
        step=40 if yours else 0,
        steps=300 if yours else 0,
        attempts=1,
        last_checkpoint=None,
    )
