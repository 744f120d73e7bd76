"""The integrity figure in plain words (learner audit, defect 28): the doing-nothing column read
"weights dead job", and counts read "1 corrupt caught" whatever the number."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drill.figures import figure


def _integrity(weights: str, loaded: int = 0, caught: int = 0) -> str:
    return figure(
        "integrity", {"weights": weights, "corrupt_loaded": loaded, "corrupt_caught": caught}
    )


def test_a_dead_job_reads_as_a_sentence_fragment_not_as_two_labels():
    shown = _integrity("dead job")
    assert "weights dead job" not in shown
    assert shown == "job dead at the end, weights not compared"


def test_one_bad_checkpoint_is_singular():
    assert _integrity("bitexact", caught=1) == "weights bit for bit, 1 bad checkpoint caught"
    assert _integrity("diverged", loaded=1) == "weights diverged, 1 bad checkpoint loaded"


@given(loaded=st.integers(0, 50), caught=st.integers(0, 50))
def test_counts_name_what_was_counted_with_the_right_number(loaded, caught):
    shown = _integrity("bitexact", loaded, caught)
    for count, verb in ((loaded, "loaded"), (caught, "caught")):
        if count == 0:
            assert verb not in shown
        elif count == 1:
            assert f"1 bad checkpoint {verb}" in shown
        else:
            assert f"{count} bad checkpoints {verb}" in shown
    assert "corrupt" not in shown
