"""The field a difference names as a path (drill/saves/verify.py's Difference.key, and the
header field header_check names), which the course's gradebook keeps for each refused save;
and the learner's name, checked against the score line like the seed. In this process, so
mutation testing (tests/mutation, group `verify`) sees these lines at work."""

from __future__ import annotations

import json

import pytest

from drill.replay_check import NotVerified, check_header, replay_and_score
from drill.saves import read_save, resolve_saved_incident
from drill.saves.header_check import edited_header, edited_header_field
from drill.saves.verify import compare_action, compare_score
from tests.saves.savekit import records, write_records
from tests.saves.test_verify_in_process import cli


@pytest.fixture(scope="module")
def named(tmp_path_factory):
    save = tmp_path_factory.mktemp("named") / "night.jsonl"
    code, _, err = cli(
        "run", "tutorial", "--reference", "--backend", "sim", "--learner", "Ada Okafor",
        "--save", str(save),
    )  # fmt: skip
    assert code == 0, err
    return save


def edited(named, tmp_path, change) -> object:
    lines = records(named)
    change(lines)
    path = tmp_path / "edited.jsonl"
    write_records(path, lines)
    return read_save(path)


def refusal(save) -> NotVerified:
    loaded = resolve_saved_incident(save)
    with pytest.raises(NotVerified) as caught:
        check_header(save)
        replay_and_score(save, loaded, verify=True).session.close()
    return caught.value


def test_an_action_difference_names_its_action_and_field(named, tmp_path):
    def change(lines):
        lines[2]["result"] = "something else"

    found = refusal(edited(named, tmp_path, change))
    assert (found.line, found.field, found.differs) == (3, "actions[2].result", True)
    assert found.heading == "replay differs"


def test_a_score_difference_names_the_score_field(named, tmp_path):
    def change(lines):
        score = next(line for line in lines if line["type"] == "score")
        score["score"]["components"][0]["points"] = 1.0

    found = refusal(edited(named, tmp_path, change))
    assert found.field == "score.components[progress].points"
    assert found.line == next(
        n for n, line in enumerate(records(named), 1) if line["type"] == "score"
    )


def test_an_end_time_difference_is_end_time(named, tmp_path):
    def change(lines):
        score = next(line for line in lines if line["type"] == "score")
        score["end_time"] += 1

    assert refusal(edited(named, tmp_path, change)).field == "end_time"


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [("seed", 2, "with seed 1"), ("backend", "inprocess", 'with backend "sim"'),
     ("learner", "Ben Ito", 'with "Ada Okafor"')],
)  # fmt: skip
def test_each_repeated_header_field_is_named(named, tmp_path, key, value, shown):
    def change(lines):
        lines[0][key] = value

    save = edited(named, tmp_path, change)
    assert edited_header_field(save) == key
    message = edited_header(save)
    score_line = next(n for n, line in enumerate(records(named), 1) if line["type"] == "score")
    assert message == (
        f"{save.path}:1: the header's `{key}` is {json.dumps(value)}, but the night was played"
        f" and scored {shown} (the score line, line {score_line}); the header was edited after"
        " the night"
    )
    found = refusal(save)
    assert (found.line, found.field, found.differs) == (1, key, True)


def test_a_save_without_a_name_and_a_name_taken_out(named, tmp_path):
    def taken_out(lines):
        del lines[0]["learner"]

    save = edited(named, tmp_path, taken_out)
    assert edited_header_field(save) == "learner"
    assert edited_header(save).startswith(
        f"{save.path}:1: the header's `learner` is null, but the night was played and scored"
        ' with "Ada Okafor" (the score line, line '
    )

    def nobody(lines):
        del lines[0]["learner"]
        next(line for line in lines if line["type"] == "score").pop("learner")

    assert edited_header_field(edited(named, tmp_path, nobody)) is None

    def added(lines):  # a name put into a save played without one
        next(line for line in lines if line["type"] == "score").pop("learner")

    save = edited(named, tmp_path, added)
    assert edited_header_field(save) == "learner"
    assert edited_header(save).startswith(
        f'{save.path}:1: the header\'s `learner` is "Ada Okafor", but the night was played and'
        " scored with nobody's name (the score line, line "
    )

    def old_score_line(lines):  # from before the score line repeated the header: nothing to say
        score = next(line for line in lines if line["type"] == "score")
        for field in ("seed", "backend", "learner"):
            score.pop(field)

    assert edited_header_field(edited(named, tmp_path, old_score_line)) is None

    def no_seed_on_it(lines):  # a score line with the backend and no seed says nothing of it
        score = next(line for line in lines if line["type"] == "score")
        score.pop("seed")
        score.pop("learner")

    assert edited_header_field(edited(named, tmp_path, no_seed_on_it)) is None


def test_another_engine_is_not_verified_at_its_field(named, tmp_path):
    def change(lines):
        lines[0]["engine_version"] = "0" * 64

    found = refusal(edited(named, tmp_path, change))
    assert (found.line, found.field, found.differs) == (1, "engine_version", False)
    assert found.heading == "not verified"

    def drill_version(lines):
        lines[0]["drill_version"] = "0.0.1"

    found = refusal(edited(named, tmp_path, drill_version))
    assert (found.line, found.field) == (1, "drill_version")


def test_the_keys_come_from_compare(named):
    save = read_save(named)
    assert compare_action(save.actions[0], _Result(save.actions[0], "x"), tolerant=False).key == (
        "actions[1].result"
    )
    assert compare_score({"total": 1}, save.end_time, save, tolerant=False).key.startswith("score.")


class _Result:
    def __init__(self, saved, output):
        self.time, self.end, self.text = saved.time, saved.end, saved.text
        self.accepted, self.output = saved.accepted, output
