"""The save file: written as the game goes, read back up to the last complete action, and
refused with a located message when it is damaged."""

from __future__ import annotations

import json

import pytest

from drill.engine.drill import ActionResult
from drill.saves import FORMAT, SaveError, SaveWriter, read_save


def new_save(tmp_path, actions=2):
    path = tmp_path / "night.jsonl"
    writer = SaveWriter.start(
        path,
        incident_id="dead-rank",
        incident_sha256="ab" * 32,
        incident_path="x.yaml",
        seed=1,
        backend="sim",
    )
    for n in range(1, actions + 1):
        writer.action(
            n, ActionResult(60.0 * n, 60.0 * n + 15, f"status {n}", n % 2 == 1, f"out {n}")
        )
    writer.close()
    return path


def test_round_trip(tmp_path):
    path = new_save(tmp_path, actions=3)
    save = read_save(path)
    assert save.header["format"] == FORMAT
    assert [a.text for a in save.actions] == ["status 1", "status 2", "status 3"]
    assert [a.accepted for a in save.actions] == [True, False, True]
    assert save.score is None and not save.truncated


def test_every_line_is_on_disk_before_close(tmp_path):
    path = tmp_path / "live.jsonl"
    writer = SaveWriter.start(
        path,
        incident_id="i",
        incident_sha256="0" * 64,
        incident_path="i.yaml",
        seed=3,
        backend="sim",
    )
    writer.action(1, ActionResult(1.0, 2.0, "queue", True, "ok"))
    # Not closed: a crash now must still leave a readable save.
    assert len(read_save(path).actions) == 1
    writer.close()


def test_a_line_cut_short_by_a_crash_is_dropped_not_fatal(tmp_path):
    path = new_save(tmp_path, actions=2)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"type": "action", "n": 3, "time": 30')  # no newline: the crash point
    save = read_save(path)
    assert len(save.actions) == 2 and save.truncated
    writer = SaveWriter.reopen(save)
    writer.action(3, ActionResult(200.0, 210.0, "nodes", True, "ok"))
    writer.close()
    assert [a.n for a in read_save(path).actions] == [1, 2, 3]


@pytest.mark.parametrize(
    ("damage", "line", "words"),
    [
        (lambda lines: lines[:1] + ["{not json"] + lines[2:], 2, "not valid JSON"),
        (
            lambda lines: [lines[0].replace(f'"format": {FORMAT}', '"format": 99')] + lines[1:],
            1,
            "newer than",
        ),
        (lambda lines: lines[1:], 1, "header"),
        (
            lambda lines: lines[:1] + [json.dumps({"type": "wat"})] + lines[1:],
            2,
            "unknown line type",
        ),
        (lambda lines: lines[:1] + lines[2:], 2, "out of order"),
    ],
)
def test_damaged_saves_are_located(tmp_path, damage, line, words):
    path = new_save(tmp_path, actions=2)
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(damage(lines)) + "\n", encoding="utf-8")
    with pytest.raises(SaveError) as caught:
        read_save(path)
    assert caught.value.line == line
    assert words in str(caught.value)
    assert str(caught.value).startswith(f"{path}:{line}: ")


def test_missing_and_empty(tmp_path):
    with pytest.raises(SaveError, match="not found"):
        read_save(tmp_path / "nope.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(SaveError, match="empty"):
        read_save(empty)


def test_starting_over_an_existing_save_is_refused(tmp_path):
    path = new_save(tmp_path)
    with pytest.raises(SaveError, match="--resume"):
        SaveWriter.start(
            path,
            incident_id="i",
            incident_sha256="0" * 64,
            incident_path="i",
            seed=1,
            backend="sim",
        )
