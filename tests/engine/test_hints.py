"""`hint` at the moment it is needed (audit defect 5): a page shortly before a hint's time
brings the hint forward to the page, and a hint whose commands the learner already ran is
skipped without cost."""

from __future__ import annotations

from drill.engine.drill import Drill
from drill.incident.library import resolve_incident


def tutorial() -> Drill:
    return Drill(resolve_incident("tutorial").incident, 1)


def page_time(d: Drill) -> float:
    return d.world.pager.alerts[0].time


def test_the_hint_for_a_page_is_there_when_the_page_fires():
    d = tutorial()
    assert d.act("status").accepted
    while not d.world.pager.alerts:
        d.advance(5)
    assert page_time(d) < d.incident.hints[1].after  # the hints are due a minute later
    result = d.act("hint")
    assert result.accepted, result.output
    assert "A page fired" in result.output  # the `status` hint was done, so skipped


def test_a_hint_for_what_the_learner_already_did_is_skipped():
    d = tutorial()
    d.advance(d.incident.hints[1].after)
    for line in ("status", "ack P1", "logs tiny-train", "status tiny-train"):
        assert d.act(line).accepted, line
    result = d.act("hint")
    assert result.accepted, result.output
    assert "health gpu-a-1" in result.output
    assert len(d.ctx.hints_shown) == 1  # the skipped ones cost nothing


def test_the_oom_hints_do_not_call_a_restart_the_whole_fix():
    """A host OOM kill comes back unless the job's memory use changes: the hint says so,
    and never that a healthy node makes a restart the fix (audit row 37)."""
    for name in ("bad-data-shard", "corrupt-checkpoint"):
        [hint] = [h.text for h in resolve_incident(name).incident.hints if "OOM" in h.text]
        assert "restart is the fix" not in hint, (name, hint)
        assert "OOM again" in hint, (name, hint)
