"""Timed actions files: `03:12 health gpu-a-2`, `+2m status`, `{fault.ID.time}+5m logs JOB`, and
templates that name what a fault chose. Every bad line is an ActionsFileError at path:line:col."""

from __future__ import annotations

import re

import pytest

from drill.engine.drill import Drill
from drill.engine.headless import play, resolve_time
from drill.engine.timed import ActionsFileError, TimedAction, load_file, parse_line, parse_text

FAULTS = {"gpu-dies"}


def parse(text: str, fault_ids=FAULTS) -> list[TimedAction]:
    return parse_text(text, "night.actions", fault_ids)


def error(text: str, fault_ids=FAULTS) -> ActionsFileError:
    with pytest.raises(ActionsFileError) as info:
        parse(text, fault_ids)
    exc = info.value
    assert str(exc) == f"{exc.path}:{exc.line}:{exc.col}: {exc.message}"
    assert "\n" not in str(exc)
    return exc


def test_good_lines_comments_and_blank_lines():
    text = "\n".join(
        [
            "# a comment",
            "03:12 health gpu-a-2",
            "",
            "   # an indented comment",
            "03:12:30 cordon gpu-a-2",
            "+2m restart llm --from latest",
            "  +0s status   llm  ",
            "{fault.gpu-dies.time}+5m logs llm",
            "{fault.gpu-dies.time} ack P1",
            "03:40+90s note seen it",
        ]
    )
    assert parse(text) == [
        TimedAction(2, "03:12", "health gpu-a-2"),
        TimedAction(5, "03:12:30", "cordon gpu-a-2"),
        TimedAction(6, "+2m", "restart llm --from latest"),
        TimedAction(7, "+0s", "status   llm"),
        TimedAction(8, "{fault.gpu-dies.time}+5m", "logs llm"),
        TimedAction(9, "{fault.gpu-dies.time}", "ack P1"),
        TimedAction(10, "03:40+90s", "note seen it"),
    ]


def test_templates_are_kept_until_the_action_runs():
    [action] = parse("+0s restart llm --exclude {fault.gpu-dies.node}")
    assert action.text == "restart llm --exclude {fault.gpu-dies.node}"
    for field in ("node", "gpu", "rank", "job", "leaf", "nodes", "time"):
        assert parse(f"+0s note {{fault.gpu-dies.{field}}}")


def test_empty_file_is_no_actions():
    assert parse("") == []
    assert parse("# only a comment\n\n") == []


@pytest.mark.parametrize(
    ("text", "line", "col", "words"),
    [
        ("03:99 status", 1, 1, "out of range"),
        ("25:00 status", 1, 1, "out of range"),
        ("3pm status", 1, 1, "expected a time first"),
        ("status", 1, 1, "expected a time first"),
        ("+2x status", 1, 1, "expected a time first"),
        ("+1h1h status", 1, 1, "expected a duration"),
        ("# ok\n\n   03:1 status", 3, 4, "expected a time first"),
        ("03:12", 1, 7, "a time needs an action after it"),
        ("03:10 statsu", 1, 7, "unknown action `statsu`; did you mean `status`?"),
        ("# ok\n  +1m ckpt lsit llm", 2, 7, "did you mean `ckpt list`?"),
        ("03:10 sta\x07tus", 1, 7, "control characters"),
        ("{fault.nope.time}+5m status", 1, 1, "no fault with id 'nope'; faults here: gpu-dies"),
        ("+0s drain {fault.nope.node}", 1, 11, "no fault with id 'nope'"),
        ("+0s drain {fault.gpu-dies.colour}", 1, 11, "unknown fault field 'colour'"),
        ("+0s drain {node}", 1, 1, "not `{fault.ID.FIELD}`"),
        ("{fault.gpu-dies.node}+5m status", 1, 1, "expected a time first"),
    ],
)
def test_bad_lines_are_located(text, line, col, words):
    exc = error(text)
    assert (exc.path, exc.line, exc.col) == ("night.actions", line, col)
    assert words in exc.message


def test_unknown_fault_id_with_no_faults_says_none():
    exc = error("{fault.x.time} status", fault_ids=set())
    assert exc.message.endswith("faults here: none")


def test_fault_ids_are_not_checked_when_not_given():
    assert parse_line("{fault.anything.time}+1m status", "p", 1, None) is not None


def test_column_counts_every_space_between_time_and_action():
    exc = error("03:10    statsu")
    assert exc.col == 10  # the `s` of statsu


def test_file_errors(tmp_path):
    with pytest.raises(ActionsFileError) as info:
        load_file(tmp_path / "missing.actions")
    assert str(info.value).startswith(f"{tmp_path / 'missing.actions'}:1:1: file not found")
    with pytest.raises(ActionsFileError) as info:
        load_file(tmp_path)
    assert "folder" in info.value.message
    bad = tmp_path / "latin1.actions"
    bad.write_bytes(b"03:10 status\n03:11 note caf\xe9\n")
    with pytest.raises(ActionsFileError) as info:
        load_file(bad)
    assert (info.value.line, info.value.col) == (2, 1)
    assert "UTF-8" in info.value.message
    good = tmp_path / "good.actions"
    good.write_text("03:10 status\n+1m queue\n", encoding="utf-8")
    assert [a.text for a in load_file(good)] == ["status", "queue"]


# -- resolving times and templates against a real night ----------------------------------------


def test_fault_relative_time_and_templates_resolve_when_played(dead_rank):
    d = Drill(dead_rank, 1)
    actions = parse(
        "\n".join(
            [
                "{fault.gpu-dies.time}+5m status llm-pretrain",
                "+0s health {fault.gpu-dies.node}",
                "+0s note gpu {fault.gpu-dies.gpu} rank {fault.gpu-dies.rank} at {fault.gpu-dies.time} on {fault.gpu-dies.nodes}",
            ]
        )
    )
    fired = d.world.faults.times["gpu-dies"]
    assert resolve_time(d, actions[0], 0.0) == fired + 300.0
    play(d, actions)
    pick = d.world.faults.chosen["gpu-dies"][0]
    first, second, third = d.actions
    assert first.time == fired + 300.0
    assert second.text == f"health {pick.node}" and second.accepted
    assert second.time == first.end
    assert third.text == (
        f"note gpu {pick.gpu} rank {pick.rank} at {d.clock(fired)} on {pick.node}"
    )
    assert not any("{" in a.text for a in d.actions)


def test_template_for_a_fault_that_has_not_fired_is_rejected_not_raised(dead_rank):
    d = Drill(dead_rank, 1)
    play(d, parse("03:01 health {fault.gpu-dies.node}\n+1m status"))
    first, second = d.actions
    assert not first.accepted
    assert "has not fired yet" in first.output
    assert second.accepted and second.time == 60.0 + 60.0


def test_clock_times_resolve_against_the_night_start(dead_rank):
    d = Drill(dead_rank, 1)
    [a, b, c] = parse("03:12 status\n03:12:30+1m status\n+90s status")
    assert resolve_time(d, a, 0.0) == 720.0
    assert resolve_time(d, b, 0.0) == 810.0
    assert resolve_time(d, c, 1000.0) == 1090.0


def test_reference_lines_of_the_shipped_incident_parse(dead_rank):
    actions = parse("\n".join(dead_rank.reference))
    assert len(actions) == len(dead_rank.reference)
    assert all(re.match(r"^(\{fault\.gpu-dies\.time\}|\+)", a.when) for a in actions)
