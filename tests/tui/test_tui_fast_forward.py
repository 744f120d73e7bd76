"""The fast-forward key: in full-disk, where the pager stays empty for the first 54 minutes of
night (over five real minutes at the default 10x), one key runs the night to its first page, the
page holds the clock there, and the line is in the save like any action."""

from __future__ import annotations

from drill.saves import read_save
from drill.tui.palette import NightCommands
from tests.tui.tuikit import SIZE, log_text, make_app, settle, sync, to_night, type_line, until

FIRST_PAGE = "03:53:44"


def header(app) -> str:
    return app.screen.query_one("#night-header").plain


@sync
async def test_the_key_runs_full_disk_to_its_first_page_and_the_clock_holds_there(tmp_path):
    app = make_app("full-disk", tmp_path=tmp_path, paused=False)  # the default speed, 10x
    async with app.run_test(size=SIZE) as pilot:
        await to_night(pilot)
        drill = app.driver.session.drill
        assert drill.now < 600 and not drill.world.pager.alerts
        # The engine's lock held here keeps the worker from starting the run, so the screen
        # can be read while it is on its way: it says what is running.
        app.driver.lock.acquire()
        try:
            await pilot.press("f7")
            await until(pilot, lambda: app.driver.current is not None)
            shown = str(app.screen.query_one("#inline-help").render())
            assert shown == "Fast-forwarding to the next signal..."
            assert "fast-forward" in header(app)
        finally:
            app.driver.lock.release()
        await until(pilot, lambda: drill.world.pager.alerts and app.driver.idle, timeout=60)
        await settle(pilot)
        held = drill.now
        assert app.driver.frame.snapshot.clock == FIRST_PAGE
        assert FIRST_PAGE in header(app) and "HELD" in header(app)
        assert app.pacing.page_hold
        log = log_text(app)
        assert "> wait --until page" in log and "waited " in log
        assert f"{FIRST_PAGE} PAGE P1 warning: llm-pretrain failed" in log
        await pilot.pause(1.0)  # ten seconds of night at 10x, were the clock not held
        await settle(pilot)
        assert drill.now == held
        # A second press with the page still open is refused, says why, and costs nothing.
        await pilot.press("f7")
        await settle(pilot)
        assert drill.now == held
        assert "Not done: P1 is open; fast-forward never runs past an open page" in log_text(app)
        await type_line(pilot, "ack all")
        assert not app.pacing.page_hold
    save = read_save(tmp_path / "full-disk.jsonl")
    after_plan = [a.text for a in save.actions][-3:]  # the plan's `set` lines come first
    assert after_plan == ["wait --until page", "wait --until page", "ack all"]
    assert [a.accepted for a in save.actions][-3:-1] == [True, False]


@sync
async def test_the_key_is_listed_by_its_id_in_help_and_in_the_palette(tmp_path):
    app = make_app("full-disk", tmp_path=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await to_night(pilot)
        await pilot.press("f1")
        await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen")
        keys = str(app.screen.query_one("#help-keys").render())
        assert "night.fast-forward" in keys and "f7" in keys
        await pilot.press("escape")
        await until(pilot, lambda: type(app.screen).__name__ == "NightScreen")
        entries = {
            title: about for title, about, _ in NightCommands(app.screen)._commands(named=False)
        }
        about = entries["Action: wait --until page"]
        assert about.startswith("Fast-forward to the next signal") and about.endswith("(f7)")
