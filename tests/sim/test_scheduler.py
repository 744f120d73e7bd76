"""Queue order (priority class, then FIFO), EASY backfill, and the pending reason each job shows."""

from __future__ import annotations

import pytest

from drill.engine.actions import dispatch
from drill.engine.actions.parser import parse
from drill.sim.scheduler import plan
from tests.drillkit import bare_job, build, drill, job_spec, occupy, small_cluster


def decisions(cluster, pending, running=(), now=0.0):
    return {d.job.name: d for d in plan(cluster, list(pending), list(running), now)}


# -- order ------------------------------------------------------------------------------------


def test_fifo_within_a_priority_class_whatever_order_the_list_is_in():
    cluster = small_cluster(("a", 1))
    early = bare_job("early", 8, submit=10.0)
    late = bare_job("late", 8, submit=20.0)
    got = decisions(cluster, [late, early])
    assert got["early"].placement is not None
    assert got["late"].placement is None


def test_fifo_ties_break_by_name_so_the_order_is_stable():
    cluster = small_cluster(("a", 1))
    got = decisions(cluster, [bare_job("zeta", 8, submit=5.0), bare_job("alpha", 8, submit=5.0)])
    assert got["alpha"].placement is not None
    assert got["zeta"].placement is None


def test_higher_class_goes_first_even_when_submitted_later():
    cluster = small_cluster(("a", 1))
    low = bare_job("old-low", 8, priority="low", submit=0.0)
    normal = bare_job("mid", 8, priority="normal", submit=1.0)
    urgent = bare_job("new-urgent", 8, priority="urgent", submit=100.0)
    got = decisions(cluster, [low, normal, urgent])
    assert got["new-urgent"].placement is not None
    assert got["old-low"].placement is None and got["mid"].placement is None
    # The first blocked job in queue order holds the reservation; the rest wait behind it.
    assert got["mid"].reason.startswith("resources: ")
    assert got["old-low"].reason == "priority: behind mid"


def test_plan_answers_every_pending_job_in_queue_order():
    cluster = small_cluster(("a", 2))
    jobs = [bare_job(f"j{i}", 4, submit=float(10 - i)) for i in range(6)]
    order = [d.job.name for d in plan(cluster, jobs, [], 0.0)]
    assert order == [f"j{i}" for i in range(5, -1, -1)]
    started = [d.job.name for d in plan(cluster, jobs, [], 0.0) if d.placement]
    assert started == ["j5", "j4", "j3", "j2"]  # four 4-GPU jobs fill two 8-GPU nodes


# -- EASY backfill ----------------------------------------------------------------------------


@pytest.fixture
def blocked_head():
    """Island a: gpu-a-1 full until t=1000, gpu-a-2 half full until t=5000. A 16-GPU head job
    waits for both; its reservation is {gpu-a-1, gpu-a-2} at t=5000."""
    cluster = small_cluster(("a", 2))
    r1 = occupy(cluster, bare_job("r1", 8, time_limit=1000.0), "gpu-a-1")
    r2 = occupy(cluster, bare_job("r2", 4, time_limit=5000.0), "gpu-a-2", [0, 1, 2, 3])
    head = bare_job("head", 16, submit=1.0)
    return cluster, head, [r1, r2]


def test_head_job_waits_for_resources(blocked_head):
    cluster, head, running = blocked_head
    got = decisions(cluster, [head], running)
    assert got["head"].placement is None
    assert got["head"].reason == "resources: needs 2 whole nodes in one island"


def test_short_small_job_backfills_ahead_of_the_blocked_head(blocked_head):
    cluster, head, running = blocked_head
    short = bare_job("short", 4, submit=2.0, time_limit=3000.0)
    got = decisions(cluster, [head, short], running)
    assert got["short"].placement == [("gpu-a-2", [4, 5, 6, 7])]
    assert got["head"].placement is None


def test_job_ending_exactly_at_the_reservation_may_backfill(blocked_head):
    cluster, head, running = blocked_head
    exact = bare_job("exact", 4, submit=2.0, time_limit=5000.0)
    assert decisions(cluster, [head, exact], running)["exact"].placement is not None


def test_long_job_may_not_take_the_reserved_nodes(blocked_head):
    cluster, head, running = blocked_head
    long = bare_job("long", 4, submit=2.0, time_limit=9000.0)
    got = decisions(cluster, [head, long], running)
    assert got["long"].placement is None
    assert got["long"].reason == "priority: behind head"


def test_reservation_time_counts_from_now_for_the_backfill_candidate(blocked_head):
    cluster, head, running = blocked_head
    short = bare_job("short", 4, submit=2.0, time_limit=3000.0)
    # At t=2500 the reservation (t=5000) is only 2500 s away: a 3000 s job no longer fits.
    got = decisions(cluster, [head, short], running, now=2500.0)
    assert got["short"].placement is None
    assert got["short"].reason == "priority: behind head"


def test_long_job_may_backfill_on_nodes_outside_the_reservation():
    """EASY backfill: a job that would outlive the reservation may still start if it stays off
    the reserved nodes. Here gpu-b-1 (its own island, so never reserved for a 2-node gang) is
    free, but the best fit is the reserved gpu-a-1."""
    cluster = small_cluster(("a", 2), ("b", 1))
    r1 = occupy(cluster, bare_job("r1", 4, time_limit=1000.0), "gpu-a-1", [0, 1, 2, 3])
    head = bare_job("head", 16, submit=1.0)
    long = bare_job("long", 2, submit=2.0, time_limit=36000.0)
    got = decisions(cluster, [head, long], [r1])
    assert got["head"].placement is None
    assert got["long"].placement is not None
    assert got["long"].placement[0][0] == "gpu-b-1"


# -- pending reasons --------------------------------------------------------------------------


def test_reason_held():
    cluster = small_cluster(("a", 1))
    job = bare_job("waiting", 1)
    job.held = True
    got = decisions(cluster, [job])
    assert got["waiting"].placement is None
    assert got["waiting"].reason.startswith("held: ")
    assert "release" in got["waiting"].reason


def test_held_job_does_not_block_the_queue_behind_it():
    cluster = small_cluster(("a", 1))
    held = bare_job("held", 8, submit=1.0)
    held.held = True
    got = decisions(cluster, [held, bare_job("next", 8, submit=2.0)])
    assert got["next"].placement is not None


def test_reason_excluded_nodes(two_islands):
    job = bare_job("picky", 16, exclude={"gpu-a-1", "gpu-b-2"})
    got = decisions(two_islands, [job])
    reason = got["picky"].reason
    assert reason.startswith("excluded nodes: ")
    assert "gpu-a-1" in reason and "gpu-b-2" in reason
    assert "2 whole nodes in one island" in reason


def test_reason_resources_names_the_shape(two_islands):
    for node in two_islands.nodes:
        occupy(two_islands, bare_job(f"on-{node}", 6), node, list(range(6)))
    got = decisions(two_islands, [bare_job("three", 3)])
    assert got["three"].reason == "resources: needs 3 GPUs on one node"
    got = decisions(two_islands, [bare_job("one", 1)])
    assert got["one"].placement is not None


def test_reason_priority_names_the_job_ahead(two_islands):
    for node in two_islands.nodes:
        occupy(two_islands, bare_job(f"on-{node}", 8), node)
    got = decisions(
        two_islands, [bare_job("first", 8, submit=1.0), bare_job("second", 1, submit=2.0)]
    )
    assert got["first"].reason == "resources: needs 8 GPUs on one node"
    assert got["second"].reason == "priority: behind first"


def test_reason_unavailable_when_too_few_nodes_are_usable(two_islands):
    for node in ("gpu-a-1", "gpu-b-1"):
        two_islands.nodes[node].state = "down"
    got = decisions(two_islands, [bare_job("wide", 16)])
    assert got["wide"].reason.startswith("unavailable nodes: ")


def test_pending_reason_shows_in_queue_and_status():
    """The learner reads the reason through `queue` and `status JOB`, not the scheduler."""
    incident = build(
        islands=[{"name": "a", "leaves": 1, "nodes_per_leaf": 2}],
        jobs=[
            job_spec("other", gpus=8, nodes=["gpu-a-1"], steps=1000),
            job_spec("train", gpus=16, yours=True),
        ],
    )
    d = drill(incident)
    d.advance(60)
    reason = "resources: needs 2 whole nodes in one island"
    assert d.learner_job.reason == reason
    for line in ("queue", "status train"):
        assert reason in dispatch.run(d.ctx, parse(line))[0]


def test_hold_and_release_through_the_engine():
    incident = build(
        islands=[{"name": "a", "leaves": 1, "nodes_per_leaf": 2}],
        jobs=[
            job_spec("other", gpus=8, nodes=["gpu-a-1"], steps=30),
            job_spec("train", gpus=16, yours=True),
        ],
    )
    d = drill(incident)
    assert d.act("hold train").accepted
    assert d.learner_job.reason.startswith("held: ")
    d.advance(1200)  # `other` has finished by now, but the job is held
    assert d.learner_job.state == "pending"
    assert d.learner_job.reason.startswith("held: ")
    assert d.act("release train").accepted
    d.advance(60)
    assert d.learner_job.state == "running"
