"""The invariant checker finds every broken rule: a real world, running, is broken one rule at a
time on purpose, and `broken_rules` (after the fact) and `placement_problems` (before a start)
must each name it. The property tests elsewhere only ever ask the checker to find nothing, which
a checker that never finds anything would pass."""

from __future__ import annotations

import pytest

from drill.sim.invariants import (
    InvariantBroken,
    broken_rules,
    check_placement,
    checkpoints_disagree,
    placement_problems,
)
from drill.sim.jobs import PENDING
from drill.states import NodeState
from tests.drillkit import build, drill, job_spec


def _running_world():
    """Two 8-GPU jobs running: `train` (16 GPUs, two nodes of one island) and `other` (8)."""
    incident = build(
        jobs=[job_spec("train", yours=True, steps=5000), job_spec("other", gpus=8, steps=5000)]
    )
    d = drill(incident)
    d.advance(600)
    world = d.world
    assert world.jobs["train"].state == "running" and world.jobs["other"].state == "running"
    assert not broken_rules(world)
    return world


def _other_island_node(world, job) -> str:
    island = world.cluster.nodes[job.nodes[0]].island
    return next(
        n.name
        for n in world.cluster.nodes.values()
        if n.island != island and n.in_service and not n.allocations
    )


def test_a_gpu_held_by_two_jobs_is_found():
    world = _running_world()
    train, other = world.jobs["train"], world.jobs["other"]
    node, gpus = train.placement[0]
    world.cluster.nodes[node].allocations[other.name] = [gpus[0]]
    assert any(f"GPU {gpus[0]} of {node} holds" in p for p in broken_rules(world))


def test_a_stopped_job_still_holding_gpus_is_found():
    world = _running_world()
    world.jobs["other"].state = PENDING
    assert any("other is pending but still holds GPUs" in p for p in broken_rules(world))


def test_a_gang_across_two_islands_is_found():
    world = _running_world()
    train = world.jobs["train"]
    far = _other_island_node(world, train)
    train.placement = [train.placement[0], (far, list(range(8)))]
    assert any("train runs across islands" in p for p in broken_rules(world))


def test_a_job_on_a_node_it_excludes_is_found():
    world = _running_world()
    train = world.jobs["train"]
    train.exclude.add(train.nodes[0])
    assert any(
        f"train runs on {train.nodes[0]}, which it excludes" in p for p in broken_rules(world)
    )


@pytest.mark.parametrize("state", [NodeState.DOWN, NodeState.REBOOTING])
def test_a_job_on_a_node_that_is_out_is_found(state):
    world = _running_world()
    train = world.jobs["train"]
    world.cluster.nodes[train.nodes[0]].state = state
    assert any(
        f"train runs on {train.nodes[0]}, which is {state}" in p for p in broken_rules(world)
    )


# -- placement guard ---------------------------------------------------------------------------


def _free_nodes(world, island: str | None = None) -> list[str]:
    return [
        n.name
        for n in world.cluster.nodes.values()
        if n.in_service
        and n.schedulable
        and not n.allocations
        and (island is None or n.island == island)
    ]


def test_placement_guard_names_each_broken_rule():
    world = _running_world()
    job = world.jobs["train"]
    free = _free_nodes(world)
    islands = {world.cluster.nodes[n].island for n in free}
    assert len(islands) >= 2, free
    roomy = max(sorted(islands), key=lambda i: len(_free_nodes(world, i)))
    a = _free_nodes(world, roomy)[0]
    b = next(n for n in free if world.cluster.nodes[n].island != roomy)
    full = list(range(8))

    def problems(placement):
        return " | ".join(placement_problems(world, job, placement))

    assert "spans islands" in problems([(a, full), (b, full)])
    assert "placed on a node twice" in problems([(a, full), (a, full)])
    assert "has 16 ranks but holds 8 GPUs" in problems([(a, full)])
    busy, busy_gpus = world.jobs["other"].placement[0]
    assert "not all free" in problems(
        [
            (busy, busy_gpus + [g for g in full if g not in busy_gpus][: 8 - len(busy_gpus)]),
            (a, full),
        ]
    )
    job.exclude.add(a)
    same_island = next(n for n in _free_nodes(world, world.cluster.nodes[a].island) if n != a)
    assert "which it excludes" in problems([(a, full), (same_island, full)])
    job.exclude.discard(a)
    world.cluster.nodes[a].state = NodeState.CORDONED
    assert "which is cordoned" in problems([(a, full), (same_island, full)])


def test_a_gpu_held_by_two_jobs_names_both_holders():
    world = _running_world()
    train, other = world.jobs["train"], world.jobs["other"]
    node, gpus = train.placement[0]
    world.cluster.nodes[node].allocations[other.name] = [gpus[0]]
    assert f"GPU {gpus[0]} of {node} holds train and other" in broken_rules(world)


def test_a_job_that_is_not_running_does_not_stop_the_check_of_the_jobs_after_it():
    """A finished job listed first: the running job after it is still checked."""
    incident = build(
        jobs=[
            job_spec("quick", gpus=8, steps=3),
            job_spec("train", yours=True, steps=5000),
        ]
    )
    d = drill(incident)
    d.advance(600)
    world = d.world
    assert list(world.jobs)[0] == "quick" and world.jobs["quick"].state != "running"
    train = world.jobs["train"]
    assert train.state == "running" and not broken_rules(world)
    train.exclude.add(train.nodes[0])
    assert f"train runs on {train.nodes[0]}, which it excludes" in broken_rules(world)


def test_a_gang_that_takes_part_of_a_node_is_refused_and_the_guard_says_every_problem():
    world = _running_world()
    job = world.jobs["train"]
    roomy = max(
        sorted({world.cluster.nodes[n].island for n in _free_nodes(world)}),
        key=lambda i: len(_free_nodes(world, i)),
    )
    a, b = _free_nodes(world, roomy)[:2]
    part = [(a, list(range(8))), (b, list(range(4)))]
    found = placement_problems(world, job, part)
    assert found == [
        "train has 16 ranks but holds 12 GPUs",
        f"train spans nodes but takes part of {b}",
    ]
    with pytest.raises(InvariantBroken) as caught:
        check_placement(world, job, part)
    assert str(caught.value) == "; ".join(found)
    check_placement(world, job, [(a, list(range(8))), (b, list(range(8)))])  # a whole gang is fine


def test_the_catalog_and_the_disk_are_compared_step_for_step():
    incident = build(jobs=[job_spec("train", yours=True, steps=5000)])
    d = drill(incident)
    d.advance(1800)
    job = d.world.jobs["train"]
    listed = {r.step for r in job.checkpoints.live()}
    assert listed
    assert checkpoints_disagree(d.world, job, set(listed)) == []
    extra = max(listed) + 1
    assert checkpoints_disagree(d.world, job, listed | {extra}) == [
        f"train: the catalog lists {sorted(listed)}, the backend's disk holds"
        f" {sorted(listed | {extra})}"
    ]


def test_a_kept_step_pace_that_no_longer_matches_the_gpus_is_found():
    world = _running_world()
    job = world.jobs["train"]
    assert world.step_factor(job) == 1.0  # kept for this placement
    # A throttle set behind the version's back (dict's own store, past Throttles' bump), as a
    # bug that forgets to bump it would: the kept pace is now stale.
    node, gpus = job.placement[0]
    gpu = world.cluster.nodes[node].gpus[gpus[0]]
    dict.__setitem__(gpu.throttles, "hot", 2.0)
    assert broken_rules(world) == ["train steps at 1.0x, but its GPUs and leaves say 2.0x"]


def test_a_waiting_job_filed_as_it_no_longer_is_is_found():
    """The pass reads a queue filed as jobs change (drill/sim/job_fields.py tells it): a class
    changed behind the field's back, as a bug that skips the hook would, leaves it stale."""
    incident = build(
        jobs=[job_spec("train", yours=True, steps=5000), job_spec("big", gpus=64, steps=10)]
    )
    d = drill(incident)
    d.advance(60)
    world = d.world
    big = world.jobs["big"]
    assert big.state == PENDING and not broken_rules(world)
    big.__dict__["_priority"] = "urgent"
    assert broken_rules(world) == [
        "big is queued as ((64, frozenset()), (-1, 0.0, 'big')),"
        " but is ((64, frozenset()), (-3, 0.0, 'big')) now"
    ]
    big.__dict__["_priority"] = "normal"
    big.priority = "urgent"  # through the field: filed again
    assert not broken_rules(world)
