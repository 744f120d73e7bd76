"""The retry crash-loop: a GPU falls off the bus (Xid 79) under the learner's job and nobody acts.

The job hangs until its collective timeout, fails with a watchdog message, and each automatic
restart lands on the same broken GPU and dies at start-up until the retry budget is spent.
"""

from __future__ import annotations

import re

import pytest

from drill.engine.account import account
from drill.engine.headless import play
from drill.sim.jobs import FAILED, RUNNING
from tests.drillkit import build, drill, job_spec, learner_outputs

TIMEOUT = 420.0  # 7m: a value no default uses, so the message must come from the job's setting
FAULT_AT = 600.0
RANK = 11


def xid79_night(max_restarts: int):
    return build(
        jobs=[
            job_spec(
                "train",
                yours=True,
                collective_timeout="7m",
                retry={"max_restarts": max_restarts, "backoff": "30s"},
            )
        ],
        faults=[
            {
                "id": "gpu-dies",
                "kind": "gpu_xid",
                "xid": 79,
                "at": "10m",
                "target": {"job": "train", "rank": RANK},
            }
        ],
    )


@pytest.fixture(params=[1, 3], ids=lambda n: f"max_restarts={n}")
def night(request):
    n = request.param
    d = drill(xid79_night(n))
    d.advance(FAULT_AT + 1)
    return n, d


def broken_node(d) -> str:
    [pick] = d.world.faults.chosen["gpu-dies"]
    return pick.node


def test_job_hangs_silently_until_the_collective_timeout(night):
    _, d = night
    job = d.learner_job
    step = job.step
    d.advance(TIMEOUT - 2)
    assert job.state == RUNNING, "a dead rank does not crash the job; the others wait"
    assert job.step == step, "no step finishes while one rank is gone"
    assert len(job.attempts) == 1


def test_watchdog_failure_names_allreduce_the_rank_and_the_timeout(night):
    _, d = night
    d.advance(TIMEOUT)
    first = d.learner_job.attempts[0]
    assert first.ended
    assert first.end == pytest.approx(FAULT_AT + TIMEOUT)
    assert "Watchdog caught collective operation timeout" in first.why
    assert "ALLREDUCE" in first.why
    assert "Timeout(ms)=420000" in first.why
    assert "ChildFailedError" in first.why and "Signal 6 (SIGABRT)" in first.why
    assert "ranks reported it" not in first.why, "torchrun does not count the reporters"
    reporter = re.search(r"\[Rank (\d+)\]", first.why)
    assert reporter, first.why
    assert int(reporter.group(1)) != RANK, "the dead rank cannot report the timeout"


def test_survivors_log_the_watchdog_and_the_dead_rank_does_not(night):
    _, d = night
    d.advance(TIMEOUT)
    out = learner_outputs(d, "train", [])
    survivor = 0 if RANK else 1
    assert "OpType=ALLREDUCE" in out[f"logs train --rank {survivor}"]
    assert "Timeout(ms)=420000" in out[f"logs train --rank {survivor}"]
    assert "Watchdog" not in out[f"logs train --rank {RANK}"]


def test_restarts_crash_loop_on_the_broken_node_then_the_job_fails(night):
    n, d = night
    d.advance(7200)
    job = d.learner_job
    node = broken_node(d)
    assert job.state == FAILED
    assert job.restarts_used == n
    assert f"all {n} automatic restarts used" in job.reason
    assert len(job.attempts) == n + 1
    for attempt in job.attempts[1:]:
        assert node in attempt.nodes, "the retry lands on the same broken node"
        # The GPU that fell off the bus is not enumerated: the node's last local rank finds
        # no device of its ordinal, whichever GPU is gone. The error names neither.
        assert "CUDA error: invalid device ordinal" in attempt.why
        assert "local_rank: 7" in attempt.why and f"host: {node}" in attempt.why
        assert "GPU" not in attempt.why.split("RuntimeError:")[1]
        assert not attempt.training, "it never got past start-up"
    # Each restart waits its backoff after the previous failure.
    for before, after in zip(job.attempts, job.attempts[1:], strict=False):
        assert after.start >= before.end + 30.0


def test_attempts_list_shows_every_attempt_with_nodes_and_reasons(night):
    n, d = night
    d.advance(7200)
    attempts = account(d)["jobs"]["train"]["attempts"]
    assert [a["number"] for a in attempts] == list(range(1, n + 2))
    node = broken_node(d)
    assert all(node in a["nodes"] and a["why"] for a in attempts)
    assert "ALLREDUCE" in attempts[0]["why"]
    status = learner_outputs(d, "train", [])["status train"]
    assert f"restarts used: {n} of {n}" in status
    for number in range(1, n + 2):
        assert re.search(
            rf"attempt {number} \d\d:\d\d:\d\d-\d\d:\d\d:\d\d on [^:]*{node}", status
        ), status


def test_health_on_the_broken_node_shows_xid_79(night):
    _, d = night
    out = learner_outputs(d, "train", [broken_node(d)])[f"health {broken_node(d)}"]
    gpu = d.world.faults.chosen["gpu-dies"][0].gpu
    assert re.search(rf"GPU {gpu} \S+\s+FAIL: Xid 79 ", out), out
    assert ": 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." in out
    assert "GPU has fallen off the bus.\n" in out or out.endswith("GPU has fallen off the bus.")


def test_no_retry_budget_fails_at_the_watchdog():
    d = drill(xid79_night(0))
    d.advance(7200)
    job = d.learner_job
    assert job.state == FAILED
    assert len(job.attempts) == 1
    assert "ALLREDUCE" in job.reason
    assert "automatic restarts used" not in job.reason


@pytest.mark.parametrize("seed", [1, 2])
def test_shipped_dead_rank_crash_loops_when_nobody_acts(dead_rank_incident, seed):
    from drill.engine.drill import Drill

    d = Drill(dead_rank_incident, seed)
    play(d, [])
    job = d.learner_job
    assert job.state == FAILED
    assert len(job.attempts) == 1 + job.max_restarts
    node = d.world.faults.chosen["gpu-dies"][0].node
    assert all(node in a.nodes for a in job.attempts)


@pytest.fixture(scope="module")
def dead_rank_incident():
    from drill.incident.loader import load_incident
    from tests.drillkit import DEAD_RANK

    return load_incident(DEAD_RANK).incident
