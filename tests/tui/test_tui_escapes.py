"""A save's text never drives the terminal the TUI draws on: a resumed night whose note holds
an OSC 52 clipboard write and a screen clear shows them as visible signs in the log, the debrief's
timeline and answer boxes, and so does a line the learner pastes. What the screen would send to a
terminal is read from the screenshot's text: not one raw ESC in it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from textual.widgets import TextArea

from drill.incident.library import resolve_incident
from drill.saves import read_save
from drill.text_safety import visible
from tests.escapekit import CLEAR, EVIL, tampered_save
from tests.tui.tuikit import make_app, screen_name, settle, sync, type_line, until


def assert_clean(app) -> str:
    shown = app.export_screenshot()
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    return shown


@sync
async def test_a_hostile_save_shows_its_escapes_as_signs(tmp_path):
    path = tampered_save(tmp_path, finished=False)
    with path.open("a", encoding="utf-8") as handle:  # an answer saved before the night ended
        handle.write(json.dumps({"type": "text", "key": "runbook.health", "value": EVIL}) + "\n")
    app = make_app(resume=read_save(path), tmp_path=tmp_path)
    app.loaded = resolve_incident("tutorial")
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.driver.warm)
        await pilot.press("enter")
        await until(pilot, lambda: screen_name(app) == "NightScreen")
        await settle(pilot)
        assert visible(CLEAR) in assert_clean(app)  # the saved note, in the log

        await type_line(pilot, f"note pasted {CLEAR} here")  # refused, and echoed
        assert f"note pasted {visible(CLEAR)} here" in assert_clean(app).replace("&#160;", " ")
        await pilot.press("up", "up")  # the saved note back on the prompt, from the history
        await pilot.pause()
        assert_clean(app)
        await pilot.press("ctrl+u")

        await type_line(pilot, "debrief")
        await pilot.press("y")
        await until(pilot, lambda: screen_name(app) == "DebriefScreen")
        screen = app.screen
        for selector in ("#timeline", "#runbook-health"):
            screen.query_one(selector).scroll_visible(animate=False)
            await pilot.pause(0.2)
            assert_clean(app)
        answer = screen.query_one("#runbook-health", TextArea)
        assert answer.text == visible(EVIL)


@sync
async def test_an_incident_title_is_never_read_as_markup(tmp_path, monkeypatch):
    # The picker's table would read "[reverse]" as a style (or "[@click=...]" as an action);
    # a title is the incident author's text and shows as written.
    source = resolve_incident("tutorial").path
    text = Path(source).read_text(encoding="utf-8")
    title = "[reverse]Tutorial[/reverse] [@click=app.quit]first[/] page"
    (tmp_path / "tutorial.yaml").write_text(
        re.sub(r"(?m)^title: .*$", f"title: {json.dumps(title)}", text, count=1), encoding="utf-8"
    )
    monkeypatch.setattr("drill.incident.library.incidents_dir", lambda: tmp_path)
    app = make_app(tmp_path=tmp_path)
    async with app.run_test(size=(160, 30)) as pilot:
        await until(pilot, lambda: screen_name(app) == "PickerScreen")
        shown = app.export_screenshot().replace("&#160;", " ")
        assert "[reverse]Tutorial[/reverse]" in shown
