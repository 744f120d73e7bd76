"""The free-GPU index, kept node by node as the cluster changes, is what a full rebuild reads.

drill/sim/free_index.py rereads only the nodes that told the cluster they changed, and a pass's
Scratch takes and gives back GPUs in the index's own lists, then puts them back. Random clusters
get random changes (work placed and ended, node states, heartbeats, a spare swapped into its
island) and random scratches (nested, as a reservation's trial sits on a pass's scratch); after
every change the index must equal one built from scratch, and every undo must leave it as it was.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.sim import free_index
from drill.sim.free_index import FreeIndex
from drill.states import NodeState
from tests.drillkit import small_cluster

STATES = [NodeState.UP, NodeState.UP, NodeState.DOWN, NodeState.CORDONED, NodeState.DRAINED]


def state_of(index: FreeIndex) -> tuple:
    return (
        list(index.count),
        [list(bucket) for bucket in index.buckets],
        {island: list(whole) for island, whole in index.whole.items()},
        dict(index.usable_in),
        index.usable,
        list(index.in_service),
        index.in_service_gpus,
        dict(index.member),
    )


def rebuilt(cluster) -> tuple:
    live = cluster.free_index
    fresh = FreeIndex(cluster)
    cluster.free_index = live
    return state_of(fresh)


operations = st.lists(
    st.tuples(
        st.sampled_from(["place", "end", "state", "heartbeat", "swap", "scratch"]),
        st.integers(0, 10_000),
        st.integers(0, 10_000),
    ),
    max_size=40,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([2, 4, 8]),
    st.lists(st.integers(1, 4), min_size=1, max_size=3),
    st.integers(0, 1),
    operations,
)
def test_the_kept_index_equals_a_rebuild_after_every_change(gpn, sizes, spares, ops) -> None:
    cluster = small_cluster(*zip("abc", sizes, strict=False), spares=spares, gpus_per_node=gpn)
    names = list(cluster.nodes)
    index = free_index.of(cluster)
    jobs = 0
    for what, a, b in ops:
        node = cluster.nodes[names[a % len(names)]]
        if what == "place" and node.free_gpus():
            free = node.free_gpus()
            jobs += 1
            node.allocations[f"j{jobs}"] = free[: 1 + b % len(free)]
        elif what == "end" and node.allocations:
            node.allocations.pop(sorted(node.allocations)[b % len(node.allocations)])
        elif what == "state" and node.state != NodeState.SPARE:
            node.state = STATES[b % len(STATES)]
        elif what == "heartbeat":
            node.responsive = not node.responsive
        elif what == "swap":
            spare = next((n for n in cluster.nodes.values() if n.state == NodeState.SPARE), None)
            if spare is not None:
                cluster.islands[spare.island].append(spare.name)
                spare.state = NodeState.UP
        elif what == "scratch":
            before = state_of(free_index.of(cluster))
            with index.scratch() as scratch:
                for step in range(1 + b % 6):
                    position = (a + 7 * step) % len(names)
                    scratch.adjust(position, (b >> step) % (2 * gpn + 1) - gpn)
                    free_somewhere = any(scratch.buckets[c] for c in range(1, gpn + 1))
                    assert scratch.none_free() == (not free_somewhere)
                    if step == 2:
                        with scratch.copy() as trial:  # a reservation's trial on top
                            trial.adjust((position + 1) % len(names), gpn)
            assert state_of(index) == before
        assert free_index.of(cluster) is index
        assert state_of(index) == rebuilt(cluster)


def test_an_index_that_missed_a_change_differs_from_the_rebuild() -> None:
    """The comparison bites: a change made behind the node's back leaves the kept index stale."""
    cluster = small_cluster(("a", 2), gpus_per_node=4)
    index = free_index.of(cluster)
    allocations = cluster.nodes["gpu-a-1"].allocations
    allocations._changed = None  # a change that does not name the node in `changed`
    allocations["sneaky"] = [0, 1]
    assert state_of(free_index.of(cluster)) != rebuilt(cluster)
    assert index is cluster.free_index


def test_scratches_are_undone_latest_first_and_the_index_waits_for_them() -> None:
    cluster = small_cluster(("a", 2), gpus_per_node=4)
    index = free_index.of(cluster)
    outer = index.scratch()
    inner = outer.copy()
    with pytest.raises(RuntimeError, match="under a newer one"):
        outer.adjust(0, -1)
    with pytest.raises(RuntimeError, match="out of turn"):
        outer.undo()
    with pytest.raises(RuntimeError, match="while a scratch"):
        free_index.of(cluster)
    inner.undo()
    outer.adjust(0, -2)
    assert index.count[0] == 2
    outer.undo()
    assert index.count[0] == 4 and not index.open


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([2, 4, 8]),
    st.lists(st.integers(1, 4), min_size=1, max_size=3),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 8)), max_size=30),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(1, 8)), max_size=12),
    st.lists(st.integers(0, 10_000), max_size=3),
)
def test_an_overlay_answers_as_a_scratch_with_the_same_gpus_given_back(
    gpn, sizes, taken, given_back, skipped
) -> None:
    """A reservation's Overlay gives running jobs' GPUs back over a scratch without moving
    the scratch's buckets (a placement's node names, as the walk does): every question must
    get the answer a scratch copy would give."""
    from drill.sim.free_index import Overlay

    cluster = small_cluster(*zip("abc", sizes, strict=False), gpus_per_node=gpn)
    names = list(cluster.nodes)
    cluster.nodes[names[0]].state = NodeState.DOWN
    index = free_index.of(cluster)
    skip = frozenset(p % len(names) for p in skipped)
    with index.scratch() as scratch:
        for position, count in taken:
            scratch.adjust(position % len(names), -count)
        overlay = Overlay(scratch)
        for step in range(len(given_back) + 1):
            if step:
                position, count = given_back[step - 1]
                position %= len(names)
                # As the walk gives back a running job's end: its placement, by node name.
                rises = overlay.usable(position) and overlay.free(position) < gpn
                held = [(names[position], list(range(count)))]
                assert overlay.give_back(held, frozenset()) == ([position] if rises else [])
            expected = None
            with scratch.copy() as trial:  # in the index's own lists: asked, then undone
                for position, count in given_back[:step]:
                    trial.adjust(position % len(names), count)
                expected = answers(trial, cluster, gpn, skip, len(names))
            assert answers(overlay, cluster, gpn, skip, len(names)) == expected


def answers(view, cluster, gpn: int, skip: frozenset[int], nodes: int) -> list:
    return [
        [view.best_node(world, skip) for world in range(1, gpn + 1)],
        [view.whole_nodes(need, skip) for need in range(1, 4)],
        [view.island_has_whole(i, need, skip) for i in cluster.islands for need in range(1, 4)],
        [(view.usable(p), view.fits_on(p, 1), view.fits_on(p, gpn)) for p in range(nodes)],
    ]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["set", "del", "pop", "popitem", "setdefault", "update", "clear"]),
            st.sampled_from(["j1", "j2", "j3"]),
            st.lists(st.integers(0, 7), max_size=4, unique=True),
        ),
        max_size=25,
    )
)
def test_a_nodes_used_gpus_follow_every_change_to_its_allocations(ops) -> None:
    """Allocations keep the GPUs held until their next change: after any change, what the node
    says is used and free is what its allocations hold now."""
    cluster = small_cluster(("a", 1), gpus_per_node=8)
    node = next(iter(cluster.nodes.values()))
    allocations = node.allocations
    for op, job, gpus in ops:
        node.free_gpus()  # read between changes, so a kept answer could go stale
        if op == "set":
            allocations[job] = gpus
        elif op == "del" and job in allocations:
            del allocations[job]
        elif op == "pop":
            allocations.pop(job, None)
        elif op == "popitem" and allocations:
            allocations.popitem()
        elif op == "setdefault":
            allocations.setdefault(job, gpus)
        elif op == "update":
            allocations.update({job: gpus})
        elif op == "clear":
            allocations.clear()
        held = {gpu for indexes in dict(allocations).values() for gpu in indexes}
        assert node.used_gpus() == held
        assert node.free_gpus() == [gpu for gpu in range(8) if gpu not in held]
