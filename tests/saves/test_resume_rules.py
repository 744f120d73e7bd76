"""One resume path for `drill run` and `drill play`: what it refuses, and the time rules of a
fresh night after it."""

from __future__ import annotations

import json

import pytest

from tests.clikit import run_drill
from tests.saves.savekit import ACTIONS, cut_after, play_night, records


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    return play_night(tmp_path_factory.mktemp("whole"))


def refused(done) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr)
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr


@pytest.mark.parametrize("command", ["run", "play"])
def test_a_finished_night_is_not_resumed(whole, tmp_path, command):
    save = tmp_path / "finished.jsonl"
    save.write_bytes(whole[0].read_bytes())
    before = save.read_bytes()
    message = refused(run_drill(command, "--resume", str(save)))
    score_line = len(records(save))
    assert f"{save}:{score_line}: this night is finished" in message
    assert save.read_bytes() == before, "a refused resume leaves the save as it was"


@pytest.mark.parametrize("command", ["run", "play"])
@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--save", "other.jsonl"], "drop --save"),
        (["--seed", "7"], "this save is --seed 1"),
        (["--backend", "inprocess"], "this save is --backend sim"),
        (["--ranks", "2"], "this save uses the default --ranks; drop --ranks"),
    ],
    ids=["save", "seed", "backend", "ranks"],
)
def test_options_that_contradict_the_save_are_refused(whole, tmp_path, command, extra, words):
    save = cut_after(whole[0], tmp_path / "cut.jsonl", 3)
    before = save.read_bytes()
    message = refused(run_drill(command, "--resume", str(save), *extra))
    assert words in message
    assert save.read_bytes() == before


@pytest.mark.parametrize("ranks", ["0", "-1", "65"])
def test_ranks_out_of_range_is_an_error_not_the_default(ranks):
    message = refused(run_drill("run", "dead-rank", "--backend", "sim", "--ranks", ranks))
    assert "--ranks must be from 1 to 64" in message


@pytest.mark.parametrize("kept", [1, 3, 5, 6])
def test_relative_lines_after_a_resume_count_from_the_last_saved_action(whole, tmp_path, kept):
    full_save, full_account = whole
    save = cut_after(full_save, tmp_path / "cut.jsonl", kept)
    actions = tmp_path / "night.actions"
    actions.write_text(ACTIONS)
    done = run_drill("run", "--resume", str(save), "--actions", str(actions), "--json")
    assert done.returncode == 0, done.stderr
    resumed = json.loads(done.stdout)
    assert [(a["time"], a["end"], a["text"]) for a in resumed["actions"]] == [
        (a["time"], a["end"], a["text"]) for a in full_account["actions"]
    ]
    assert resumed["actions"] == full_account["actions"]
    assert resumed["score"] == full_account["score"]
    assert records(save) == records(full_save)


def test_resuming_with_another_actions_file_is_refused_at_its_line(whole, tmp_path):
    save = cut_after(whole[0], tmp_path / "cut.jsonl", 3)
    other = tmp_path / "other.actions"
    other.write_text(ACTIONS.replace("+30s health gpu-a-2", "+30s health gpu-a-3"))
    message = refused(run_drill("run", "--resume", str(save), "--actions", str(other)))
    assert message.startswith(f"drill: {other}:3:1: this line is `health gpu-a-3`")
    assert f"{save}:4" in message


def test_a_seed_no_save_can_hold_is_refused():
    message = refused(run_drill("run", "dead-rank", "--backend", "sim", "--seed", str(2**70)))
    assert "--seed must fit in 64 bits" in message
