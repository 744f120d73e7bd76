"""verify.py and header_check.py at their edges: what the writer writes the check accepts
(times rounded the same way), the tolerance carried into every nested value, the limits of each
shortened text from both sides, and a missing field said as such. The messages a person sees
are pinned whole in test_verify_in_process.py; these are the pieces they are made of."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from drill.engine.drill import ActionResult
from drill.saves.header_check import edited_header, other_version
from drill.saves.model import Save, SavedAction
from drill.saves.verify import (
    _MISSING,
    _close,
    _render,
    _short,
    _window,
    compare_action,
    compare_score,
    first_difference,
    same_text,
    show_pair,
    split_figures,
)

TIMES = st.floats(min_value=0, max_value=30000, allow_nan=False, allow_infinity=False)


def _saved(result: ActionResult, n: int = 1) -> SavedAction:
    """The action as the writer puts it in the save and the reader gives it back."""
    row = json.loads(json.dumps(result.to_json()))
    return SavedAction(n=n, line=n + 1, **row)


@given(TIMES, st.floats(min_value=0, max_value=600, allow_nan=False), st.booleans())
def test_what_the_writer_writes_verifies(time, took, tolerant):
    result = ActionResult(time, time + took, "status llm", True, "loss 2.3456 at step 4")
    assert compare_action(_saved(result), result, tolerant=tolerant) is None


@given(TIMES)
def test_an_end_time_as_the_writer_rounds_it_verifies(end):
    save = Save("s.jsonl", {}, score={"total": 91.5}, end_time=round(end, 3), score_line=9)
    assert compare_score({"total": 91.5}, end, save, tolerant=False) is None


def test_an_end_time_a_millisecond_off_is_a_difference():
    save = Save("s.jsonl", {}, score={"total": 91.5}, end_time=1234.567, score_line=9)
    assert compare_score({"total": 91.5}, 1234.5674, save, tolerant=False) is None
    found = compare_score({"total": 91.5}, 1234.568, save, tolerant=False)
    assert (
        str(found)
        == "the score line's `end_time`: the replay gives 1234.568, the save has 1234.567"
    )
    assert found.line == 9


def test_another_builds_loss_is_tolerated_in_an_action_and_in_the_score():
    result = ActionResult(10.0, 20.0, "logs llm --rank 0", True, "step 4 loss 2.0000")
    saved = _saved(result)
    saved.result = "step 4 loss 2.0100"
    assert compare_action(saved, result, tolerant=True) is None
    assert compare_action(saved, result, tolerant=False) is not None
    score = {"components": [{"name": "integrity", "why": ["relative distance 5.0e-04"]}]}
    other = json.loads(json.dumps(score).replace("5.0e-04", "9.0e-04"))
    save = Save("s.jsonl", {}, score=other, end_time=7200.0, score_line=9)
    assert compare_score(score, 7200.0, save, tolerant=True) is None
    assert compare_score(score, 7200.0, save, tolerant=False) is not None


def test_the_tolerance_reaches_every_nested_value():
    fresh = {"a": [{"b": "loss 2.0000"}]}
    saved = {"a": [{"b": "loss 2.0100"}]}
    assert first_difference(fresh, saved, "x", tolerant=True) is None
    assert first_difference(fresh, saved, "x", tolerant=False) == (
        "x.a[0].b",
        '"loss 2.0000"',
        '"loss 2.0100"',
    )


def test_a_text_against_a_number_is_a_difference_even_when_tolerant():
    assert first_difference("loss 1", 1, "x", tolerant=True) == ("x", '"loss 1"', "1")


def test_a_missing_field_or_item_is_said_as_such():
    assert first_difference({"a": 1}, {}, "s", tolerant=False) == ("s.a", "1", "no such field")
    assert first_difference({}, {"a": None}, "s", tolerant=False) == (
        "s.a",
        "no such field",
        "null",
    )
    assert first_difference([1, 2], [1, 2, 3], "s", tolerant=False) == (
        "s[2]",
        "no such field",
        "3",
    )


def test_a_list_item_is_named_by_its_name_from_either_side():
    named = {"name": "progress", "points": 1}
    assert first_difference([named], [], "c", tolerant=False)[0] == "c[progress]"
    assert first_difference([], [named], "c", tolerant=False)[0] == "c[progress]"
    assert first_difference([{"points": 1}], [], "c", tolerant=False)[0] == "c[0]"


def test_figures_are_cut_out_of_the_text_in_place():
    assert split_figures("a loss 2.5 then relative distance 1e-03.") == (
        "a loss <loss> then relative distance <distance>.",
        [("loss", 2.5), ("distance", 0.001)],
    )
    assert not same_text("a loss 2.0", "b loss 2.0", tolerant=True)


def test_closeness_at_its_limits():
    assert _close("loss", 0.0, 0.0001)  # one unit of the printed decimals
    assert _close("loss", 2.0, 2.03)  # within 2 percent
    assert not _close("loss", 2.0, 2.05)
    assert _close("distance", 1.0, 4.0) and not _close("distance", 1.0, 4.01)
    assert _close("distance", 0.0, 0.0)
    assert not _close("distance", 0.0, 1.0) and not _close("distance", 1.0, 0.0)


def test_each_shortened_text_at_its_limit_and_one_past_it():
    assert _short("x" * 60) == "x" * 60
    assert _short("x" * 61) == "x" * 57 + "..."
    assert _render("x" * 118) == json.dumps("x" * 118)  # 120 characters with the quotes
    assert _render("x" * 119) == '"' + "x" * 116 + "..."
    assert _window("x" * 70, 0) == json.dumps("x" * 70)
    assert _window("x" * 71, 0) == json.dumps("x" * 70)[:-1] + '..."'
    assert _window("é", 0) == '"\\u00e9"'


def test_values_are_shown_as_json_with_sorted_keys_and_non_finite_floats_by_name():
    assert _render({"b": "é", "a": 1}) == '{"a": 1, "b": "\\u00e9"}'
    assert _render(float("inf")) == "inf" and _render(1.5) == "1.5"
    assert show_pair(_MISSING, 5) == ("no such field", "5")
    assert show_pair(5, _MISSING) == ("5", "no such field")
    nan = float("nan")
    assert show_pair(nan, nan) == ("nan (float)", "nan (float)")  # alike: say the types


def test_two_texts_are_shown_from_near_where_they_first_differ():
    sixty, sixty_one = "a" * 59, "a" * 60  # with one more character in front
    assert show_pair("b" + sixty, "c" + sixty) == (
        json.dumps("b" + sixty),
        json.dumps("c" + sixty),
    )
    note = " (they first differ at character 1)"
    assert show_pair("b" + sixty_one, "c" + sixty)[1].endswith(note)
    assert show_pair("b" + sixty, "c" + sixty_one)[1].endswith(note)
    at_30 = show_pair("a" * 30 + "b", "a" * 30 + "c")
    assert at_30 == (json.dumps("a" * 30 + "b"), json.dumps("a" * 30 + "c"))
    at_31 = show_pair("a" * 31 + "b", "a" * 31 + "c")
    assert at_31 == ("..." + json.dumps("a" * 30 + "b"), "..." + json.dumps("a" * 30 + "c"))


def _header_save(header: dict, scored_as: dict) -> Save:
    return Save("s.jsonl", header, score={}, score_line=9, scored_as=scored_as)


def test_an_older_save_without_seed_on_its_score_line_is_not_called_edited():
    assert edited_header(_header_save({"seed": 1, "backend": "sim"}, {})) is None
    edited = edited_header(_header_save({"seed": 1, "backend": "sim"}, {"seed": 2}))
    assert edited.startswith("s.jsonl:1: the header's `seed` is 1, but")


def test_versions_are_shortened_only_while_the_short_forms_still_differ():
    here = "abcdefghijkl" + "1" * 20
    same_start = other_version(
        _header_save({"engine_version": "abcdefghijkl" + "2" * 20}, {}),
        engine_version=here,
        drill_version="0.1",
    )
    assert f'is "abcdefghijkl{"2" * 20}", this drill\'s is "{here}":' in same_start
    apart = other_version(
        _header_save({"drill_version": "9.9"}, {}), engine_version=here, drill_version="0.1"
    )
    assert 'the header\'s `drill_version` is "9.9", this drill\'s is "0.1":' in apart


def test_a_long_or_foreign_header_value_is_shown_escaped_and_cut_at_seventy():
    def shown(backend: str) -> str:
        message = edited_header(_header_save({"backend": backend}, {"backend": "sim"}))
        return message.split("the header's `backend` is ")[1].split(", but")[0]

    assert shown("é") == '"\\u00e9"'
    assert shown("x" * 68) == json.dumps("x" * 68)  # 70 characters with the quotes
    assert shown("x" * 69) == '"' + "x" * 66 + "..."


def test_a_list_against_a_single_value_is_one_difference():
    assert first_difference([1], 1, "x", tolerant=False) == ("x", "[1]", "1")


def test_a_losses_tolerance_is_its_own_not_the_distances():
    # 2.0 and 3.0 are within the distance's factor of 4, but 50 percent apart as losses.
    assert not same_text("loss 2.0", "loss 3.0", tolerant=True)
    assert not _close("distance", 0.1, 0.5)


def test_a_text_that_runs_on_past_the_other_differs_where_the_shorter_ends():
    fresh, saved = "a" * 100, "a" * 101
    shown = show_pair(fresh, saved)
    assert shown == (
        "..." + json.dumps("a" * 30),
        "..." + json.dumps("a" * 31) + " (they first differ at character 101)",
    )
