"""Gang placement: all ranks or none, whole nodes inside one fabric island, best fit for small
jobs, exclude lists, and node states that take no new work."""

from __future__ import annotations

import pytest

from drill.sim.jobs import PENDING, RUNNING
from drill.sim.scheduler import free_map, place, plan
from tests.drillkit import bare_job, build, drill, job_spec, occupy, small_cluster, world

NO_NEW_WORK = ("cordoned", "draining", "drained", "down", "rebooting")


def test_multi_node_job_takes_whole_nodes_in_one_island(two_islands):
    job = bare_job("wide", 16)
    placement = place(two_islands, job, free_map(two_islands, job))
    assert placement == [("gpu-a-1", list(range(8))), ("gpu-a-2", list(range(8)))]


def test_multi_node_job_never_splits_across_islands(two_islands):
    # One free node in each island: 16 GPUs are free, but no island has two whole nodes.
    occupy(two_islands, bare_job("x", 8), "gpu-a-1")
    occupy(two_islands, bare_job("y", 8), "gpu-b-2")
    job = bare_job("wide", 16)
    assert place(two_islands, job, free_map(two_islands, job)) is None
    [decision] = plan(two_islands, [job], [], now=0.0)
    assert decision.placement is None
    assert decision.reason == "resources: needs 2 whole nodes in one island"


def test_multi_node_job_uses_the_island_that_has_room(two_islands):
    occupy(two_islands, bare_job("x", 8), "gpu-a-1")
    job = bare_job("wide", 16)
    placement = place(two_islands, job, free_map(two_islands, job))
    assert [node for node, _ in placement] == ["gpu-b-1", "gpu-b-2"]


def test_gang_is_all_or_nothing_partly_free_nodes_do_not_count(two_islands):
    # Every node has 7 free GPUs: 28 free in all, yet not one whole node for a 16-GPU gang.
    for index, node in enumerate(two_islands.nodes):
        occupy(two_islands, bare_job(f"one-{index}", 1), node, [0])
    job = bare_job("wide", 16)
    assert place(two_islands, job, free_map(two_islands, job)) is None
    assert all(len(n.allocations) == 1 for n in two_islands.nodes.values()), "nothing half placed"


def test_world_places_the_gang_on_one_island_or_not_at_all():
    """The same rule end to end: two pinned 8-GPU jobs leave one node free in each island."""
    incident = build(
        islands=[
            {"name": "a", "leaves": 1, "nodes_per_leaf": 2},
            {"name": "b", "leaves": 1, "nodes_per_leaf": 2},
        ],
        jobs=[
            job_spec("left", gpus=8, nodes=["gpu-a-1"], steps=1000),
            job_spec("right", gpus=8, nodes=["gpu-b-1"], steps=1000),
            job_spec("train", gpus=16, yours=True),
        ],
    )
    w = world(incident)
    w.run_until(300)
    train = w.jobs["train"]
    assert train.state == PENDING
    assert train.reason == "resources: needs 2 whole nodes in one island"
    assert not any(train.name in n.allocations for n in w.cluster.nodes.values())


def test_world_places_a_16_gpu_job_on_two_nodes_of_the_same_island():
    w = world(build())
    train = w.jobs["train"]
    assert train.state == RUNNING
    islands = {w.cluster.nodes[n].island for n in train.nodes}
    assert len(train.nodes) == 2 and len(islands) == 1
    assert all(len(gpus) == 8 for _, gpus in train.placement)


@pytest.mark.parametrize(
    ("width", "expected"),
    [
        (1, "gpu-a-3"),
        (2, "gpu-a-3"),
        (3, "gpu-a-2"),
        (4, "gpu-a-2"),
        (5, "gpu-a-1"),
        (8, "gpu-a-1"),
    ],
)
def test_small_job_takes_the_best_fit_node(width, expected):
    cluster = small_cluster(("a", 3))
    occupy(cluster, bare_job("x", 4), "gpu-a-2", [0, 1, 2, 3])  # 4 free
    occupy(cluster, bare_job("y", 6), "gpu-a-3", list(range(6)))  # 2 free
    job = bare_job("small", width)
    [(node, gpus)] = place(cluster, job, free_map(cluster, job))
    assert node == expected
    assert len(gpus) == width
    assert not set(gpus) & cluster.nodes[node].used_gpus()


def test_best_fit_ties_go_to_the_first_node_in_cluster_order():
    cluster = small_cluster(("a", 2), ("b", 2))
    for node in ("gpu-a-1", "gpu-b-1"):
        occupy(cluster, bare_job(f"on-{node}", 4), node, [0, 1, 2, 3])
    job = bare_job("small", 4)
    assert place(cluster, job, free_map(cluster, job))[0][0] == "gpu-a-1"


def test_exclude_list_is_respected_for_small_and_wide_jobs(two_islands):
    small = bare_job("small", 2, exclude={"gpu-a-1"})
    [(node, _)] = place(two_islands, small, free_map(two_islands, small))
    assert node != "gpu-a-1"
    wide = bare_job("wide", 16, exclude={"gpu-a-2"})
    placement = place(two_islands, wide, free_map(two_islands, wide))
    assert [n for n, _ in placement] == ["gpu-b-1", "gpu-b-2"]
    both = bare_job("wide2", 16, exclude={"gpu-a-2", "gpu-b-1"})
    assert place(two_islands, both, free_map(two_islands, both)) is None


@pytest.mark.parametrize("state", NO_NEW_WORK)
def test_nodes_that_take_no_new_work(two_islands, state):
    two_islands.nodes["gpu-a-1"].state = state
    small = bare_job("small", 8)
    [(node, _)] = place(two_islands, small, free_map(two_islands, small))
    assert node == "gpu-a-2"
    wide = bare_job("wide", 16)
    assert [n for n, _ in place(two_islands, wide, free_map(two_islands, wide))] == [
        "gpu-b-1",
        "gpu-b-2",
    ]


def test_unresponsive_node_takes_no_new_work_before_it_is_marked_down(two_islands):
    two_islands.nodes["gpu-a-1"].responsive = False  # heartbeat lost, state still "up"
    job = bare_job("small", 8)
    assert place(two_islands, job, free_map(two_islands, job))[0][0] == "gpu-a-2"


def test_spares_take_no_work_until_swapped_in():
    cluster = small_cluster(("a", 1), spares=1)
    occupy(cluster, bare_job("x", 8), "gpu-a-1")
    job = bare_job("small", 1)
    assert place(cluster, job, free_map(cluster, job)) is None


@pytest.mark.parametrize("verb", ["cordon", "drain"])
def test_world_cordon_and_drain_keep_a_requeued_job_off_the_node(verb):
    """Through the engine: mark a node, restart the job, and it lands elsewhere."""
    d = drill(build())
    first = list(d.learner_job.nodes)
    assert d.act(f"{verb} {first[0]}").accepted
    assert d.act("restart train --from latest").accepted
    d.advance(120)
    job = d.learner_job
    assert job.state == RUNNING
    assert first[0] not in job.nodes
    assert len({d.world.cluster.nodes[n].island for n in job.nodes}) == 1


def test_a_gang_never_lands_twice_on_one_node_after_swaps():
    d = drill(
        build(
            islands=[{"name": "a", "leaves": 1, "nodes_per_leaf": 3, "spares": 1}],
            jobs=[job_spec("train", yours=True, retry={"max_restarts": 3})],
        )
    )
    d.advance(100)
    assert d.act("cordon gpu-a-3").accepted
    d.act("swap gpu-a-1")
    d.act("swap gpu-a-2")
    d.advance(900)
    assert len(d.world.cluster.islands["a"]) == len(set(d.world.cluster.islands["a"]))
    nodes = d.learner_job.nodes
    assert len(nodes) == len(set(nodes)), nodes
