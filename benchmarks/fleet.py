"""Fleet-sized incidents for the scale benchmarks, built in code and validated like a file.

- `day_fleet`: 4,096 nodes of 8 GPUs in 16 fabric islands, half busy at the start, 20,000
  background jobs arriving over one simulated day (issue 17's first scale target);
- `season_fleet`: 2,048 nodes of 8 GPUs (16,384 GPUs) for 54 simulated days, with nodes failing
  at random at a fleet-wide rate of about one interruption every three hours (the second).

Both keep the learner's job small and slow-stepping, so what is measured is the world: the
scheduler, the background work and the failures, not a training loop.
"""

from __future__ import annotations

from drill.incident.models import SCHEMA_VERSION, Incident
from drill.values.bounds import MAX_NODES

HOUR, DAY = 3600.0, 86400.0


def fleet_data(
    *,
    islands: int,
    leaves: int,
    nodes_per_leaf: int,
    length: float,
    arrivals_per_hour: float,
    utilization: float = 0.5,
    sizes: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64),
    step_time: float = 600.0,
    faults: list[dict] | None = None,
    mtbf: float | None = None,
    scheduling_interval: float = 30.0,
    spares: int = 2,
) -> dict:
    cluster: dict = {
        "gpus_per_node": 8,
        "scheduling_interval": scheduling_interval,
        "islands": [
            {
                "name": f"f{n}",
                "leaves": leaves,
                "nodes_per_leaf": nodes_per_leaf,
                "spares": spares,
            }
            for n in range(islands)
        ],
    }
    if mtbf is not None:
        cluster["mtbf"] = mtbf
    steps = min(2_900, int(length / step_time))
    return {
        "schema": SCHEMA_VERSION,
        "id": "fleet-bench",
        "title": "A fleet for the scale benchmarks",
        "briefing": "Built in code by benchmarks/fleet.py.",
        "night": {"start": "03:00", "length": length},
        "cluster": cluster,
        "jobs": [
            {
                "name": "llm-pretrain",
                "yours": True,
                "gpus": 64,
                "steps": steps,
                "step_time": step_time,
                "time_limit": min(length, 30 * DAY),
                "retry": {"max_restarts": 100, "backoff": 60},
                "checkpoint": {"every": 6, "keep": 3},
            }
        ],
        "background": {
            "utilization": utilization,
            "arrivals_per_hour": arrivals_per_hour,
            "sizes": list(sizes),
            "min_duration": 600,
            "max_duration": 4 * HOUR,
        },
        "faults": faults or [],
        "seeds": [1],
    }


def day_fleet(jobs: int = 20_000, nodes: int = 4096) -> Incident:
    """`nodes` of 8 GPUs in 16 islands (16 leaves of 16 nodes each at 4,096), `jobs` a day.
    Each island keeps 2 spares, except where they would take the cluster past the 8,192 nodes
    an incident may have (at 8,192 nodes: none)."""
    per_island = nodes // 16
    leaves = 16 if per_island >= 16 else 1
    return Incident.model_validate(
        fleet_data(
            islands=16,
            leaves=leaves,
            nodes_per_leaf=per_island // leaves,
            length=DAY,
            arrivals_per_hour=jobs / 24,
            spares=2 if nodes + 16 * 2 <= MAX_NODES else 0,
        )
    )


def season_fleet(days: float = 54, interruption_every: float = 3 * HOUR) -> Incident:
    """16,384 GPUs (2,048 nodes in 8 islands) for `days`, a node failing about every
    `interruption_every` across the fleet; a failed node comes back after a reboot's time."""
    nodes = 2048
    return Incident.model_validate(
        fleet_data(
            islands=8,
            leaves=16,
            nodes_per_leaf=16,
            length=days * DAY,
            arrivals_per_hour=20,
            mtbf=nodes * interruption_every,
            faults=[{"id": "fleet-failures", "kind": "random_failures", "at": 0, "duration": 1800}],
        )
    )
