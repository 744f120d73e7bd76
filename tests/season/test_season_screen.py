"""The season screen: reachable from the picker and from `drill season --tui`, and each key
plays the season again with one policy moved."""

from __future__ import annotations

from pathlib import Path

import pytest

from drill.incident.loader import load_incident
from drill.season.figures import play_season
from drill.tui.season_app import SeasonApp
from drill.tui.widgets.season_chart import daily_kept, render_chart
from tests.tui.tuikit import make_app, screen_name, static_text, sync, until

SMALL = Path(__file__).resolve().parent / "small-fleet.yaml"


def test_the_chart_has_a_bar_per_day_and_every_cause():
    figures = play_season(load_incident(SMALL).incident, 1)
    shares = daily_kept(figures)
    assert len(shares) == 3 and all(0.0 <= s <= 1.0 for s in shares)
    # Three days at the effective share on average, within an hour's rounding.
    assert abs(sum(shares) / 3 - figures.effective_share) < 0.02
    text = render_chart(figures).plain
    for row in figures.causes:
        assert row.text in text
    assert "checkpoint writes" in text


@sync
async def test_keys_move_one_policy_and_play_the_season_again():
    incident = load_incident(SMALL).incident
    app = SeasonApp(incident, 1)
    async with app.run_test(size=(120, 50)) as pilot:
        await until(pilot, lambda: getattr(app.screen, "figures", None) is not None, loud=False)
        first = app.screen.figures
        assert first.policies["auto_drain"] is False
        await pilot.press("d")
        await until(pilot, lambda: app.screen.figures.policies["auto_drain"] is True, loud=False)
        assert "drain on hardware Xid yes" in static_text(app, "#season-policies")
        await pilot.press("left_square_bracket")
        await until(pilot, lambda: app.screen.figures.policies["checkpoint_every"] == 5, loud=False)
        assert "Effective training" in static_text(app, "#season-summary")


@pytest.mark.slow
@sync
async def test_the_picker_opens_the_season_of_a_fleet_incident(tmp_path):
    app = make_app(tmp_path=tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await until(pilot, lambda: screen_name(app) == "PickerScreen", loud=False)
        table = app.screen.query_one("#incidents")
        ids = [entry.header.id for entry in app.screen.entries]
        table.move_cursor(row=ids.index("dead-rank"))
        await pilot.press("s")
        await pilot.pause()
        assert screen_name(app) == "PickerScreen"  # no season: a notice, not a screen
        table.move_cursor(row=ids.index("fleet-season"))
        await pilot.press("s")
        await until(pilot, lambda: screen_name(app) == "SeasonScreen", loud=False)
        await pilot.press("escape")
        await until(pilot, lambda: screen_name(app) == "PickerScreen", loud=False)
