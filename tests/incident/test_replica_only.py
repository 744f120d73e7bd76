"""`expect.backend: replica`: a graded runbook or a reference expectation whose lesson is in the
real loss is checked only where the replica trains; `drill test --backend sim` says it skipped
it, and a runbook so marked is no rival of the reference there. A wrong value is located."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from drill.commands.testing import REPLICA_ONLY, check_incident, holds_on
from drill.incident.errors import IncidentError
from drill.incident.loader import load_incident
from drill.incident.models import Expectation
from tests.drillkit import build, incident_dict, job_spec

CRASH = {"id": "crash", "kind": "kill_rank", "at": "10m", "target": {"job": "train"}}
REFERENCE = ["{fault.crash.time}+1m ack all", "+0s restart train --from latest", "+0s note ok"]
IMPOSSIBLE = {"score_min": 100, "score_max": 100}


def night(expect: dict, reference_expect: dict | None = None):
    fields = {
        "jobs": [job_spec("train", yours=True)],
        "faults": [CRASH],
        "reference": REFERENCE,
        "runbooks": [
            {
                "name": "late",
                "why": "it waits an hour",
                "actions": ["{fault.crash.time}+60m restart train --from latest"],
                "expect": expect,
            }
        ],
        "seeds": [1],
    }
    if reference_expect is not None:
        fields["reference_expect"] = reference_expect
    return build(**fields)


def by_name(checks) -> dict[str, object]:
    return {c.runbook: c for c in checks}


def test_the_backends_an_expectation_holds_on():
    assert holds_on(Expectation(), "sim") and holds_on(Expectation(), "inprocess")
    assert not holds_on(Expectation(backend="replica"), "sim")
    assert holds_on(Expectation(backend="replica"), "inprocess")


def test_a_replica_only_runbook_is_skipped_on_sim_and_an_ordinary_one_is_judged():
    judged = by_name(check_incident(night(IMPOSSIBLE), "sim"))
    assert not judged["late"].ok, "an impossible expectation fails where it is checked"
    skipped = by_name(check_incident(night({**IMPOSSIBLE, "backend": "replica"}), "sim"))
    assert skipped["late"].ok and skipped["late"].detail == REPLICA_ONLY
    assert "late" not in skipped["reference is best"].detail, "no rival where it is not measured"


def test_a_replica_only_reference_expectation_is_skipped_on_sim():
    strict = {"recovered": True, "steps_behind_max": 0}
    judged = by_name(check_incident(night({}, strict), "sim"))
    assert not judged["reference"].ok and "steps behind" in judged["reference"].detail
    skipped = by_name(check_incident(night({}, {**strict, "backend": "replica"}), "sim"))
    assert skipped["reference"].ok and skipped["reference"].detail == REPLICA_ONLY


def test_a_wrong_backend_is_located(tmp_path: Path):
    data = incident_dict(reference_expect={"backend": "gpu"})
    text = yaml.safe_dump(data, sort_keys=False)
    path = tmp_path / "night.yaml"
    path.write_text(text)
    with pytest.raises(IncidentError) as caught:
        load_incident(path)
    problem = caught.value.problems[0]
    assert "'any' or 'replica'" in problem.message or "any, replica" in problem.message, problem
    assert problem.line == next(
        i for i, raw in enumerate(text.splitlines(), 1) if "backend: gpu" in raw
    )
