"""A line typed in the second or two while the night's session opens is kept and run as soon as
the night starts, after the plan's own `set` lines; it used to be thrown away with "Not yet: the
cluster is still getting ready. Try again in a moment." (a quick typist in a real terminal lost
their first `status`)."""

from __future__ import annotations

from textual import events

from drill.saves import read_save
from drill.tui.widgets.command_line import CommandLine
from tests.tui.tuikit import SIZE, log_text, make_app, screen_name, settle, sync, until


@sync
async def test_a_line_typed_while_the_session_opens_runs_when_the_night_starts(tmp_path):
    app = make_app("full-disk", tmp_path=tmp_path, backend="sim")  # a plan: `set` lines first
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.driver is not None and app.driver.warm)
        # The engine's lock held here keeps the session from opening while the learner types.
        app.driver.lock.acquire()
        try:
            await pilot.press("enter")
            await pilot.pause()
            if screen_name(app) == "PlanScreen":
                await pilot.press("ctrl+s")
            await until(pilot, lambda: screen_name(app) == "NightScreen")
            assert not app.driver.ready
            app.screen.query_one(CommandLine).post_message(events.Paste("status llm-pretrain"))
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            assert "this runs as soon as the night starts" in log_text(app)
        finally:
            app.driver.lock.release()
        await until(pilot, lambda: app.driver.ready)
        await settle(pilot)
        assert "> status llm-pretrain" in log_text(app)
    save = read_save(tmp_path / "full-disk.jsonl")
    texts = [a.text for a in save.actions]
    assert texts[-1] == "status llm-pretrain" and save.actions[-1].accepted
    assert texts[:-1] and all(t.startswith("set ") for t in texts[:-1]), texts
