"""The recovered share reads the same in the table and in the words under it (learner audit,
defect 15: a night showed "88%" in the table and "keeping 87%" in the text)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from drill.engine.scoring.outcome import Outcome
from drill.engine.scoring.score import Night, _axes, _why_recovered
from drill.figures import figure


def _night(effective: int, baseline: int, completed: bool) -> Night:
    outcome = Outcome(
        end_time=3600.0,
        completed=completed,
        alive=True,
        recovered=True,
        final_step=effective,
        target_steps=baseline,
        baseline_step=baseline,
        effective_step=effective,
    )
    return Night(outcome=outcome, harm=None)  # type: ignore[arg-type]


def _table_and_text(night: Night) -> tuple[str, str]:
    axis = _axes(job_gpus=8, steps=night.outcome.target_steps)["recovered"]
    table = figure("recovered", axis.figure(night))
    text = _why_recovered(night, night, night, str)
    found = re.search(r"(\d+%)", text)
    assert found, text
    return table, found.group(1)


def test_a_share_on_the_rounding_edge_reads_the_same_in_table_and_text():
    # 8749 of 10000 is 87.49%: the saved figure is 0.875, which prints as 88%.
    for completed in (True, False):
        table, text = _table_and_text(_night(8749, 10_000, completed))
        assert table == text, (table, text)


@given(
    baseline=st.integers(min_value=1, max_value=100_000),
    share=st.floats(min_value=0.0, max_value=1.0),
    completed=st.booleans(),
)
def test_the_table_and_the_text_quote_one_recovered_figure(baseline, share, completed):
    table, text = _table_and_text(_night(int(baseline * share), baseline, completed))
    assert table == text, (table, text)


def test_a_saved_half_rounds_up_in_the_table_as_in_the_words():
    # Two reference nights save 0.505 and 0.645 and their words say 51% and 65%.
    assert figure("recovered", 0.505) == "51%"
    assert figure("recovered", 0.645) == "65%"
