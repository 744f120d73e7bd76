"""Typed events: every event a shipped night emits is one of the declared classes, its JSON form
reads back to the same event, and a JSON entry of a kind nobody declared is refused.

The sweep plays every shipped incident's reference (with `hint` typed first, so hints show up
too) and its graded runbooks on the sim backend. `job_log` is the one kind no sim night emits: only real
processes print it (tests/gloo/test_gloo_backend.py reads it there).
"""

from __future__ import annotations

import json
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drill.engine.drill import Drill
from drill.engine.headless import play
from drill.engine.timed import parse_text
from drill.errors import UserError
from drill.incident.library import shipped_incident_files
from drill.incident.loader import load_incident
from drill.sim.events import (
    EVENT_KINDS,
    TRAINING,
    AlertFired,
    Event,
    HarmDone,
    JobStateChanged,
    NodeStateChanged,
    StepTaken,
    event_from_json,
)
from drill.states import JobState, NodeState

SHIPPED = shipped_incident_files()
ONLY_REAL_PROCESSES = {"job_log"}


def night(incident, lines: list[str]) -> tuple[Event, ...]:
    d = Drill(incident, incident.seeds[0])
    play(d, parse_text("\n".join(lines), "reference", {f.id for f in incident.faults}))
    return tuple(d.world.timeline)


@cache
def shipped_nights(path) -> tuple[Event, ...]:
    """The reference's night and each graded runbook's (the wrong ones are where harm is)."""
    incident = load_incident(path).incident
    lines = ["+0s hint", *incident.reference] if incident.hints else list(incident.reference)
    found = night(incident, lines)
    for book in incident.runbooks:
        found += night(incident, book.actions)
    return found


def through_json(event: Event) -> Event:
    """The event as a file would hold it: dumped to text and read back."""
    return event_from_json(json.loads(json.dumps(event.to_json())))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_event_of_a_shipped_night_is_a_declared_class_and_reads_back(path):
    for event in shipped_nights(path):
        assert EVENT_KINDS[event.kind] is type(event), event
        assert event.to_json()["kind"] == event.kind
        back = through_json(event)
        assert type(back) is type(event)
        assert back.to_json() == event.to_json()
        if event.time == round(event.time, 3):
            assert back == event


def test_the_shipped_nights_emit_every_kind_but_the_real_process_lines():
    seen = {event.kind for path in SHIPPED for event in shipped_nights(path)}
    assert seen == set(EVENT_KINDS) - ONLY_REAL_PROCESSES


def test_a_screen_sees_no_hidden_event():
    incident = load_incident(SHIPPED[0]).incident
    d = Drill(incident, incident.seeds[0])
    d.play_out()
    shown = d.events()
    assert shown and not any(e.hidden for e in shown)
    assert any(e.hidden for e in d.world.timeline)


def test_the_json_form_is_the_timeline_of_old():
    """Accounts and the tests that read them depend on these exact words and keys."""
    assert sorted(EVENT_KINDS) == [
        "action",
        "alert",
        "checkpoint",
        "fault",
        "harm",
        "hint",
        "job_log",
        "job_state",
        "node_state",
        "step",
    ]
    alert = AlertFired(12.34567, "gpu-a-2", "Xid 79", id="P1", severity="critical")
    assert alert.to_json() == {
        "time": 12.346,
        "kind": "alert",
        "subject": "gpu-a-2",
        "text": "Xid 79",
        "data": {"id": "P1", "severity": "critical"},
    }
    assert HarmDone(3.0, "gpu-a-1", "cordon gpu-a-1").to_json()["data"] == {"hidden": True}
    submitted = JobStateChanged(0.0, "train", "train submitted")
    assert "data" not in submitted.to_json()
    training = JobStateChanged(5.0, "train", "train training", state=TRAINING, step=0)
    assert training.to_json()["data"] == {"state": "training", "step": 0}
    assert StepTaken(1.0, "train", "step 1", step=1, loss=None).to_json()["data"] == {
        "step": 1,
        "loss": None,
    }


names = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=20)
times = st.integers(0, 10**9).map(lambda n: n / 1000)
events = st.one_of(
    st.builds(AlertFired, times, names, names, id=names, severity=names),
    st.builds(
        JobStateChanged,
        times,
        names,
        names,
        state=st.one_of(st.none(), st.sampled_from([*JobState, TRAINING])),
        step=st.one_of(st.none(), st.integers(0, 10**6)),
    ),
    st.builds(NodeStateChanged, times, names, names, state=st.sampled_from(NodeState)),
    st.builds(
        StepTaken,
        times,
        names,
        names,
        step=st.integers(0, 10**6),
        loss=st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
    ),
    *(
        st.builds(cls, times, names, names)
        for cls in EVENT_KINDS.values()
        if cls not in (AlertFired, JobStateChanged, NodeStateChanged, StepTaken)
    ),
)


@given(events)
def test_any_event_round_trips_through_json(event):
    assert through_json(event) == event


@pytest.mark.parametrize(
    "entry, says",
    [
        ({"time": 1.0, "kind": "page", "subject": "x", "text": "y"}, "unknown event kind 'page'"),
        ({"time": 1.0, "subject": "x", "text": "y"}, "unknown event kind None"),
        ({"time": 1.0, "kind": "alert", "subject": "x", "text": "y"}, "does not read"),
        (
            {"time": 1, "kind": "step", "subject": "x", "text": "y", "data": {"stp": 1}},
            "a step event has no stp; it has loss, step",
        ),
        (
            {"time": 1.0, "kind": "step", "text": "y", "data": {"step": 1, "loss": 0.5}},
            "no subject",
        ),
        (
            {"time": 1.0, "kind": "fault", "subject": "f", "text": "y"},
            "a fault event is always hidden",
        ),
        (
            {
                "time": 1.0,
                "kind": "node_state",
                "subject": "n",
                "text": "y",
                "data": {"state": "on"},
            },
            "does not read",
        ),
    ],
)
def test_an_entry_that_is_no_event_is_refused_in_one_line(entry, says):
    with pytest.raises(UserError) as refused:
        event_from_json(entry, where="night.json line 3")
    message = str(refused.value)
    assert message.startswith("night.json line 3: ") and says in message
    assert "\n" not in message


def test_an_unknown_kind_names_the_kinds_there_are():
    with pytest.raises(UserError, match="the kinds are action, alert, checkpoint, fault"):
        event_from_json({"time": 1.0, "kind": "page", "subject": "x", "text": "y"})


def test_a_kind_is_declared_once_and_every_event_has_one():
    with pytest.raises(TypeError, match="two event classes say kind 'step'"):

        class Again(Event, kind="step"):  # noqa: F841 (declaring it is the test)
            pass

    assert EVENT_KINDS["step"] is StepTaken
    with pytest.raises(TypeError, match="must say its kind"):

        class Nameless(Event):  # noqa: F841
            pass

    with pytest.raises(TypeError, match="the base of the kinds"):
        Event(0.0, "x", "y")
