"""Each fault primitive leaves the signals an operator would see, and only those.

Signals are read the way a learner reads them: `health NODE`, `logs JOB`, `logs JOB --rank N`,
`status JOB` and the pager. None of those outputs may name the fault's id or kind.
"""

from __future__ import annotations

import re

import pytest

from drill.sim.events import NodeStateChanged, StepTaken
from drill.sim.jobs import COMPLETED, FAILED, NODE_FAIL, RUNNING
from drill.sim.torchrun import IB_RETRY_WINDOW
from drill.sim.world import LAUNCHER_MONITOR_INTERVAL, PROGRESS_ALERT_AFTER
from tests.drillkit import (
    SECRET_FAULT_ID,
    assert_no_fault_names,
    drill,
    job_spec,
    learner_outputs,
    with_fault,
)

AT = 600.0  # every fault here fires at 03:10, mid-step 47 of a job with 10 s steps
RANK = 9  # on the job's second node, local rank 1


def night(fault: dict, *, max_restarts: int = 2, **job_fields):
    fault = {"at": "10m", **fault}
    spec = job_spec(
        "train", yours=True, retry={"max_restarts": max_restarts, "backoff": "30s"}, **job_fields
    )
    return drill(with_fault(fault, jobs=[spec]))


def chosen(d) -> dict:
    return d.world.faults.chosen[SECRET_FAULT_ID][0]


def read(d, nodes=None) -> dict[str, str]:
    nodes = (
        nodes
        if nodes is not None
        else sorted({a for at in d.learner_job.attempts for a in at.nodes})
    )
    out = learner_outputs(d, "train", nodes)
    assert_no_fault_names(out)
    return out


def step_times(d) -> list[float]:
    return [e.time for e in d.world.timeline if isinstance(e, StepTaken) and e.subject == "train"]


def alerts(d) -> list:
    return [a for a in d.world.pager.alerts if not a.noise]


# -- kill_rank --------------------------------------------------------------------------------


def test_kill_rank_fails_fast_with_sigkill_and_a_kernel_line():
    d = night({"kind": "kill_rank", "target": {"job": "train", "rank": RANK}})
    d.advance(AT + LAUNCHER_MONITOR_INTERVAL + 1)
    pick = chosen(d)
    first = d.learner_job.attempts[0]
    assert first.end == pytest.approx(AT + LAUNCHER_MONITOR_INTERVAL)
    assert "Signal 9 (SIGKILL)" in first.why and "exitcode: -9" in first.why
    assert f"rank: {RANK} (local_rank: 1)" in first.why and f"host: {pick.node}" in first.why
    out = read(d)
    assert "failed (exitcode: -9) local_rank: 1" in out[f"logs train --rank {RANK}"]
    assert "Killed process" in out[f"health {pick.node}"]
    assert "ERROR" not in out[f"health {pick.node}"], "the GPU itself is fine"


def test_kill_rank_retry_recovers_on_the_same_nodes():
    d = night({"kind": "kill_rank", "target": {"job": "train", "rank": RANK}})
    d.advance(7200)
    job = d.learner_job
    assert job.state == COMPLETED
    assert len(job.attempts) == 2
    assert job.attempts[1].nodes == job.attempts[0].nodes
    read(d)


def test_a_killed_rank_logs_steps_again_after_the_restart():
    d = night({"kind": "kill_rank", "target": {"job": "train", "rank": RANK}})
    d.advance(1500)
    job = d.learner_job
    assert job.state == RUNNING and job.step >= 80
    out = read(d)
    assert f"[rank {RANK}] step 80" in out[f"logs train --rank {RANK}"]
    summary_line = next(
        line
        for line in out["logs train"].splitlines()
        if line.strip().startswith(f"rank {RANK:>3}")
    )
    assert "SIGKILL" not in summary_line


# -- hang_rank --------------------------------------------------------------------------------


def test_hang_rank_leaves_no_kernel_log_pages_after_five_minutes_then_the_watchdog_fires():
    d = night({"kind": "hang_rank", "target": {"job": "train", "rank": RANK}}, max_restarts=0)
    d.advance(AT + 1)
    job = d.learner_job
    last = job.last_step_time
    d.advance(last + PROGRESS_ALERT_AFTER - d.now - 1)
    assert not alerts(d), "no page before five minutes of silence"
    d.advance(2)
    [page] = alerts(d)
    assert page.time == pytest.approx(last + PROGRESS_ALERT_AFTER)
    assert page.source == "train" and "no training progress for 5m" in page.text
    out = read(d)
    assert job.state == RUNNING
    assert "running" in out["status train"]
    assert re.search(r"last step 46 at 03:09:50 \(5m\d*s? ago\)", out["status train"])
    for node in job.nodes:
        assert "kernel log: nothing unusual" in out[f"health {node}"]
        assert "ERROR" not in out[f"health {node}"]
    d.advance(AT + 600 - d.now + 1)
    assert job.state == FAILED
    assert job.attempts[0].end == pytest.approx(AT + 600)
    assert "ALLREDUCE" in job.reason and "Timeout(ms)=600000" in job.reason
    read(d)


def test_hang_rank_is_transient_so_a_retry_recovers():
    d = night({"kind": "hang_rank", "target": {"job": "train", "rank": RANK}})
    d.advance(7200)
    assert d.learner_job.state == COMPLETED
    assert len(d.learner_job.attempts) == 2


# -- node_down --------------------------------------------------------------------------------


def test_node_down_heartbeat_timeout_then_alert_and_node_fail():
    d = night({"kind": "node_down", "target": {"node": "gpu-a-2"}}, max_restarts=0)
    d.advance(AT + 89)
    node = d.world.cluster.nodes["gpu-a-2"]
    assert node.state == "up", "marked down only after the heartbeat timeout"
    assert d.learner_job.state == RUNNING
    d.advance(2)
    assert node.state == "down"
    page, failed = alerts(d)
    assert page.time == pytest.approx(AT + 90)
    assert page.severity == "critical" and page.source == "gpu-a-2"
    assert failed.severity == "critical" and "node_fail" in failed.text
    assert "not responding" in page.text and "03:10:00" in page.text
    job = d.learner_job
    assert job.state == NODE_FAIL
    assert "gpu-a-2" in job.reason
    out = read(d, ["gpu-a-2"])
    assert "no answer from the node" in out["health gpu-a-2"]
    assert "node_fail" in out["status train"]


def test_node_down_job_requeues_onto_other_nodes():
    d = night({"kind": "node_down", "target": {"node": "gpu-a-2"}})
    d.advance(7200)
    job = d.learner_job
    assert job.state == COMPLETED
    assert job.attempts[0].why == "node gpu-a-2 failed (no heartbeat)"
    assert "gpu-a-2" not in job.attempts[1].nodes
    islands = {d.world.cluster.nodes[n].island for n in job.attempts[1].nodes}
    assert len(islands) == 1
    read(d)


# -- gpu_xid ----------------------------------------------------------------------------------


def test_xid_13_is_the_application_crash_node_healthy_retry_recovers():
    d = night({"kind": "gpu_xid", "xid": 13, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + LAUNCHER_MONITOR_INTERVAL + 1)
    pick = chosen(d)
    job = d.learner_job
    assert job.attempts[0].ended
    assert "illegal memory access" in job.attempts[0].why
    out = read(d)
    health = out[f"health {pick.node}"]
    assert ": 13, pid=" in health
    assert "not usable" not in health and "ERROR" not in health
    d.advance(7200)
    assert job.state == COMPLETED
    assert job.attempts[1].nodes == job.attempts[0].nodes, "same node, and it works"
    read(d)


def test_xid_79_is_the_hardware_health_says_it_failed():
    d = night({"kind": "gpu_xid", "xid": 79, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 1)
    pick = chosen(d)
    job = d.learner_job
    assert job.state == RUNNING, "79 leaves the rank stuck, it does not crash"
    health = read(d)[f"health {pick.node}"]
    assert f"GPU {pick.gpu} " in health
    assert "FAIL: Xid 79" in health
    assert "fallen off the bus" in health


# -- straggler --------------------------------------------------------------------------------


def test_straggler_slows_steps_pages_a_warning_and_health_shows_throttling():
    d = night({"kind": "straggler", "slowdown": 2.0, "target": {"job": "train", "rank": RANK}})
    d.advance(1200)
    times = step_times(d)
    before = [b - a for a, b in zip(times, times[1:], strict=False) if b <= AT - 20][-3:]
    after = [b - a for a, b in zip(times, times[1:], strict=False) if a >= AT + 20][:3]
    assert before == [10.0] * 3
    assert after == [20.0] * 3
    [page] = alerts(d)
    assert page.severity == "warning"
    assert "step time 20s, usually 10s" in page.text
    health = read(d)[f"health {chosen(d).node}"]
    assert "clocks throttled (HW Thermal Slowdown: Active)" in health
    assert d.learner_job.state == RUNNING


# -- link_flap --------------------------------------------------------------------------------


def test_short_link_flap_slows_the_job_while_it_lasts():
    d = night(
        {"kind": "link_flap", "duration": "20s", "slowdown": 4.0, "target": {"leaf": "leaf-a1"}}
    )
    d.advance(1500)
    times = step_times(d)
    gaps = {round(a): b - a for a, b in zip(times, times[1:], strict=False)}
    during = [g for t, g in gaps.items() if AT <= t < AT + 20]
    late = [g for t, g in gaps.items() if AT + 200 <= t < AT + 400]
    assert during and all(g == 40.0 for g in during)
    # Back to 10 s steps; 30 s gaps are a step plus a 20 s checkpoint write.
    assert late and set(late) <= {10.0, 30.0} and late.count(10.0) > len(late) // 2
    assert d.learner_job.state == RUNNING and len(d.learner_job.attempts) == 1
    out = read(d)
    assert "link" not in out["health gpu-a-1"].lower(), "the node's own link stayed up"
    assert any("(uplinks): link down" in t for _, t in d.world.cluster.switch_log["leaf-a1"])
    assert not any("step time" in a.text for a in alerts(d)), "over before the page samples it"


def test_link_flap_longer_than_the_ib_retry_window_fails_nccl_within_seconds():
    d = night(
        {"kind": "link_flap", "duration": "15m", "target": {"leaf": "leaf-a1"}},
        max_restarts=0,
    )
    d.advance(AT + IB_RETRY_WINDOW - 1)
    assert d.learner_job.state == RUNNING
    d.advance(LAUNCHER_MONITOR_INTERVAL + 2)
    job = d.learner_job
    assert job.state == FAILED, "not at the 10 minute watchdog"
    assert "transport retry counter exceeded" in job.reason
    assert "ncclRemoteError" in job.reason and "Watchdog" not in job.reason
    read(d)


# -- random_failures --------------------------------------------------------------------------


def random_night(seed: int):
    d = drill(
        with_fault(
            {"kind": "random_failures", "mtbf": "2h", "at": "0s"},
            # Longer than the night: the night ends when the learner's job completes.
            jobs=[
                job_spec(
                    "train", yours=True, steps=2000, retry={"max_restarts": 5, "backoff": "30s"}
                )
            ],
        ),
        seed=seed,
    )
    d.advance(7200)
    return d


def test_random_failures_are_seeded_and_deterministic():
    one, again, other = random_night(1), random_night(1), random_night(2)
    picks = one.world.faults.chosen[SECRET_FAULT_ID]
    assert picks, "an mtbf of 2h over 8 nodes fails something in a 2h night"
    assert picks == again.world.faults.chosen[SECRET_FAULT_ID]
    assert one.world.timeline == again.world.timeline
    assert picks != other.world.faults.chosen[SECRET_FAULT_ID]
    # Each failure shows its own kind (tests/sim/test_random_failures.py): an Xid or a machine
    # check in the node's kernel log, its leaf's switch log, or a drain by the health check.
    drained = {
        e.subject
        for e in one.world.timeline
        if isinstance(e, NodeStateChanged) and "health check" in e.text
    }
    for pick in picks:
        node = one.world.cluster.nodes[pick.node]
        kernel = " ".join(text for _, text in node.kernel_log)
        switch = one.world.cluster.switch_log.get(node.leaf or "", [])
        assert "Xid" in kernel or "Machine check" in kernel or switch or pick.node in drained
    read(one, [p.node for p in picks])
