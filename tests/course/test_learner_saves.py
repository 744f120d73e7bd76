"""A course's save says whose it is: the header's optional `learner`, repeated on the score
line, so `drill replay --verify` names an edit to it at line 1 (as it does an edited seed) and a
save without one verifies as it always did."""

from __future__ import annotations

import json

import pytest

from tests.clikit import run_drill


@pytest.fixture(scope="module")
def named(tmp_path_factory):
    path = tmp_path_factory.mktemp("named") / "night.jsonl"
    done = run_drill(
        "run", "tutorial", "--reference", "--backend", "sim", "--learner", "  Ada   Okafor ",
        "--save", str(path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return path


def lines_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def write(path, records):
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))


def test_the_name_is_in_the_header_and_on_the_score_line_and_verifies(named):
    records = lines_of(named)
    assert records[0]["learner"] == "Ada Okafor"  # spaces tidied, as the gradebook keys it
    score = next(r for r in records if r["type"] == "score")
    assert score["learner"] == "Ada Okafor"
    done = run_drill("replay", str(named), "--verify")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda h: h.update(learner="Ben Ito"), 'the header\'s `learner` is "Ben Ito", but the night was played and scored with "Ada Okafor"'),
        (lambda h: h.pop("learner"), "the header's `learner` is null"),
    ],
)  # fmt: skip
def test_an_edited_name_is_named_at_line_1(named, tmp_path, change, words):
    records = lines_of(named)
    change(records[0])
    edited = tmp_path / "edited.jsonl"
    write(edited, records)
    done = run_drill("replay", str(edited), "--verify")
    assert done.returncode == 1
    assert f"{edited}:1: " in done.stderr and words in done.stderr, done.stderr


def test_a_name_added_to_a_save_played_without_one_is_named_at_line_1(tmp_path):
    path = tmp_path / "plain.jsonl"
    assert (
        run_drill(
            "run", "tutorial", "--reference", "--backend", "sim", "--save", str(path)
        ).returncode
        == 0
    )
    assert "learner" not in lines_of(path)[0]
    assert run_drill("replay", str(path), "--verify").returncode == 0
    records = lines_of(path)
    records[0]["learner"] = "Ada Okafor"
    write(path, records)
    done = run_drill("replay", str(path), "--verify")
    assert done.returncode == 1
    assert "played and scored with nobody's name" in done.stderr and f"{path}:1:" in done.stderr


@pytest.mark.parametrize("bad", ["", "   ", "tab\there", "x" * 61, 7])
def test_a_name_a_save_cannot_hold_is_refused_where_it_is(named, tmp_path, bad):
    records = lines_of(named)
    records[0]["learner"] = bad
    edited = tmp_path / "bad.jsonl"
    write(edited, records)
    done = run_drill("replay", str(edited), "--verify")
    assert done.returncode == 2
    assert f"{edited}:1: the header's `learner` must be a name" in done.stderr


@pytest.mark.parametrize("bad", ["", "   ", "a\x1b[31mb", "x" * 61])
def test_drill_run_refuses_a_name_it_cannot_save(tmp_path, bad):
    done = run_drill(
        "run", "tutorial", "--backend", "sim", "--learner", bad, "--save", str(tmp_path / "x.jsonl")
    )
    assert done.returncode == 2 and done.stderr.startswith("drill: --learner: ")
    assert not (tmp_path / "x.jsonl").exists()


def test_a_resumed_night_keeps_its_learner_on_the_score_line(named, tmp_path):
    records = lines_of(named)
    cut = next(n for n, r in enumerate(records) if r["type"] == "score")
    unfinished = tmp_path / "unfinished.jsonl"
    write(unfinished, records[:cut])
    again = run_drill("run", "--resume", str(unfinished), "--learner", "Ben Ito")
    assert again.returncode == 2 and "the save already says whose night it is" in again.stderr
    done = run_drill("run", "--resume", str(unfinished))
    assert done.returncode == 0, done.stderr
    score = next(r for r in lines_of(unfinished) if r["type"] == "score")
    assert score["learner"] == "Ada Okafor"
    assert run_drill("replay", str(unfinished), "--verify").returncode == 0


@pytest.mark.parametrize(
    ("name", "said"),
    [("   ", "Type your name"), ("a\tb", "letters, digits"), ("x" * 200, "characters")],
)
def test_drill_run_refuses_a_name_no_save_can_carry_in_one_line(tmp_path, name, said):
    path = tmp_path / "night.jsonl"
    done = run_drill(
        "run", "tutorial", "--reference", "--backend", "sim", "--learner", name,
        "--save", str(path),
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("drill: --learner: ") and said in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not path.exists()  # refused before any night or save began
