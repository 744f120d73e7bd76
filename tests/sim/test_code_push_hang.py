"""collective_mismatch: new code issues another collective on some ranks. The gang hangs with
every rank's collective count equal; the watchdog lines and the flight recorder (`trace`) show
the ranks disagree at one sequence number; every attempt on the same code hangs again, on any
nodes, and only `rollback` to the previous version trains on."""

from __future__ import annotations

import re

import pytest

from drill.sim.jobs import COMPLETED, FAILED
from tests.drillkit import assert_no_fault_names, build, drill, job_spec, learner_outputs

ID = "zz-secret-fault"
CODE = {"code_version": "a2c41f7", "previous_code_version": "9be03d5"}
TRAIN = job_spec(
    "train", yours=True, steps=200, retry={"max_restarts": 1, "backoff": "30s"}, **CODE
)
FAULT = {
    "id": ID,
    "kind": "collective_mismatch",
    "at": "10m",
    "after_steps": 5,
    "target": {"job": "train", "rank": 0},
}


def night(**job):
    return drill(build(jobs=[{**TRAIN, **job}], faults=[FAULT]))


def test_the_gang_hangs_with_every_rank_at_the_same_collective():
    d = night()
    d.advance(600 + 60)
    job = d.learner_job
    assert job.current.stall_wake is not None and job.current.hung_ranks == {}
    perf = d.act("perf train").output
    counts = set(re.findall(r"enq \d+ done \d+", perf))
    assert len(counts) == 1, f"every rank enqueued the same collective: {perf}"
    odd, even = d.act("stack train 0").output, d.act("stack train 3").output
    assert "broadcast (torch/distributed/distributed_c10d.py" in odd
    assert "broadcast" not in even and "all_reduce" in even
    assert "no flight recorder dump" in d.act("trace train").output


def test_the_watchdog_and_the_flight_recorder_show_the_ranks_disagree():
    d = night()
    d.advance(600 + 600 + 60)  # past the 10m collective timeout
    job = d.learner_job
    lines = [line.text for line in job.log.lines]
    odd = [t for t in lines if t.startswith("[rank0]:") and "Watchdog caught" in t]
    rest = [t for t in lines if t.startswith("[rank5]:") and "Watchdog caught" in t]
    assert odd and "OpType=BROADCAST, NumelIn=1," in odd[0]
    assert rest and "OpType=ALLREDUCE, NumelIn=8388608," in rest[0]
    seqs = {re.search(r"SeqNum=(\d+)", t).group(1) for t in odd + rest}
    assert len(seqs) == 1, "the same sequence number on every rank"
    out = d.act("trace train").output
    rows = [r.split() for r in out.splitlines()[2:]]
    assert len(rows) == 16 and {r[2] for r in rows} == seqs
    assert [r[3] for r in rows] == ["BROADCAST"] + ["ALLREDUCE"] * 15
    assert_no_fault_names(learner_outputs(d, "train", list(job.nodes)), ID)


@pytest.mark.parametrize("line", ["restart train", "restart train --exclude gpu-a-1"])
def test_every_attempt_on_the_new_code_hangs_again_wherever_it_runs(line):
    d = night()
    d.advance(600 + 120)
    assert d.act(line).accepted
    d.advance(3600)
    job = d.learner_job
    assert job.state != COMPLETED
    hung = [a for a in job.attempts if a.mismatched]
    assert len(hung) >= 2, "the attempt after the restart hung again"
    if "--exclude" in line:
        assert "gpu-a-1" not in hung[-1].nodes


def test_a_rollback_runs_the_previous_code_and_trains_to_the_end():
    d = night()
    d.advance(600 + 120)
    result = d.act("rollback train")
    assert result.accepted, result.output
    assert "rolled back from a2c41f7 to 9be03d5" in result.output
    assert "code version 9be03d5 (before it: a2c41f7)" in d.act("status train").output
    d.advance(7200)
    job = d.learner_job
    assert job.state == COMPLETED and job.code_version == "9be03d5"
    assert not job.attempts[-1].mismatched


def test_a_rollback_is_refused_without_an_earlier_version():
    d = night(previous_code_version=None)
    d.advance(600 + 120)
    result = d.act("rollback train")
    assert not result.accepted
    assert "no earlier code version to go back to: it runs a2c41f7" in result.output


def test_left_alone_the_retries_hang_again_and_the_job_fails():
    d = night()
    d.advance(7200)
    job = d.learner_job
    assert job.state == FAILED and job.restarts_used == 1
    assert all(a.mismatched for a in job.attempts)


def test_the_gloo_backend_refuses_the_night_in_one_line():
    from drill.engine.gloo_training import GlooTraining
    from replica.errors import ReplicaRefused

    with pytest.raises(ReplicaRefused, match="gloo backend cannot play a mismatched collective"):
        GlooTraining(build(jobs=[TRAIN], faults=[FAULT]))


def test_a_rank_stuck_outside_nccl_shows_an_earlier_entry_in_the_flight_recorder():
    # hang_rank: the stuck rank never enqueued the collective the others timed out in.
    spec = {"id": ID, "kind": "hang_rank", "at": "10m", "target": {"job": "train", "rank": 5}}
    d = drill(build(jobs=[TRAIN], faults=[spec]))
    d.advance(600 + 600 + 60)
    rows = [r.split() for r in d.act("trace train").output.splitlines()[2:]]
    seq = {r[2] for r in rows if r[0] != "5"}
    assert len(seq) == 1 and rows[5][2] == str(int(seq.pop()) - 1) and rows[5][5] == "completed"
    assert {r[3] for r in rows} == {"ALLREDUCE"}


def test_a_sharded_jobs_flight_recorder_shows_its_own_collectives():
    """A job whose weights outgrow a GPU gathers parameters and reduce-scatters gradients; its
    watchdog lines said so while `trace` still showed the data-parallel ALLREDUCE."""
    d = night(model_params="70B", bytes_per_param=14)
    d.advance(600 + 600 + 60)
    lines = [line.text for line in d.learner_job.log.lines]
    caught = [t for t in lines if t.startswith("[rank5]:") and "Watchdog caught" in t]
    usual = re.search(r"OpType=(\w+)", caught[0]).group(1)
    assert usual in ("_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE")
    rows = [r.split() for r in d.act("trace train").output.splitlines()[2:]]
    assert [r[3] for r in rows] == ["BROADCAST"] + [usual] * 15
