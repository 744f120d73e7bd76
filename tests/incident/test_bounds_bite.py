"""Limits at their exact edge, each checked from both sides so an off-by-one cannot pass:
a triggered fault's delay plus its jitter against the night's length, the nesting a save line
may have, and a save's types (`true` is not 1, 15 is not 15.0)."""

from __future__ import annotations

import json

import pytest

from drill.incident.loader import load_incident
from drill.saves.json_line import MAX_DEPTH, parse_record
from drill.saves.model import SaveError
from drill.saves.verify import first_difference
from tests.drillkit import incident_dict, refused


def _triggered(at: str, jitter: str) -> dict:
    return {
        "id": "later",
        "kind": "kill_rank",
        "at": at,
        "jitter": jitter,
        "trigger": {"event": "restart"},
        "target": {"job": "train"},
    }


def test_a_triggered_faults_delay_plus_jitter_past_the_night_is_refused(tmp_path):
    # A 2 hour night: 1h50m of delay and 10m of jitter reach its end.
    problem, line = refused(tmp_path, "1h50m", length="2h", faults=[_triggered("1h50m", "10m")])
    assert problem.line == line
    assert "longer than the night" in problem.message


def test_a_triggered_fault_that_ends_inside_the_night_loads(tmp_path):
    import yaml

    path = tmp_path / "night.yaml"
    data = incident_dict(length="2h", faults=[_triggered("1h50m", "9m")])
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    load_incident(path)


def _nested(depth: int) -> bytes:
    value: object = 1
    for _ in range(depth - 1):
        value = [value]
    return json.dumps({"type": "action", "x": value}).encode()


def test_a_save_line_nested_to_the_limit_reads_and_one_more_is_refused():
    assert parse_record("s.jsonl", 3, _nested(MAX_DEPTH))["type"] == "action"
    with pytest.raises(SaveError) as caught:
        parse_record("s.jsonl", 3, _nested(MAX_DEPTH + 1))
    assert f"more than {MAX_DEPTH} deep" in str(caught.value)


@pytest.mark.parametrize(
    ("fresh", "saved"),
    [(True, 1), (False, 0), (1, True), (15, 15.0), ([True], [1]), ({"a": False}, {"a": 0})],
)
def test_verify_tells_types_apart(fresh, saved):
    assert first_difference(fresh, saved, "line", tolerant=False) is not None
    assert first_difference(fresh, saved, "line", tolerant=True) is not None
    assert first_difference(fresh, fresh, "line", tolerant=False) is None
