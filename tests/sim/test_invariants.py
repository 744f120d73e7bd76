"""Invariants over random worlds: whatever the cluster, the faults and the learner's actions, the
world keeps its rules after every event.

Hypothesis draws a small cluster, a learner's job (sometimes pinned, sometimes with excluded
nodes), other teams' load, a handful of faults of every kind and a list of timed actions (right
or wrong, accepted or rejected). The night is stepped one SimPy event at a time and
`drill.sim.invariants.broken_rules` must find nothing after each one; every placement is also
guarded as it is made.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.engine.drill import Drill
from drill.faults import KINDS
from drill.incident.models import SCHEMA_VERSION, Incident
from drill.incident.models import Cluster as ClusterSpec
from drill.incident.naming import layout
from drill.sim.invariants import broken_rules, checkpoints_disagree

NIGHT = 3 * 3600


@st.composite
def clusters(draw) -> dict[str, Any]:
    islands = []
    for name in ("a", "b", "c")[: draw(st.integers(1, 3))]:
        islands.append(
            {
                "name": name,
                "leaves": draw(st.integers(1, 2)),
                "nodes_per_leaf": draw(st.integers(1, 3)),
                "spares": draw(st.integers(0, 1)),
            }
        )
    return {
        "gpus_per_node": draw(st.sampled_from([2, 4, 8])),
        "islands": islands,
        "mtbf": "20h",
        "heartbeat_timeout": "90s",
        "scheduling_interval": "30s",
        "startup": "60s",
        "rendezvous": "30s",
        "reboot_time": "6m",
        "swap_time": "10m",
    }


def _fault(draw, index: int, kind: str, nodes: list[str], leaves: list[str]) -> dict[str, Any]:
    fault: dict[str, Any] = {"id": f"f{index}", "kind": kind, "at": draw(st.integers(60, 7200))}
    if kind == "gpu_xid":
        fault["xid"] = draw(st.sampled_from([13, 31, 43, 48, 63, 64, 74, 79, 94, 95, 119, 7]))
    if index and draw(st.booleans()):
        # Its clock starts at something in the night: an earlier fault, a restart, a write, a page.
        event = draw(st.sampled_from(["fault", "restart", "checkpoint", "page"]))
        fault["trigger"] = {"event": event}
        if event == "fault" or draw(st.booleans()):
            fault["trigger"]["fault"] = f"f{draw(st.integers(0, index - 1))}"
        if event == "page":
            fault["trigger"]["text"] = draw(st.sampled_from(["failed", "full", "not responding"]))
        fault["at"] = draw(st.integers(0, 900))
    lasts = kind in ("node_down", "straggler", "link_flap", "random_failures", "slow_disk")
    lasts = lasts or kind in ("volume_fill", "ib_flap")
    if lasts and draw(st.booleans()):
        fault["duration"] = draw(st.integers(30, 3600))
    if kind == "volume_fill":
        fault["volume"] = "scratch"
        fault["rate"] = draw(st.sampled_from(["1TB/h", "50TB/h", "100TB/s"]))
        return fault
    if kind == "gpu_needs_reset":
        fault["xid"] = draw(st.sampled_from([74, 119, 63]))
    if kind == "ib_flap" and draw(st.booleans()):
        fault["every"] = draw(st.integers(30, 1800))
    if kind == "quota_cut":
        fault.update(volume="scratch", team="ml", quota=draw(st.sampled_from(["0GB", "300GB"])))
        return fault
    if kind == "slow_disk":
        fault.update(volume="scratch", slowdown=draw(st.sampled_from([2, 50])))
        return fault
    if kind == "node_down":
        fault["persists_after_reboot"] = draw(st.booleans())
    if kind == "random_failures":
        return fault
    if kind == "corrupt_checkpoint":
        fault["target"] = {"job": "train"}
        return fault
    if kind == "bad_shard":
        fault.update(first_step=draw(st.integers(1, 300)), steps=draw(st.integers(1, 60)))
        fault["target"] = {"job": draw(st.sampled_from(["train", "other"]))}
        return fault
    choice = draw(st.sampled_from(["job", "node", "leaf", "none"]))
    target: dict[str, Any] = {}
    if choice == "job":
        target = {"job": draw(st.sampled_from(["train", "other"]))}
    elif choice == "node":
        target = {"node": draw(st.sampled_from(nodes))}
    elif choice == "leaf":
        target = {"leaf": draw(st.sampled_from(leaves))}
    if draw(st.booleans()):
        target["select"] = "all"
    fault["target"] = target
    return fault


ACTIONS = [
    "cordon {node}",
    "uncordon {node}",
    "drain {node}",
    "reboot {node}",
    "swap {node}",
    "reset {node}",
    "reset {node} --gpu 0",
    "cordon-leaf {leaf}",
    "drain-leaf {leaf}",
    "restart train --from latest",
    "restart train --from scratch",
    "restart train --from latest --skip 100-130",
    "restart train --from latest --exclude {node}",
    "restart train --world {half}",
    "requeue train",
    "requeue other",
    "cancel other",
    "hold train",
    "release train",
    "priority train high",
    "ckpt prune train --keep 1",
    "ckpt rm train {step}",
    "set train ckpt-keep 1",
    "set train ckpt-every 7",
    "status train",
    "health {node}",
    "wait 5m",
]


@st.composite
def nights(draw) -> tuple[Incident, list[tuple[int, str]], int]:
    cluster = draw(clusters())
    gpn = cluster["gpus_per_node"]
    slots = layout(ClusterSpec.model_validate(cluster))
    nodes = [s.name for s in slots if not s.spare]
    leaves = sorted({s.leaf for s in slots if s.leaf})
    widest = max(i["leaves"] * i["nodes_per_leaf"] for i in cluster["islands"])
    gpus = draw(st.sampled_from([1, gpn] + ([2 * gpn] if widest >= 2 else [])))
    job: dict[str, Any] = {
        "name": "train",
        "yours": True,
        "gpus": gpus,
        "steps": 2000,
        "step_time": "10s",
        "collective_timeout": "10m",
        "retry": {"max_restarts": draw(st.integers(0, 3)), "backoff": "30s"},
        "checkpoint": {"every": draw(st.sampled_from([5, 20])), "keep": 2, "write_time": "20s"},
    }
    if draw(st.booleans()):
        job["checkpoint"]["volume"] = "scratch"  # the storage faults meet its writes
    if draw(st.booleans()):
        job["exclude"] = draw(st.lists(st.sampled_from(nodes), max_size=2, unique=True))
    other = {
        "name": "other",
        "team": "vision",
        "gpus": draw(st.sampled_from([1, gpn])),
        "steps": 500,
    }
    if draw(st.booleans()):
        need = 1 if gpus <= gpn else gpus // gpn
        pinned = draw(st.lists(st.sampled_from(nodes), min_size=need, max_size=need, unique=True))
        job["nodes"] = pinned
    faults = [
        _fault(draw, i, draw(st.sampled_from(sorted(KINDS))), nodes, leaves)
        for i in range(draw(st.integers(0, 4)))
    ]
    data = {
        "schema": SCHEMA_VERSION,
        "id": "random-night",
        "title": "A random night",
        "briefing": "Drawn by hypothesis.",
        "night": {"start": "03:00", "length": NIGHT},
        "cluster": cluster,
        "jobs": [job, other],
        "background": {
            "utilization": draw(st.sampled_from([0.0, 0.4, 0.8])),
            "arrivals_per_hour": draw(st.sampled_from([0, 6])),
            "sizes": [1, 2, gpn],
        },
        "faults": faults,
        "storage": [
            {
                "name": "scratch",
                "capacity": "2TB",
                "used": "1TB",
                "quotas": {"ml": "800GB"},
                "read_bandwidth": "10GB/s",
                "write_bandwidth": "10GB/s",
            }
        ],
    }
    # Built from the model, not the loader, so a pin the loader would refuse still runs here:
    # the engine must keep its rules on its own.
    incident = Incident.model_validate(data)
    actions = []
    for _ in range(draw(st.integers(0, 8))):
        template = draw(st.sampled_from(ACTIONS))
        text = template.format(
            node=draw(st.sampled_from(nodes)),
            step=draw(st.sampled_from([5, 20, 40, 100])),
            half=max(1, gpus // 2),
            leaf=draw(st.sampled_from(leaves)),
        )
        actions.append((draw(st.integers(0, NIGHT - 1)), text))
    actions.sort()
    return incident, actions, draw(st.integers(1, 5))


def _step_until(d: Drill, until: float, checked: list[int]) -> None:
    env = d.world.env
    while env.peek() < until and env.peek() < d.night_end:
        env.step()
        checked[0] += 1
        problems = broken_rules(d.world)
        assert not problems, f"at {env.now:.0f}s: {problems}"
    if until > env.now:
        d.advance_to(min(until, d.night_end))


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(nights())
def test_every_event_of_a_random_night_keeps_the_rules(night) -> None:
    incident, actions, seed = night
    d = Drill(incident, seed)
    checked = [0]
    assert not broken_rules(d.world)
    for at, text in actions:
        _step_until(d, at, checked)
        if d.over:
            break
        d.act(text)
        problems = broken_rules(d.world)
        assert not problems, f"after `{text}` at {d.now:.0f}s: {problems}"
    _step_until(d, d.night_end, checked)
    assert checked[0] > 0


# -- what exists on disk, with the real replica --------------------------------------------------

DISK_ACTIONS = [
    "ckpt prune train --keep 1",
    "ckpt rm train {step}",
    "set train ckpt-keep 1",
    "set train ckpt-every 3",
    "restart train --from latest",
    "restart train --from {step}",
    "requeue train",
    "wait 2m",
]


@st.composite
def disk_nights(draw) -> tuple[Incident, list[tuple[int, str]]]:
    faults: list[dict[str, Any]] = []
    if draw(st.booleans()):
        faults.append(
            {"id": "rot", "kind": "corrupt_checkpoint", "at": draw(st.integers(200, 900))}
        )
    if draw(st.booleans()):
        faults.append(
            {
                "id": "crash",
                "kind": "kill_rank",
                "at": draw(st.integers(200, 900)),
                "target": {"job": "train"},
            }
        )
    data = {
        "schema": SCHEMA_VERSION,
        "id": "disk-night",
        "title": "A random night on disk",
        "briefing": "Drawn by hypothesis.",
        "night": {"start": "03:00", "length": 1800},
        "cluster": {
            "gpus_per_node": 4,
            "islands": [{"name": "a", "leaves": 1, "nodes_per_leaf": 2}],
        },
        "jobs": [
            {
                "name": "train",
                "yours": True,
                "gpus": 4,
                "steps": 60,
                "step_time": "10s",
                "retry": {"max_restarts": 2, "backoff": "30s"},
                "checkpoint": {
                    "every": draw(st.sampled_from([4, 8])),
                    "keep": draw(st.integers(1, 3)),
                    "atomic": draw(st.booleans()),
                    "write_time": "20s",
                },
                "replica": {"width": 16, "heads": 2, "ranks": 2, "global_batch": 8},
            }
        ],
        "background": {"utilization": 0, "arrivals_per_hour": 0},
        "faults": faults,
    }
    actions = []
    for _ in range(draw(st.integers(0, 5))):
        text = draw(st.sampled_from(DISK_ACTIONS)).format(step=draw(st.sampled_from([4, 8, 16])))
        actions.append((draw(st.integers(0, 1700)), text))
    return Incident.model_validate(data), sorted(actions)


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(disk_nights())
def test_the_catalog_and_the_replicas_disk_agree_after_every_event(night) -> None:
    incident, actions = night
    d = Drill.create(incident, 1, "inprocess")
    try:
        store = d.training.store
        job = d.learner_job

        def agree() -> None:
            on_disk = {record.step for record in store.list()}
            problems = checkpoints_disagree(d.world, job, on_disk)
            assert not problems, f"at {d.now:.0f}s: {problems}"

        env = d.world.env
        for at, text in [*actions, (d.night_end, "")]:
            while env.peek() < min(at, d.night_end):
                env.step()
                agree()
            if not text or d.over:
                break
            d.advance_to(at)
            d.act(text)
            agree()
    finally:
        d.close()
