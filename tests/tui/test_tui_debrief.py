"""The debrief's own work: the learner's texts into the save, exports, replay."""

from __future__ import annotations

import pytest

from drill.saves import read_save
from tests.tui.tuikit import make_app, screen_name, sync, to_night, type_line, until


async def _click(pilot, selector: str) -> None:
    """Scroll the button into view, as a person would, then click it."""
    pilot.app.screen.query_one(selector).scroll_visible(animate=False)
    await pilot.pause()
    await pilot.click(selector)
    await pilot.pause()


async def _debrief(pilot, app):
    await to_night(pilot)
    await type_line(pilot, "status")
    await type_line(pilot, "debrief")
    await pilot.press("y")
    await until(
        pilot, lambda: screen_name(app) == "DebriefScreen" and app.screen.result is not None
    )


@sync
async def test_answers_go_into_the_save_after_the_score_and_export(tmp_path):
    from textual.widgets import TextArea

    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await _debrief(pilot, app)
        screen = app.screen
        screen.query_one(
            "#opinion", TextArea
        ).text = "A person should decide; the drain costs a node."
        screen.query_one(
            "#runbook-health", TextArea
        ).text = "Run health on every node of a hung job."
        await _click(pilot, "#save")
        await until(
            pilot, lambda: "Saved 2 answers" in str(screen.query_one("#debrief-status").render())
        )
        await _click(pilot, "#export-runbook")
        await until(
            pilot,
            lambda: "written to" in str(screen.query_one("#debrief-status").render()),
            timeout=60,
        )
        runbook = tmp_path / "dead-rank-runbook.md"
        assert "Run health on every node of a hung job." in runbook.read_text()
        await _click(pilot, "#export-report")
        await until(
            pilot,
            lambda: "Report written" in str(screen.query_one("#debrief-status").render()),
            timeout=60,
        )
        assert (
            (tmp_path / "dead-rank.html").read_text().lstrip().lower().startswith("<!doctype html")
        )
        screen.query_one("#runbook-3am", TextArea).text = "Ack, look, then act."
        await pilot.press("ctrl+q", "y")
        await until(pilot, lambda: app.driver.closed)
    save = read_save(tmp_path / "dead-rank.jsonl")
    assert save.score is not None
    assert save.texts == {
        "opinion": "A person should decide; the drain costs a node.",
        "runbook.health": "Run health on every node of a hung job.",
        "runbook.3am": "Ack, look, then act.",
    }


@sync
async def test_replay_starts_the_same_incident_and_seed_in_a_new_save(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path, seed=2)
    async with app.run_test(size=(120, 50)) as pilot:
        await _debrief(pilot, app)
        first = app.driver
        await _click(pilot, "#replay")
        await until(pilot, lambda: screen_name(app) == "BriefingScreen" and app.driver is not first)
        assert first.closed
        assert app.driver.spec.seed == 2 and app.driver.spec.incident.id == "dead-rank"
        await to_night(pilot)
        assert app.driver.save_path != first.save_path
        await pilot.press("ctrl+q", "y")
        await until(pilot, lambda: app.driver.closed)


@sync
async def test_save_and_export_say_so_where_the_learner_is_looking(tmp_path):
    """Audit defect 4: the status line sat two dozen blank rows under the buttons, so Save
    answers and the exports looked like they did nothing. The line is right under the buttons
    (on screen when they are), and a finished save shows as a notification too, since ctrl+s is
    pressed from an answer box far above them."""
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await _debrief(pilot, app)
        screen = app.screen
        status = screen.query_one("#debrief-status")
        buttons = screen.query_one("#debrief-buttons")
        assert buttons.region.height <= 3, buttons.region  # one row of compact buttons
        await pilot.press("ctrl+s")  # from the first answer box, at the top of the debrief
        await until(pilot, lambda: "answers" in str(status.render()))
        assert any("answers" in n.message for n in app._notifications)
        await _click(pilot, "#export-runbook")
        await until(pilot, lambda: "written to" in str(status.render()), timeout=60)
        assert 0 <= status.region.y < screen.size.height, (status.region, screen.size)
        assert any("Runbook written" in n.message for n in app._notifications)


@pytest.mark.parametrize("size", [(80, 24), (120, 50)])
@sync
async def test_the_opinion_box_has_the_keys_in_view_and_pages_scroll_over_it(tmp_path, size):
    """Audit defect 20: at 80x24 the score pushed the focused opinion box off-screen (typing
    went in unseen), PageUp/PageDown did nothing while a box had the keys, and the score was
    reachable only by tabbing to a button and pressing Home."""
    from textual.containers import VerticalScroll
    from textual.widgets import TextArea

    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=size) as pilot:
        await _debrief(pilot, app)
        await pilot.pause(0.2)
        screen = app.screen
        scroll = screen.query_one("#debrief", VerticalScroll)
        box = screen.query_one("#opinion", TextArea)
        score = screen.query_one("#score-total")
        assert screen.focused is box
        assert scroll.region.contains_region(box.region), (scroll.region, box.region)
        assert scroll.region.contains_region(score.region), "the score shows first"
        assert "Score" in str(score.render())
        await pilot.press("pagedown")
        await pilot.pause(0.2)
        assert scroll.scroll_y > 0 and screen.focused is box
        assert not scroll.region.contains_region(score.region)
        await pilot.press("pageup")
        await pilot.pause(0.2)
        assert scroll.scroll_y == 0 and screen.focused is box  # the score, by keys
        await pilot.press("pagedown", "pagedown")
        await pilot.pause(0.2)
        await pilot.press("o", "k")  # typing brings the box back into view
        await pilot.pause(0.2)
        assert box.text == "ok"
        assert scroll.region.contains_region(box.region), (scroll.region, box.region)
