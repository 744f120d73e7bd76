"""`drill replay --verify`: every field of every line, what it could not check said out loud,
and a difference named by line and field with two values that do not look alike."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drill.saves.verify import first_difference, same_text, show_pair
from tests.clikit import run_drill
from tests.saves.savekit import cut_after, play_night, records, write_records


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    save, _ = play_night(tmp_path_factory.mktemp("night"))
    return save


def verify(path):
    return run_drill("replay", str(path), "--verify")


def differs(done) -> str:
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr.strip()


def test_an_untouched_save_verifies_saying_what_was_checked(night):
    done = verify(night)
    assert done.returncode == 0, done.stderr
    assert (
        f"Verified: the header, all 7 actions, the score and the end time match {night}"
        in done.stdout
    )


def test_a_header_only_save_is_not_verified(night, tmp_path):
    path = cut_after(night, tmp_path / "header.jsonl", 0)
    message = differs(verify(path))
    assert message.startswith(
        f"drill: not verified: {path}:2: the save ends without its score line"
    )
    assert "has no actions" in message


def test_a_save_cut_short_is_not_verified(night, tmp_path):
    path = cut_after(night, tmp_path / "cut.jsonl", 4)
    assert "its 4 actions match" in differs(verify(path))
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"type": "action", "n": 5, "ti')  # a crash mid-write
    message = differs(verify(path))
    assert f"{path}:6: the last line was cut short" in message


def test_a_changed_end_time_is_caught(night, tmp_path):
    rows = records(night)
    rows[-1]["end_time"] += 60
    path = write_records(tmp_path / "end.jsonl", rows)
    message = differs(verify(path))
    line = len(rows)
    assert f"{path}:{line}: the score line's `end_time`" in message
    assert (
        f"the replay gives {rows[-1]['end_time'] - 60}, the save has {rows[-1]['end_time']}"
        in message
    )


def test_a_changed_total_on_a_last_line_without_newline_is_caught(night, tmp_path):
    rows = records(night)
    rows[-1]["score"]["total"] = rows[-1]["score"]["total"] - 5
    path = write_records(tmp_path / "total.jsonl", rows, newline=False)
    message = differs(verify(path))
    assert f"{path}:{len(rows)}: the score line's `score.total`" in message


def test_a_mismatch_is_at_the_score_line_even_with_debrief_texts_after_it(night, tmp_path):
    rows = records(night)
    rows[-1]["score"]["components"][3]["points"] += 1.0
    score_line = len(rows)
    rows += [
        {"type": "text", "key": "runbook.health", "value": "look first"},
        {"type": "text", "key": "runbook.health", "value": "look first, then act"},
        {"type": "text", "key": "opinion", "value": "cadence is storage"},
    ]
    path = write_records(tmp_path / "texts.jsonl", rows)
    message = differs(verify(path))
    name = rows[score_line - 1]["score"]["components"][3]["name"]
    assert f"{path}:{score_line}: the score line's `score.components[{name}].points`" in message


def test_flipping_accepted_names_the_field_and_both_values(night, tmp_path):
    rows = records(night)
    rows[2]["accepted"] = not rows[2]["accepted"]
    path = write_records(tmp_path / "accepted.jsonl", rows)
    message = differs(verify(path))
    was = json.dumps(not rows[2]["accepted"])
    now = json.dumps(rows[2]["accepted"])
    assert (
        f"{path}:3: action 2 `logs llm-pretrain`, `accepted`: the replay gives {was}, the save has {now}"
        in message
    )


def test_a_changed_component_figure_shows_two_different_values(night, tmp_path):
    rows = records(night)
    [component] = [c for c in rows[-1]["score"]["components"] if c["name"] == "progress"]
    steps = component["value"]["steps_behind"]
    component["value"] = {**component["value"], "steps_behind": steps + 1}
    path = write_records(tmp_path / "component.jsonl", rows)
    message = differs(verify(path))
    assert "`score.components[progress].value.steps_behind`" in message
    replayed, saved = message.split("the replay gives ")[1].split(", the save has ")
    assert replayed != saved


def test_an_altered_result_names_the_line_and_where_the_text_differs(night, tmp_path):
    rows = records(night)
    rows[3]["result"] = rows[3]["result"].replace("gpu-a-2", "gpu-a-9", 1)
    path = write_records(tmp_path / "result.jsonl", rows)
    message = differs(verify(path))
    assert f"{path}:4: action 3 `health gpu-a-2`, `result`" in message
    assert "gpu-a-9" in message and "first differ at character" in message


TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=200)
VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


@given(VALUE, VALUE)
def test_a_difference_never_shows_two_identical_looking_values(a, b):
    found = first_difference(a, b, "x", tolerant=False)
    if found is None:
        assert a == b
    else:
        _, replayed, saved = found
        assert replayed != saved


@given(TEXT, TEXT)
def test_two_strings_that_differ_are_shown_differently(a, b):
    if a != b:
        shown_a, shown_b = show_pair(a, b)
        assert shown_a != shown_b.split(" (they first differ")[0]


def test_replica_figures_have_a_tolerance_only_when_the_save_came_from_elsewhere():
    here = "The final weights are close to the undisturbed run (relative distance 5.81e-04), not bit for bit."
    there = here.replace("5.81e-04", "4.70e-04")
    assert not same_text(there, here, tolerant=False)
    assert same_text(there, here, tolerant=True)
    assert not same_text(here.replace("5.81e-04", "9.00e-03"), here, tolerant=True)
    assert not same_text(there.replace("close", "near"), here, tolerant=True)
    log = "03:20:00 [rank 0] step 150 loss 1.2345\n03:20:10 [rank 0] step 151 loss 1.2301"
    assert same_text(log.replace("1.2345", "1.2350"), log, tolerant=True)
    assert not same_text(log.replace("1.2345", "1.4000"), log, tolerant=True)
    assert not same_text(log.replace("step 150", "step 149"), log, tolerant=True)
    assert not same_text(log.replace("1.2345", "1.2350"), log, tolerant=False)


def test_a_save_from_another_engine_says_the_engine_changed(night, tmp_path):
    rows = records(night)
    rows[0]["engine_version"] = "0" * 64  # scored by some other build of the game
    rows[3]["result"] = rows[3]["result"] + " (as the old engine put it)"
    path = write_records(tmp_path / "old-engine.jsonl", rows)
    message = differs(run_drill("replay", str(path), "--verify", "--across-versions"))
    assert "the engine changed since this save was made" in message
    assert "scored by engine 000000000000" in message
    assert "the first difference" in message and ":4:" in message


# -- the header (issue 20): versions, seed and backend named at line 1 with both values ------


def test_a_save_from_another_engine_or_drill_version_is_not_verified(night, tmp_path):
    from drill import ENGINE_VERSION, __version__

    for key, other, here in (
        ("engine_version", "0" * 64, ENGINE_VERSION[:12]),
        ("drill_version", "0.0.9", __version__),
    ):
        rows = records(night)
        rows[0][key] = other
        path = write_records(tmp_path / f"{key}.jsonl", rows)
        message = differs(verify(path))
        assert message.startswith(f"drill: not verified: {path}:1: the header's `{key}` is")
        assert json.dumps(other[:12]) in message and json.dumps(here) in message
        assert "cannot be verified exactly" in message
        # Asked for, the replay runs, and this save (untouched but for the version) matches.
        done = run_drill("replay", str(path), "--verify", "--across-versions")
        assert done.returncode == 0, done.stderr


def test_a_version_differing_only_past_the_short_form_shows_it_whole(night, tmp_path):
    from drill import ENGINE_VERSION

    rows = records(night)
    rows[0]["engine_version"] = ENGINE_VERSION[:-1] + ("0" if ENGINE_VERSION[-1] != "0" else "1")
    path = write_records(tmp_path / "last-digit.jsonl", rows)
    message = differs(verify(path))
    assert json.dumps(rows[0]["engine_version"]) in message
    assert json.dumps(ENGINE_VERSION) in message


@pytest.mark.parametrize(("key", "edited"), [("seed", 7), ("backend", "inprocess")])
def test_an_edited_seed_or_backend_is_named_at_line_one_with_both_values(
    night, tmp_path, key, edited
):
    rows = records(night)
    kept = rows[0][key]
    rows[0][key] = edited
    path = write_records(tmp_path / f"{key}.jsonl", rows)
    message = differs(verify(path))
    assert message.startswith(f"drill: replay differs: {path}:1: the header's `{key}` is")
    assert json.dumps(edited) in message and json.dumps(kept) in message
    assert f"line {len(rows)}" in message


def test_crlf_line_ends_are_refused_as_damaged(night, tmp_path):
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(night.read_bytes().replace(b"\n", b"\r\n"))
    done = verify(path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith(f"drill: {path}:1: this line ends with a carriage return")
