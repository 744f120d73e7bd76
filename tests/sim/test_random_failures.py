"""random_failures fails nodes the way a large run's fail (audit row 17): mostly GPU Xids and NCCL
errors on a live host, each with its own signal; a host machine check is the rare kind."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from drill.faults import random_failures
from drill.incident.library import resolve_incident
from drill.sim.world import World
from drill.states import NodeState
from drill.values.failure_account import published_mix

START = 3600.0  # failures-at-scale starts at 01:00


def night(**cluster):
    incident = resolve_incident("failures-at-scale").incident
    if cluster:
        incident = incident.model_copy(
            update={"cluster": incident.cluster.model_copy(update=cluster)}
        )
    return incident


def quiet_world():
    """failures-at-scale with its random failures far apart, the job training at 01:10."""
    incident = night(mtbf=100_000 * 3600.0)
    world = World(incident, 4)
    world.run_until(START + 600)
    job = world.jobs["llm-pretrain"]
    assert job.current is not None and job.current.training
    return world, job, incident.faults[0]


@pytest.mark.parametrize(
    ("kind", "kernel", "drained"),
    [
        ("gpu", r"NVRM: Xid \(PCI:[^)]*\): 79, .*fallen off the bus", True),
        ("gpu_memory", r"NVRM: Xid \(PCI:[^)]*\): 48,", True),
        ("software", r"NVRM: Xid \(PCI:[^)]*\): 13,", False),
        ("nic", None, True),
    ],
)
def test_gpu_and_nic_failures_leave_the_host_alive_with_their_own_signal(kind, kernel, drained):
    world, job, fault = quiet_world()
    node = world.cluster.nodes[job.nodes[0]]
    random_failures._strike(world, fault, node, kind, 2, "hardware-1")
    world.run_until(world.now + 30)
    log = "\n".join(text for _, text in node.kernel_log)
    assert "mce: [Hardware Error]" not in log
    assert node.responsive, "a GPU or NIC failure is not a dead host"
    if kernel:
        assert re.search(kernel, log), log[-400:]
    if kind == "nic":
        said = "\n".join(line.text for line in job.log.lines)
        assert "NET/IB" in said and "transport retry counter exceeded" in said
    assert (node.state in (NodeState.DRAINING, NodeState.DRAINED)) is drained
    if drained:
        world.run_until(world.now + fault.duration + 120)
        assert node.state == NodeState.UP and not any(g.broken for g in node.gpus)


def test_a_host_failure_is_a_machine_check_and_a_silent_node():
    world, job, fault = quiet_world()
    node = world.cluster.nodes[job.nodes[0]]
    random_failures._strike(world, fault, node, "node", 0, "hardware-1")
    assert node.kernel_log[-1][1] == "mce: [Hardware Error]: Machine check events logged"
    assert not node.responsive


def test_the_draws_follow_the_published_mix_and_hosts_are_rare():
    """A 12-hour night at a node MTBF of 1h: many failures, read back from their signals."""
    incident = night(mtbf=3600.0)
    incident = incident.model_copy(
        update={"night": incident.night.model_copy(update={"length": 12 * 3600.0})}
    )
    world = World(incident, 1)
    world.run_until(12 * 3600.0)
    kinds: Counter[str] = Counter()
    for node in world.cluster.nodes.values():
        for _, text in node.kernel_log:
            if "mce:" in text:
                kinds["node"] += 1
            found = re.search(r"NVRM: Xid \(PCI:[^)]*\): (\d+),", text)
            kind = {"79": "gpu", "48": "gpu_memory", "13": "software"}.get(
                found.group(1) if found else ""
            )  # an Xid 48's row remap line (63) is the same failure
            if kind:
                kinds[kind] += 1
    total = sum(kinds.values())
    assert total >= 30, kinds
    assert kinds["gpu"] + kinds["gpu_memory"] > 2 * kinds["node"], kinds
    assert kinds["node"] / total < 0.3, kinds
    assert dict(random_failures.MIX) == {c: s for c, s in published_mix() if c != "sdc"}
