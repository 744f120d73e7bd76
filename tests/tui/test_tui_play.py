"""Whole nights through the TUI, typed at the prompt, against the headless engine."""

from __future__ import annotations

import json
import re

from drill.cli import main
from drill.engine.headless import resolve_text, resolve_time
from drill.engine.timed import parse_text
from tests.tui.tuikit import (
    make_app,
    screen_name,
    settle,
    static_text,
    sync,
    to_night,
    type_line,
    until,
)

SIZE = (120, 40)


@sync
async def test_dead_rank_from_picker_to_debrief_scores_like_drill_run(tmp_path, capsys):
    """Type the reference solution (templates filled in, `wait` to reach each time), end the
    night from the prompt, and get the score `drill run` gives for exactly those lines."""
    app = make_app(tmp_path=tmp_path)
    typed: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert screen_name(app) == "PickerScreen"
        await pilot.press("down", "enter")  # dead-rank is second in the suggested order
        await until(pilot, lambda: screen_name(app) == "BriefingScreen")
        assert app.driver.spec.incident.id == "dead-rank"
        await to_night(pilot)
        drill = app.driver.session.drill
        incident = drill.incident
        fault_ids = {f.id for f in incident.faults}
        previous_end = 0.0
        for action in parse_text("\n".join(incident.reference), "reference", fault_ids):
            start = max(resolve_time(drill, action, previous_end), drill.now)
            if start > drill.now:
                line = f"wait {start - drill.now:g}s"
                await type_line(pilot, line, keys=True)
                typed.append(line)
            line = resolve_text(drill, action.text)
            # Short lines key by key; long ones as a terminal paste (Pilot is slow per key here).
            await type_line(pilot, line, keys=len(line) <= 16)
            typed.append(line)
            previous_end = drill.actions[-1].end
            assert drill.actions[-1].accepted, drill.actions[-1].output
        await type_line(pilot, "debrief", keys=True)
        assert screen_name(app) == "ConfirmScreen"
        await pilot.press("y")
        await until(
            pilot, lambda: screen_name(app) == "DebriefScreen" and app.screen.result is not None
        )
        shown = static_text(app, "#score-total")
        await pilot.press("ctrl+q")
        await pilot.press("y")
        await until(pilot, lambda: app.driver.closed)

    actions = tmp_path / "typed.actions"
    actions.write_text("03:00 " + typed[0] + "\n" + "".join(f"+0s {line}\n" for line in typed[1:]))
    code = main(
        ["run", "dead-rank", "--actions", str(actions), "--backend", "sim", "--seed", "1", "--json"]
        + ["--save", str(tmp_path / "headless.jsonl")]
    )
    assert code == 0
    score = json.loads(capsys.readouterr().out)["score"]
    assert shown == f"Score {score['total']}/100, grade {score['grade']}"
    assert score["grade"] == "A"


BACKTICKS = re.compile(r"`([^`]+)`")


@sync
async def test_tutorial_played_from_its_hints_alone(tmp_path):
    """Ask for a hint, type what it quotes, repeat: the tutorial must carry a newcomer to the
    debrief. A wide, short terminal keeps each hint on one log line to read it back."""
    app = make_app("tutorial", tmp_path=tmp_path)
    async with app.run_test(size=(260, 30)) as pilot:
        await to_night(pilot)
        for _ in range(30):
            if screen_name(app) != "NightScreen":
                break
            await type_line(pilot, "hint")
            if screen_name(app) != "NightScreen":
                break
            lines = _log_lines(app)
            last = next(line for line in reversed(lines) if line.startswith(("hint ", "Not done:")))
            if last.startswith("Not done:"):
                wait = re.search(r"unlocks in (\S+)", last)
                await type_line(pilot, f"wait {wait.group(1)}" if wait else "wait 30m")
                continue
            for command in BACKTICKS.findall(last):
                if screen_name(app) == "NightScreen":
                    await type_line(pilot, command)
        await until(
            pilot, lambda: screen_name(app) == "DebriefScreen" and app.screen.result is not None
        )
        score = app.screen.result.score
        parts = {c.name: c for c in score.components}
        assert app.driver.session.drill.learner_job.state == "completed"
        assert parts["recovered"].points > 0.9 * parts["recovered"].weight
        assert static_text(app, "#score-total").startswith("Score ")
        hints = [a for a in app.driver.session.drill.actions if a.text == "hint" and a.accepted]
        assert len(hints) == len(app.driver.spec.incident.hints)


@sync
async def test_tutorial_hint_at_the_page_follows_what_was_done(tmp_path):
    """Audit defect 5: at the tutorial's page (clock held) `hint` said "unlocks in 55s", and
    after `ack P1` it said "Type `ack all`". Now the page's hint is there at the page, and a
    hint for what the learner already did is skipped."""
    app = make_app("tutorial", tmp_path=tmp_path)
    async with app.run_test(size=(260, 30)) as pilot:
        await to_night(pilot)
        await type_line(pilot, "status")
        await type_line(pilot, "wait 6m")  # the page fires at 03:06:05, inside the wait
        assert app.screen.pacing.page_hold
        await type_line(pilot, "hint")
        last = [line for line in _log_lines(app) if line.startswith(("hint ", "Not done:"))][-1]
        assert "A page fired" in last, last
        await type_line(pilot, "ack P1")
        await type_line(pilot, "hint")
        last = [line for line in _log_lines(app) if line.startswith(("hint ", "Not done:"))][-1]
        assert "status tiny-train" in last and "ack all" not in last, last


def _log_lines(app) -> list[str]:
    from textual.widgets import RichLog

    log = app.screen.query_one("#log", RichLog)
    return [strip.text.strip() for strip in log.lines]
