"""`drill test` fails an incident whose reference is not beaten by the worse runbooks made from
it: a reference that restarts "from latest" before the job ever wrote a checkpoint is no better
than the same restart from scratch, so the generated `worse:from-scratch` scores as well as the
reference and the check fails, naming the class and the scores. The same incident with the
crash after the first checkpoints passes that check."""

from __future__ import annotations

from drill.commands.testing import check_incident
from tests.drillkit import build, job_spec


def night(crash_at: str):
    return build(
        jobs=[
            job_spec("train", yours=True, checkpoint={"every": 20, "keep": 3, "write_time": "20s"})
        ],
        faults=[{"id": "crash", "kind": "kill_rank", "at": crash_at, "target": {"job": "train"}}],
        reference=[
            "{fault.crash.time}+1m ack all",
            "+0s status train",
            "+0s ckpt list train",
            "+0s restart train --from latest",
            "+0s note crashed; restarted from latest",
        ],
        seeds=[1],
    )


def _check(checks, name):
    return next(c for c in checks if c.runbook == name)


def test_a_reference_no_better_than_its_worse_class_fails_drill_test():
    # A crash one minute in: no checkpoint exists, so "latest" is the start.
    check = _check(check_incident(night("1m"), "sim"), "worse:from-scratch")
    assert not check.ok, check.detail
    assert "every restart throws its checkpoint away scored" in check.detail
    assert "at least 10 below the reference" in check.detail


def test_the_same_incident_with_checkpoints_to_lose_passes_it():
    check = _check(check_incident(night("25m"), "sim"), "worse:from-scratch")
    assert check.ok, check.detail
