"""SVG snapshots of the class report's screens at 80x24 and 120x40, from the seeded sample
class. Regenerate after a deliberate change with
`pytest tests/classroom/test_class_report_snapshots.py --snapshot-update` and look at the SVGs
under tests/classroom/__snapshots__ before committing them."""

from __future__ import annotations

import pytest

from drill.tui.class_report_app import ClassReportApp
from tests.classroom.class_sample import SAMPLE

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


@pytest.mark.parametrize("size", SIZES)
def test_class_table(snap_compare, tmp_path, size):
    """Learners by night: at 80x24 the nights by name, no lost-most column; at 120x40 both."""

    async def on_a_cell(pilot):
        await pilot.press("down", "right")  # the cursor off the first cell: it shows
        await pilot.pause()

    app = ClassReportApp(SAMPLE, config_dir=tmp_path)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=on_a_cell)


@pytest.mark.parametrize("size", SIZES)
def test_learner_night(snap_compare, tmp_path, size):
    """A verified night: score, points per component, the timeline with its first wrong act."""

    async def drill_down(pilot):
        await pilot.press("right", "enter")
        await pilot.pause()

    app = ClassReportApp(SAMPLE, config_dir=tmp_path)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=drill_down)


def test_refused_night_80x24(snap_compare, tmp_path):
    """A refused save: its line, field and reason, and no timeline."""

    async def refused(pilot):
        await pilot.press("down", "down", "down", "enter")
        await pilot.pause()

    app = ClassReportApp(SAMPLE, config_dir=tmp_path)
    assert snap_compare(app, terminal_size=(80, 24), run_before=refused)
