"""The cluster map marks a dead GPU only once the learner could know it (audit row 9): the
first signal of a dead rank is silence, so the map does not hand over the GPU the moment it
dies. A look at the node since the driver logged the fault shows it, and so does a real page
naming the node; a look from before the fault does not."""

from __future__ import annotations

from drill.engine.drill import Drill
from drill.incident.library import resolve_incident
from tests.drillkit import drill, job_spec, with_fault


def dead_rank() -> Drill:
    return Drill(resolve_incident("dead-rank").incident, 1, backend="sim")


def broken(d: Drill) -> tuple[str, int]:
    [(name, index)] = [
        (name, gpu.index)
        for name, node in d.world.cluster.nodes.items()
        for gpu in node.gpus
        if gpu.broken
    ]
    return name, index


def marked(d: Drill) -> set[tuple[str, int]]:
    return {(n.name, g.index) for n in d.snapshot().nodes for g in n.gpus if g.broken}


def test_the_dead_gpu_is_not_on_the_map_until_a_look_shows_it():
    d = dead_rank()
    d.advance(25 * 60)  # the GPU died at 03:20; the job is silent, nothing pages yet
    node, index = broken(d)
    assert marked(d) == set(), "silence first: the map knows no more than the learner"
    assert d.act("status").accepted
    assert marked(d) == set(), "a look at the cluster does not show a node's GPUs"
    assert d.act(f"health {node}").accepted
    assert marked(d) == {(node, index)}


def test_a_look_before_the_gpu_died_does_not_show_it():
    d = dead_rank()
    d.advance(10 * 60)
    for name in ("gpu-a-1", "gpu-a-2"):
        assert d.act(f"gpus {name}").accepted
    d.advance(15 * 60)
    broken(d)
    assert marked(d) == set()


def test_a_page_naming_the_node_shows_it():
    """Xid 48 crashes its rank; with no retries the failure pages, naming the rank's host."""
    spec = job_spec("train", yours=True, retry={"max_restarts": 0, "backoff": "30s"})
    d = drill(
        with_fault(
            {"at": "10m", "kind": "gpu_xid", "xid": 48, "target": {"job": "train", "rank": 9}},
            jobs=[spec],
        )
    )
    d.advance(600 + 60)
    node, index = broken(d)
    assert any(node in a.text for a in d.world.pager.alerts), d.world.pager.alerts
    assert (node, index) in marked(d)
