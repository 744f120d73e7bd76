"""bad_shard and `restart --skip`: the fault's fields are refused at their line, it reaches the
replica's trainer as a bad stretch of the stream, and a restart that skips the stretch moves the
real data cursor past it, in that attempt and every later one."""

from __future__ import annotations

from pathlib import Path

import pytest

from drill.engine.drill import Drill
from drill.engine.replica_training import ReplicaTraining
from tests.drillkit import assert_no_fault_names, build, drill, job_spec, refused

SMALL = {"width": 16, "context": 16, "global_batch": 8}
BAD = {"id": "zz-secret-fault", "kind": "bad_shard", "at": "0s", "first_step": 30, "steps": 10}


@pytest.mark.parametrize(
    ("change", "marker", "words"),
    [
        ({"first_step": 0}, "first_step", "at least 1, got 0"),
        ({"steps": 0}, "steps: 0", "at least 1, got 0"),
        ({"steps": 20_000}, "steps: 20000", "at most 10000"),
        ({"target": {"job": "trian"}}, "trian", "no job named 'trian'"),
    ],
)
def test_each_wrong_field_is_refused_at_its_line(tmp_path, change, marker, words) -> None:
    problem, line = refused(tmp_path, marker, faults=[{**BAD, **change}])
    assert problem.line == line, problem
    assert words in problem.message, problem.message


def test_without_first_step_it_says_the_field_is_missing(tmp_path) -> None:
    fault = {k: v for k, v in BAD.items() if k != "first_step"}
    problem, _ = refused(tmp_path, "bad_shard", faults=[fault])
    assert "first_step" in str(problem.path) or "first_step" in problem.message


@pytest.fixture
def night(tmp_path: Path):
    incident = build(
        jobs=[job_spec("train", yours=True, steps=60, replica=SMALL)], faults=[dict(BAD)]
    )
    training = ReplicaTraining(incident, cache_dir=tmp_path / "cache")
    d = Drill(incident, 1, training=training, backend="inprocess")
    yield d, training
    training.close()


def test_the_fault_reaches_the_real_trainer_and_pages_nobody(night) -> None:
    d, training = night
    d.advance(60 + 30 + 10 * 35)  # start-up, rendezvous, 35 steps
    # Step 30 is the 30th step: it reads batch 29 of the replica's stream.
    (first, last, seed) = training.bad_data[0]
    assert (first, last) == (29, 38)
    assert training.trainer.bad_ranges == ((29, 38, seed),)
    assert not d.world.pager.alerts
    assert_no_fault_names({"logs": d.act("logs train --rank 0").output})


def test_the_seed_of_the_corruption_follows_the_night_seed() -> None:
    seeds = []
    for seed in (1, 1, 2):
        incident = build(jobs=[job_spec("train", yours=True, steps=60)], faults=[dict(BAD)])
        recorded: list[tuple] = []

        d = drill(incident, seed)
        d.world.training.corrupt_data = lambda *args, into=recorded: into.append(args)
        d.advance(30)
        seeds.append(recorded[0][3])
    assert seeds[0] == seeds[1] != seeds[2]


def test_restart_with_a_skip_moves_the_real_cursor_past_the_range(night) -> None:
    d, training = night
    d.advance(60 + 30 + 10 * 22 + 5)  # checkpoint at step 20 is written, job at step 22
    result = d.act("restart train --from 20 --skip 30-39")
    assert result.accepted, result.output
    assert "skipping the data of steps 30-39" in result.output
    d.advance(60 + 30 + 45 + 10 * 12)
    trainer = training.trainer
    assert trainer.skips == ((20, 29, 38),)
    assert trainer.step >= 31 and trainer.next_batch == trainer.step + 10
    assert d.learner_job.data_skips == [(30, 39)]


def test_skip_is_checked_where_it_is_typed() -> None:
    d = drill(build(jobs=[job_spec("train", yours=True, steps=60)]))
    d.advance(200)
    for line, words in [
        ("restart train --skip 40-30", "A at most B"),
        ("restart train --skip x-3", "whole number"),
        ("restart train --skip 10-900", "--skip end must be between 1 and 60"),
        ("restart train --skip 0-3", "--skip start must be between 1 and 60"),
    ]:
        result = d.act(line)
        assert not result.accepted and words in result.output, (line, result.output)
    assert d.act("restart train --skip 10-12").accepted
    assert d.learner_job.data_skips == [(10, 12)]


def test_the_gloo_backend_refuses_a_night_with_a_bad_shard_in_one_line() -> None:
    from drill.engine.gloo_training import GlooTraining
    from replica.errors import ReplicaRefused

    incident = build(jobs=[job_spec("train", yours=True, steps=60)], faults=[dict(BAD)])
    with pytest.raises(ReplicaRefused, match="gloo backend does not carry a bad stretch"):
        GlooTraining(incident)


@pytest.mark.parametrize(
    ("restart", "clean"),
    [
        (None, False),  # trained through the bad stretch: counted from its last bad step
        ("restart train --from latest", False),  # step 40 holds the damage
        ("restart train --from 20", False),  # reads the same bad data again
        ("restart train --from 20 --skip 30-39", True),
    ],
)
def test_the_sim_counts_progress_from_the_last_bad_step_unless_skipped(restart, clean) -> None:
    incident = build(
        jobs=[job_spec("train", yours=True, steps=200)], faults=[dict(BAD)], length="1h"
    )
    d = drill(incident)
    d.advance(60 + 30 + 10 * 45 + 3 * 20)
    if restart is not None:
        assert d.act(restart).accepted
    d.advance(3600)
    job = d.learner_job
    attempt = job.attempts[-1]
    if clean:
        assert attempt.poisoned_from is None, attempt
    else:
        assert attempt.poisoned_from == 39, attempt.poisoned_from
    assert attempt.data_next == job.step + 1 + (10 if clean else 0)
