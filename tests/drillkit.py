"""Builders shared by the engine and sim tests: small incidents written in code, real worlds.

Every incident here is validated through `Incident.model_validate`, the same typed model the
loader produces, so a test never depends on a YAML file unless it is about YAML. Defaults make a
quiet night: no background load, no arrivals, no noise, so a test sees only what it sets up.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from drill.engine.drill import Drill
from drill.faults import KINDS
from drill.incident.errors import IncidentError
from drill.incident.loader import load_incident
from drill.incident.models import Cluster as ClusterSpec
from drill.incident.models import Incident
from drill.sim.cluster import Cluster
from drill.sim.events import Event, JobStateChanged
from drill.sim.jobs import Job
from drill.sim.world import World

REPO = Path(__file__).resolve().parent.parent
DEAD_RANK = REPO / "drill" / "incidents" / "dead-rank.yaml"

# Fault kinds as an incident names them: none of these may reach what a learner reads.
FAULT_KINDS = tuple(KINDS)
SECRET_FAULT_ID = "zz-secret-fault"


def job_spec(name: str = "train", **fields: Any) -> dict[str, Any]:
    """A training job: 16 GPUs, 10s steps, quick checkpoints, no retries unless asked."""
    spec: dict[str, Any] = {
        "name": name,
        "gpus": 16,
        "steps": 200,
        "step_time": "10s",
        "collective_timeout": "10m",
        "retry": {"max_restarts": 0, "backoff": "30s"},
        "checkpoint": {"every": 20, "keep": 3, "write_time": "20s"},
    }
    spec.update(fields)
    return spec


def incident_dict(
    *,
    islands: list[dict[str, Any]] | None = None,
    jobs: list[dict[str, Any]] | None = None,
    faults: list[dict[str, Any]] | None = None,
    background: dict[str, Any] | None = None,
    cluster: dict[str, Any] | None = None,
    length: str = "2h",
    **top: Any,
) -> dict[str, Any]:
    """The raw mapping an incident file would hold; tweak it, then `build` it."""
    if islands is None:
        islands = [
            {"name": "a", "leaves": 2, "nodes_per_leaf": 2, "spares": 1},
            {"name": "b", "leaves": 2, "nodes_per_leaf": 2, "spares": 1},
        ]
    if jobs is None:
        jobs = [job_spec("train", yours=True)]
    data: dict[str, Any] = {
        "schema": 2,
        "id": "test-night",
        "title": "A test night",
        "briefing": "Built in code by the tests.",
        "night": {"start": "03:00", "length": length},
        "cluster": {
            "gpus_per_node": 8,
            "islands": islands,
            "heartbeat_timeout": "90s",
            "scheduling_interval": "30s",
            "startup": "60s",
            "rendezvous": "30s",
            "reboot_time": "6m",
            "swap_time": "10m",
            **(cluster or {}),
        },
        "jobs": jobs,
        "background": background or {"utilization": 0, "arrivals_per_hour": 0},
        "faults": faults or [],
        "seeds": [1, 2],
    }
    data.update(top)
    return data


def build(**kwargs: Any) -> Incident:
    return Incident.model_validate(incident_dict(**kwargs))


def world(incident: Incident | None = None, seed: int = 1) -> World:
    return World(incident or build(), seed)


def drill(incident: Incident | None = None, seed: int = 1) -> Drill:
    return Drill(incident or build(), seed)


def with_fault(fault: dict[str, Any], **kwargs: Any) -> Incident:
    """A quiet night with one fault. The learner's job must be running when it fires."""
    fault = copy.deepcopy(fault)
    fault.setdefault("id", SECRET_FAULT_ID)
    return build(faults=[fault], **kwargs)


def small_cluster(*islands: tuple[str, int], spares: int = 0, gpus_per_node: int = 8) -> Cluster:
    """A cluster of one leaf per island: `small_cluster(("a", 2), ("b", 2))`."""
    spec = ClusterSpec.model_validate(
        {
            "gpus_per_node": gpus_per_node,
            "islands": [
                {"name": n, "leaves": 1, "nodes_per_leaf": count, "spares": spares}
                for n, count in islands
            ],
        }
    )
    return Cluster(spec)


def bare_job(
    name: str, gpus: int, *, priority: str = "normal", submit: float = 0.0, **fields: Any
) -> Job:
    """A background-style job for driving the scheduler directly."""
    fields.setdefault("time_limit", 3600.0)
    fields.setdefault("duration", 3600.0)
    return Job(name=name, team="t", gpus=gpus, priority=priority, submit_time=submit, **fields)


def occupy(cluster, job: Job, node: str, gpus: list[int] | None = None, start: float = 0.0) -> Job:
    """Put `job` on `node` (all GPUs unless told) as if the scheduler had placed it."""
    from drill.sim.jobs import RUNNING, Attempt

    gpus = list(range(cluster.gpus_per_node)) if gpus is None else gpus
    cluster.nodes[node].allocations[job.name] = gpus
    job.placement.append((node, gpus))
    job.state = RUNNING
    if not job.attempts:
        job.attempts.append(Attempt(1, start, start=start))
    return job


def learner_outputs(d: Drill, job: str, nodes: list[str]) -> dict[str, str]:
    """What a learner could read right now, through the actions they would type.

    Looking costs time, so this reads through the handlers without advancing the world: the
    outputs are exactly what `act` would return at this moment.
    """
    from drill.engine.actions import dispatch
    from drill.engine.actions.parser import parse

    lines = [f"status {job}", "status", "queue", "nodes", f"logs {job}", f"ckpt list {job}"]
    lines += [f"health {n}" for n in nodes]
    width = d.world.jobs[job].world
    lines += [f"logs {job} --rank {r}" for r in range(width)]
    out = {}
    for line in lines:
        out[line] = dispatch.run(d.ctx, parse(line))[0]
    out["pager"] = "\n".join(
        f"{a.id} {a.severity} {a.source} {a.text}" for a in d.world.pager.alerts
    )
    return out


def assert_no_fault_names(outputs: dict[str, str], fault_id: str = SECRET_FAULT_ID) -> None:
    for line, text in outputs.items():
        assert fault_id not in text, f"{line!r} names the fault id"
        for kind in FAULT_KINDS:
            assert not re.search(rf"\b{kind}\b", text), f"{line!r} names the fault kind {kind}"


def job_events(w: World, job: str, kind: type[Event] = JobStateChanged) -> list[tuple[float, str]]:
    return [(e.time, e.text) for e in w.timeline if isinstance(e, kind) and e.subject == job]


def refused(tmp_path: Path, marker: str, **fields: Any):
    """Write an incident built from `fields` and load it: the first problem it is refused
    with, and the last line of the file that holds `marker` (where that problem should point)."""
    path = tmp_path / "night.yaml"
    text = yaml.safe_dump(incident_dict(**fields), sort_keys=False, width=200)
    path.write_text(text)
    with pytest.raises(IncidentError) as caught:
        load_incident(path)
    lines = text.splitlines()
    line = max(i for i, raw in enumerate(lines, start=1) if marker in raw)
    return caught.value.problems[0], line
