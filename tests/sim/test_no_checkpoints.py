"""A job whose script writes no checkpoints: it never saves, a restart starts from step 0, a
preemption's grace window saves nothing, `set` says it changes nothing, and a plan that offers
checkpoint choices for it is refused at its line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from drill.incident.errors import IncidentError
from drill.incident.loader import load_incident
from drill.sim.events import CheckpointEvent
from tests.drillkit import build, drill, incident_dict, job_spec

BARE = job_spec(
    "train",
    yours=True,
    checkpoint={"enabled": False, "on_sigterm": True},
    retry={"max_restarts": 1, "backoff": "30s"},
)
CRASH = {"id": "crash", "kind": "kill_rank", "at": "20m", "target": {"job": "train"}}


def test_a_job_without_checkpoints_never_saves_and_restarts_from_scratch():
    d = drill(build(jobs=[BARE], faults=[CRASH]))
    d.advance(1500)
    job = d.learner_job
    assert not [e for e in d.world.timeline if isinstance(e, CheckpointEvent)]
    assert job.checkpoints.latest_step is None
    assert job.attempts[1].from_step == 0, "the retry starts over"
    logs = [line.text for line in job.log.lines]
    assert any("resumed from scratch (step 0)" in text for text in logs)


def test_set_on_it_says_it_changes_nothing():
    d = drill(build(jobs=[BARE]))
    result = d.act("set train ckpt-every 10")
    assert not result.accepted
    assert "train writes no checkpoints (its script has none)" in result.output


def test_a_plan_offering_checkpoint_choices_for_it_is_located(tmp_path: Path):
    data = incident_dict(
        jobs=[BARE], plan={"job": "train", "choices": {"ckpt-every": {"min": 10, "max": 50}}}
    )
    path = tmp_path / "night.yaml"
    text = yaml.safe_dump(data, sort_keys=False)
    path.write_text(text)
    with pytest.raises(IncidentError) as caught:
        load_incident(path)
    [problem] = caught.value.problems
    assert "writes no checkpoints" in problem.message
    # A mapping's place is its first entry's line.
    assert problem.line == text.splitlines().index("    ckpt-every:") + 1


def test_enabled_must_be_true_or_false(tmp_path: Path):
    data = incident_dict(jobs=[job_spec("train", yours=True, checkpoint={"enabled": "never"})])
    path = tmp_path / "night.yaml"
    text = yaml.safe_dump(data, sort_keys=False)
    path.write_text(text)
    with pytest.raises(IncidentError) as caught:
        load_incident(path)
    problem = caught.value.problems[0]
    assert "expected true or false" in problem.message
    assert problem.line == next(
        i for i, raw in enumerate(text.splitlines(), 1) if "enabled:" in raw
    )
