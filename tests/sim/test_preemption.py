"""Preemption: SIGTERM, a grace window, SIGKILL; a checkpoint in the window only if the job's
script handles SIGTERM; requeue; and a gang that stays pending on a fragmented cluster."""

from __future__ import annotations

import re

from drill.engine.drill import Drill
from drill.sim.events import JobStateChanged
from tests.drillkit import build, job_spec

ONE_ISLAND = [{"name": "a", "leaves": 1, "nodes_per_leaf": 4}]


def night(on_sigterm: bool, write_time: str = "30s", grace: str = "90s", every: int = 100) -> Drill:
    incident = build(
        islands=ONE_ISLAND,
        cluster={"preempt_grace": grace},
        jobs=[
            job_spec(
                "train",
                yours=True,
                gpus=16,
                priority="low",
                steps=300,
                checkpoint={
                    "every": every,
                    "keep": 3,
                    "on_sigterm": on_sigterm,
                    "write_time": write_time,
                },
            ),
            job_spec(
                "urgent",
                gpus=32,
                priority="urgent",
                submit_at="03:20",
                steps=1000,
                preemptible=False,
            ),
        ],
    )
    d = Drill(incident, 1)
    d.advance(25 * 60)
    return d


def states(d: Drill, job: str) -> list[str]:
    return [e.text for e in d.world.timeline if isinstance(e, JobStateChanged) and e.subject == job]


def test_preemption_sends_sigterm_then_requeues():
    d = night(on_sigterm=False)
    texts = states(d, "train")
    assert any("preempted by urgent: SIGTERM, grace 90s" in t for t in texts)
    assert any("no SIGTERM handler, no checkpoint" in t for t in texts)
    assert any("requeued after preemption" in t for t in texts)
    assert d.world.jobs["urgent"].state == "running"
    assert any(a.severity == "critical" and "preempted" in a.text for a in d.world.pager.alerts)


def test_a_sigterm_handler_saves_the_step_in_the_grace_window():
    d = night(on_sigterm=True)
    catalog = d.world.jobs["train"].checkpoints
    saved = [r.step for r in catalog.live()]
    assert saved[-1] > 100  # a checkpoint of the step it was on, not the last periodic one
    assert any("saved in the grace window" in t for t in states(d, "train"))


def test_a_checkpoint_longer_than_the_grace_window_is_cut_off():
    d = night(on_sigterm=True, write_time="3m", grace="60s", every=70)
    assert any("did not finish before SIGKILL" in t for t in states(d, "train")), states(d, "train")
    assert [r.step for r in d.world.jobs["train"].checkpoints.live()] == [
        70
    ]  # atomic: nothing torn


def test_a_periodic_write_in_flight_at_sigterm_gets_the_grace_window():
    d = night(on_sigterm=False, write_time="3m", grace="60s")
    assert any("was still being written at SIGKILL" in t for t in states(d, "train")), states(
        d, "train"
    )


def test_fragmentation_keeps_the_gang_pending_until_a_smaller_world_fits():
    incident = build(
        islands=ONE_ISLAND,
        jobs=[
            job_spec(
                "train",
                yours=True,
                gpus=16,
                priority="low",
                steps=500,
                nodes=["gpu-a-1", "gpu-a-2"],
            ),
            job_spec("small-a", gpus=2, steps=2000, nodes=["gpu-a-3"]),
            job_spec("small-b", gpus=2, steps=2000, nodes=["gpu-a-4"]),
            job_spec(
                "urgent",
                gpus=16,
                priority="urgent",
                submit_at="03:20",
                steps=2000,
                preemptible=False,
            ),
        ],
    )
    d = Drill(incident, 1)
    d.advance(25 * 60)
    job = d.world.jobs["train"]
    assert job.state == "pending" and job.reason.startswith("resources")
    free = {name: len(node.free_gpus()) for name, node in d.world.cluster.nodes.items()}
    assert free == {
        "gpu-a-1": 0,
        "gpu-a-2": 0,
        "gpu-a-3": 6,
        "gpu-a-4": 6,
    }  # 12 free, no whole node
    assert d.act("restart train --world 8").accepted
    d.advance(120)
    assert job.state == "pending"  # one whole node is still more than any node has free
    assert d.act("restart train --world 4").accepted
    d.advance(300)
    assert job.state == "running" and job.world == 4


def test_a_higher_class_only_preempts_lower_classes_lowest_first():
    incident = build(
        islands=ONE_ISLAND,
        jobs=[
            job_spec("train", yours=True, gpus=8, priority="normal", steps=500),
            job_spec("scavenger", gpus=8, priority="low", steps=500),
            job_spec("peer", gpus=8, priority="high", steps=500),
            job_spec("urgent", gpus=16, priority="high", submit_at="03:10", steps=500),
        ],
    )
    d = Drill(incident, 1)
    d.advance(15 * 60)
    preempted = {
        e.subject
        for e in d.world.timeline
        if isinstance(e, JobStateChanged) and "preempted by urgent" in e.text
    }
    assert "scavenger" in preempted  # the low one goes first
    assert "peer" not in preempted  # same class is never preempted


def job_log(d: Drill, job: str) -> list[str]:
    return [line.text for line in d.world.jobs[job].log.lines]


def test_the_job_log_has_slurms_preemption_line_and_not_the_preemptor_or_the_grace():
    """slurmstepd's `*** JOB ... CANCELLED AT ... DUE TO PREEMPTION ***`; the job log names
    neither the job that preempted it nor the grace, and a script without a SIGTERM handler
    prints nothing of its own before it dies (audit row 31)."""
    d = night(on_sigterm=False)
    log = job_log(d, "train")
    cancelled = [t for t in log if "DUE TO PREEMPTION" in t]
    assert len(cancelled) == 1, log
    assert re.fullmatch(
        r"slurmstepd: error: \*\*\* JOB train ON gpu-a-\d+ CANCELLED AT \d\d:\d\d:\d\d DUE TO"
        r" PREEMPTION \*\*\*",
        cancelled[0],
    ), cancelled
    assert not [t for t in log if "urgent" in t or "SIGKILL" in t or "grace" in t], log
    assert not [t for t in log if "SIGTERM" in t], "no handler, no line of its own"


def test_a_sigterm_handler_says_so_in_the_jobs_own_log():
    d = night(on_sigterm=True)
    assert [t for t in job_log(d, "train") if "caught SIGTERM" in t], job_log(d, "train")
