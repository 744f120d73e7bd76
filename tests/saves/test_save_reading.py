"""Reading a save: bounded, every field checked, every problem one located line, never a
traceback, from any command that reads one, and the picker opens whatever lies in the folder."""

from __future__ import annotations

import json
import os

import pytest

from drill.saves import SaveError, best_scores, read_save
from tests.clikit import run_drill
from tests.saves.savekit import play_night, records, write_records


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    save, _ = play_night(tmp_path_factory.mktemp("night"))
    return save


def deep_line(depth: int = 100_000) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture
def hostile(night, tmp_path):
    """The save with a line of 100,000 nested arrays after its header."""
    path = tmp_path / "deep.jsonl"
    lines = night.read_text().splitlines()
    path.write_text(lines[0] + "\n" + deep_line() + "\n" + "\n".join(lines[1:]) + "\n")
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["replay", "{save}"],
        ["replay", "{save}", "--verify"],
        ["runbook", "{save}"],
        ["report", "{save}"],
        ["run", "--resume", "{save}"],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_a_deeply_nested_line_is_a_located_error_everywhere(hostile, command):
    done = run_drill(*[part.format(save=hostile) for part in command])
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    assert done.stderr.startswith(f"drill: {hostile}:2: ")
    assert "nests" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_picker_opens_with_hostile_saves_in_the_folder(night, tmp_path):
    folder = tmp_path / "saves"
    folder.mkdir()
    good = folder / "good.jsonl"
    good.write_bytes(night.read_bytes())
    rows = records(night)
    (folder / "deep.jsonl").write_text(json.dumps(rows[0]) + "\n" + deep_line() + "\n")
    rows_bad_total = [dict(r) for r in rows]
    rows_bad_total[-1] = {**rows[-1], "score": {**rows[-1]["score"], "total": "lots"}}
    write_records(folder / "total.jsonl", rows_bad_total)
    os.mkfifo(folder / "fifo.jsonl")  # opening it for reading would wait forever
    os.symlink("/dev/zero", folder / "zero.jsonl")  # reading it would never end
    os.symlink(str(night), folder / "elsewhere.jsonl")
    (folder / "folder.jsonl").mkdir()
    (folder / "binary.jsonl").write_bytes(b"\xff\xfe" * 100)

    assert best_scores(folder) == {"dead-rank": rows[-1]["score"]["total"]}

    from drill.tui.screens.picker import load_entries

    entries, problems = load_entries(folder)
    assert problems == []
    assert {e.loaded.incident.id: e.best for e in entries}["dead-rank"] == rows[-1]["score"][
        "total"
    ]


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('{"type": "action", "n": NaN}', "NaN is not a number"),
        ('{"type": "action", "n": 1e999}', "too large"),
        ('{"type": "action", "type": "score"}', "appears twice"),
        ('{"type": "action", "n": ' + "9" * 5000 + "}", "too long"),
        ('"just a string"', "must be a JSON object"),
        ("{not json", "not valid JSON"),
        ('{"type": "text", "key": "k", "value": "' + "x" * 2_100_000 + '"}', "over 2 MB"),
    ],
    ids=["nan", "infinity", "repeated-key", "huge-int", "not-object", "not-json", "huge-line"],
)
def test_lines_the_game_never_writes_are_located(night, tmp_path, line, words):
    path = tmp_path / "bad.jsonl"
    lines = night.read_text().splitlines()
    path.write_text("\n".join([lines[0], line, *lines[1:]]) + "\n")
    with pytest.raises(SaveError) as caught:
        read_save(path)
    assert caught.value.line == 2
    assert words in caught.value.message
    assert str(caught.value).startswith(f"{path}:2: ")


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("ranks", 0, "`ranks` must be a whole number from 1"),
        ("ranks", True, "`ranks` must be a whole number from 1"),
        ("ranks", "4", "`ranks` must be a whole number from 1"),
        ("ranks", 1000, "`ranks` must be a whole number from 1"),
        ("backend", "cuda", '`backend` "cuda" is not one drill has'),
        ("backend", None, "`backend` null is not one drill has"),
        ("seed", True, "`seed` must be a whole number"),
        ("seed", 1.5, "`seed` must be a whole number"),
        ("format", "2", "`format` must be a whole number"),
        ("format", 99, "newer than this drill reads"),
        ("incident_sha256", "abc", "64 hex digits"),
        ("incident_id", "../etc", "is not an incident id"),
        ("origin", ["x86"], "`origin` must be an object"),
        ("colour", "blue", 'a field the game never writes: "colour"'),
    ],
)
def test_bad_header_values_are_located_at_line_one(night, tmp_path, field, value, words):
    rows = records(night)
    rows[0][field] = value
    path = write_records(tmp_path / "header.jsonl", rows)
    with pytest.raises(SaveError) as caught:
        read_save(path)
    assert caught.value.line == 1, caught.value
    assert words in caught.value.message


def test_ranks_zero_from_a_save_is_an_error_not_the_default(night, tmp_path):
    rows = records(night)
    rows[0]["ranks"] = 0
    path = write_records(tmp_path / "zero.jsonl", rows)
    done = run_drill("replay", str(path))
    assert done.returncode == 2
    assert done.stderr.startswith(f"drill: {path}:1: the header's `ranks`")


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("accepted", "yes", "`accepted` must be true or false"),
        ("accepted", 1, "`accepted` must be true or false"),
        ("n", True, "`n` must be a whole number"),
        ("time", -5, "`time` must be seconds into the night"),
        ("end", "later", "`end` must be seconds into the night"),
        ("text", "", "`text` must be a string"),
        ("result", None, "`result` must be a string"),
        ("extra", 1, "a field the game never writes"),
    ],
)
def test_bad_action_values_are_located(night, tmp_path, field, value, words):
    rows = records(night)
    rows[2][field] = value
    path = write_records(tmp_path / "action.jsonl", rows)
    with pytest.raises(SaveError) as caught:
        read_save(path)
    assert caught.value.line == 3
    assert words in caught.value.message


def test_a_missing_field_is_named(night, tmp_path):
    rows = records(night)
    del rows[-1]["end_time"]
    path = write_records(tmp_path / "score.jsonl", rows)
    with pytest.raises(SaveError, match="needs `end_time`") as caught:
        read_save(path)
    assert caught.value.line == len(rows)


def test_an_action_timed_before_the_previous_one_ended_is_refused(night, tmp_path):
    rows = records(night)
    rows[3]["time"] = rows[2]["end"] - 10
    rows[3]["end"] = rows[3]["time"]
    path = write_records(tmp_path / "early.jsonl", rows)
    with pytest.raises(SaveError, match="before the previous action ended") as caught:
        read_save(path)
    assert caught.value.line == 4


def test_a_whole_last_line_without_a_newline_is_read(night, tmp_path):
    path = write_records(tmp_path / "no-newline.jsonl", records(night), newline=False)
    save = read_save(path)
    assert save.score is not None and not save.truncated and save.needs_newline
    assert save.score_line == len(records(night))


def test_a_line_separator_inside_a_string_does_not_shift_line_numbers(night, tmp_path):
    rows = records(night)
    rows[1]["result"] += "\u2028 and \x0c a form feed"  # both stay inside one JSON line
    rows.insert(3, {"type": "wat"})
    path = write_records(tmp_path / "separators.jsonl", rows)
    with pytest.raises(SaveError, match="unknown line type") as caught:
        read_save(path)
    assert caught.value.line == 4


def test_a_form_feed_in_an_actions_file_does_not_shift_line_numbers(tmp_path):
    actions = tmp_path / "night.actions"
    actions.write_text("03:26 status llm-pretrain\n# look first\x0c then act\n+0s bogus verb\n")
    done = run_drill("run", "dead-rank", "--backend", "sim", "--actions", str(actions))
    assert done.returncode == 2
    assert done.stderr.startswith(f"drill: {actions}:3:")
    assert "bogus" in done.stderr
