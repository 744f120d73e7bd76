"""`drill replay --verify` run in this process (drill.cli.main) on a real sim save, so that
mutation testing, which traces only this process, sees compare_action, compare_score and the
header checks at work. test_verify.py checks the same messages through the real CLI in a
subprocess; here each message is pinned whole, naming its line, field and both values."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from drill import ENGINE_VERSION, __version__
from drill.cli import main
from tests.saves.savekit import ACTIONS, records, write_records


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue().strip()


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    folder = tmp_path_factory.mktemp("night")
    actions = folder / "night.actions"
    actions.write_text(ACTIONS)
    save = folder / "night.jsonl"
    code, _, err = cli(
        "run", "dead-rank", "--actions", str(actions), "--backend", "sim", "--save", str(save)
    )
    assert code == 0, err
    return save


def differs(path) -> str:
    code, _, err = cli("replay", str(path), "--verify")
    assert code == 1, err
    assert len(err.splitlines()) == 1, err
    return err


def test_an_untouched_save_verifies(night):
    code, out, err = cli("replay", str(night), "--verify")
    assert code == 0, err
    assert f"Verified: the header, all 7 actions, the score and the end time match {night}" in out


def _action_edited(night, tmp_path, key: str, value) -> tuple:
    """The save with one field of action 3 (`health gpu-a-2`, line 4) changed."""
    rows = records(night)
    kept = rows[3][key]
    rows[3][key] = value(kept)
    return write_records(tmp_path / f"{key}.jsonl", rows), kept, rows[3][key]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        # 4 decimals: the replay starts the action there but records it to the millisecond.
        ("time", lambda t: t + 0.0004),
        ("end", lambda t: t - 1.0),
        ("accepted", lambda accepted: not accepted),
    ],
)
def test_each_field_of_an_action_is_compared_and_named(night, tmp_path, key, value):
    path, kept, saved = _action_edited(night, tmp_path, key, value)
    replayed = json.dumps(round(saved, 3) if key == "time" else kept)
    assert differs(path) == (
        f"drill: replay differs: {path}:4: action 3 `health gpu-a-2`, `{key}`: the replay gives"
        f" {replayed}, the save has {json.dumps(saved)}"
    )


def test_a_changed_result_shows_where_it_first_differs(night, tmp_path):
    path, kept, _ = _action_edited(night, tmp_path, "result", lambda _: "all fine")
    assert differs(path) == (
        f"drill: replay differs: {path}:4: action 3 `health gpu-a-2`, `result`: the replay gives"
        f' {json.dumps(kept[:70])[:-1]}...", the save has "all fine" (they first differ at'
        " character 1)"
    )


def test_an_action_time_written_as_an_int_is_the_same_moment(night, tmp_path):
    rows = records(night)
    assert all(isinstance(r["time"], float) for r in rows[1:8])
    for row in rows[1:8]:
        if row["time"] == int(row["time"]):
            row["time"] = int(row["time"])
    path = write_records(tmp_path / "ints.jsonl", rows)
    code, _, err = cli("replay", str(path), "--verify")
    assert code == 0, err


def test_a_changed_total_and_end_time_name_the_score_line(night, tmp_path):
    rows = records(night)
    line = len(rows)
    total = rows[-1]["score"]["total"]
    rows[-1]["score"]["total"] = total - 5
    path = write_records(tmp_path / "total.jsonl", rows)
    assert differs(path) == (
        f"drill: replay differs: {path}:{line}: the score line's `score.total`: the replay gives"
        f" {json.dumps(total)}, the save has {json.dumps(total - 5)}"
    )
    rows[-1]["score"]["total"] = total
    end = rows[-1]["end_time"]
    rows[-1]["end_time"] = end + 60
    path = write_records(tmp_path / "end.jsonl", rows)
    assert differs(path) == (
        f"drill: replay differs: {path}:{line}: the score line's `end_time`: the replay gives"
        f" {json.dumps(float(end))}, the save has {json.dumps(end + 60)}"
    )


@pytest.mark.parametrize(("key", "value"), [("seed", 99), ("backend", "inprocess")])
def test_an_edited_seed_or_backend_is_named_at_line_one(night, tmp_path, key, value):
    rows = records(night)
    scored = rows[-1][key]
    assert scored == rows[0][key]
    rows[0][key] = value
    path = write_records(tmp_path / "header.jsonl", rows)
    assert differs(path) == (
        f"drill: replay differs: {path}:1: the header's `{key}` is {json.dumps(value)}, but the"
        f" night was played and scored with {key} {json.dumps(scored)}"
        f" (the score line, line {len(rows)}); the header was edited after the night"
    )


@pytest.mark.parametrize(
    ("key", "what", "here"),
    [("engine_version", "engine", ENGINE_VERSION), ("drill_version", "drill", __version__)],
)
def test_a_save_from_another_version_is_not_verified_and_says_which(
    night, tmp_path, key, what, here
):
    rows = records(night)
    assert rows[0][key] == here
    rows[0][key] = "0" * 40
    path = write_records(tmp_path / "version.jsonl", rows)
    made = json.dumps("0" * 12)
    shown = json.dumps(here[:12]) if here[:12] != "0" * 12 else json.dumps(here)
    assert differs(path) == (
        f"drill: not verified: {path}:1: the header's `{key}` is {made}, this drill's is"
        f" {shown}: the save was made by another {what} version and cannot be verified"
        " exactly; verify it with the drill that made it, or add --across-versions to check"
        " that this one plays the night the same"
    )
