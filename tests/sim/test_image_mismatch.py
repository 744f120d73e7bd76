"""version_mismatch: a node with another driver and NCCL. A gang's start-up with it never
completes and nothing times it out: the job stays starting, pages after five minutes without
a step, and a restart onto the node hangs again; excluding it trains."""

from __future__ import annotations

from drill.sim.jobs import COMPLETED, RUNNING
from tests.drillkit import assert_no_fault_names, build, drill, job_spec, learner_outputs

ID = "zz-secret-fault"
TRAIN = job_spec("train", yours=True, nodes=["gpu-a-1", "gpu-a-2"], steps=100)
FAULT = {"id": ID, "kind": "version_mismatch", "at": "0s", "target": {"node": "gpu-a-2"}}


def night():
    return drill(build(jobs=[TRAIN], faults=[FAULT]))


def test_the_start_up_hangs_all_night_and_nothing_fails_it():
    d = night()
    d.advance(7000)
    job = d.learner_job
    assert job.state == RUNNING and len(job.attempts) == 1 and job.restarts_used == 0
    assert job.step == 0 and not job.current.training
    texts = [line.text for line in job.log.lines]
    assert not any("Watchdog" in t or "Error" in t for t in texts), texts
    assert "[rank8] gpu-a-2: driver 535.104.05, CUDA 12.4, NCCL 2.18.5" in texts
    assert "[rank0] gpu-a-1: driver 550.54.15, CUDA 12.4, NCCL 2.21.5" in texts
    pages = [a.text for a in d.world.pager.alerts]
    assert pages == ["train: no training progress for 5m (no step since it was placed at 03:00:00)"]


def test_the_looks_show_a_job_stuck_starting_and_the_odd_image():
    d = night()
    d.advance(600)
    status = d.act("status train").output
    assert "attempt 1 starting since 03:00:00" in status
    health = d.act("health gpu-a-2").output
    assert (
        "image: FAIL driver 535.104.05, NCCL 2.18.5; the fleet's image has driver 550.54.15"
        in health
    )
    assert "image:" not in d.act("health gpu-a-1").output
    assert_no_fault_names(learner_outputs(d, "train", ["gpu-a-1", "gpu-a-2"]), ID)


def test_a_normal_start_up_says_nothing_about_starting():
    d = drill(build(jobs=[TRAIN]))
    d.advance(70)
    assert "starting since" not in d.act("status train").output


def test_a_restart_onto_the_node_hangs_again_and_excluding_it_trains():
    d = night()
    d.advance(400)
    assert d.act("restart train").accepted
    d.advance(900)
    job = d.learner_job
    assert job.current.startup_hung_on == "gpu-a-2" and job.step == 0
    assert d.act("restart train --exclude gpu-a-2").accepted
    d.advance(3600)
    assert job.state == COMPLETED and "gpu-a-2" not in job.attempts[-1].nodes
