"""One Pilot test per complaint a new player made about the game (issue 16's Why list), each
checking the fixed behaviour, on the sim backend unless it says otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from drill.saves import read_save
from drill.saves_dir import saves_dir
from tests.tui.tuikit import (
    log_text,
    make_app,
    screen_name,
    settle,
    sync,
    to_night,
    type_line,
    until,
)

REPO = Path(__file__).resolve().parents[2]
BIG = (200, 60)


async def _to_debrief(pilot, lines=("status llm-pretrain",)) -> None:
    app = pilot.app
    await to_night(pilot)
    for line in lines:
        await type_line(pilot, line)
    await type_line(pilot, "debrief")
    await pilot.press("y")
    await until(
        pilot, lambda: screen_name(app) == "DebriefScreen" and app.screen.result is not None
    )


async def _click(pilot, selector: str) -> None:
    pilot.app.screen.query_one(selector).scroll_visible(animate=False)
    await pilot.pause()
    await pilot.click(selector)
    await pilot.pause()


# -- first frame and pacing -----------------------------------------------------------------

BRIEFING_FIRST_FRAME = textwrap.dedent(
    """
    import asyncio, sys
    from drill.cli import build_parser
    from drill.commands.play import app_options
    from drill.tui.app import DrillApp

    async def main():
        app = DrillApp(**app_options(build_parser().parse_args(["play", "dead-rank"])))
        async with app.run_test(size=(100, 30)) as pilot:
            while app.first_frame is None:
                await pilot.pause(0.01)
            print(*app.first_frame)
            while not (app.driver.warm or app.driver.error):
                await pilot.pause(0.05)
            print("torch" in sys.modules, app.driver.error)

    asyncio.run(main())
    """
)


@pytest.mark.slow  # a fresh process that then loads torch and the baseline
def test_drill_play_draws_the_briefing_before_torch_loads(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", BRIEFING_FIRST_FRAME],
        cwd=REPO,
        env={**os.environ, "DRILL_SAVES_DIR": str(tmp_path), "DRILL_CONFIG_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    first, warmed = done.stdout.splitlines()[:2]
    assert first == "BriefingScreen False"  # drawn, and torch not imported yet
    assert warmed == "True None"  # then the warm-up loaded it, while the learner read
    assert not list(tmp_path.glob("*.jsonl"))  # and wrote no save


def test_pages_about_your_job_hold_and_the_default_speed_leaves_time_to_read():
    from drill.tui.pacing import DEFAULT_SPEED, Pacing

    # A 15-line output takes a person about 15 seconds: at most three minutes of night.
    assert DEFAULT_SPEED * 15 <= 180
    pacing = Pacing()
    assert not pacing.page("warning", about_yours=False) and pacing.running
    assert not pacing.page("info", about_yours=True) and pacing.running
    assert pacing.page("warning", about_yours=True) and not pacing.running
    pacing.acted()
    assert pacing.page("critical", about_yours=False) and not pacing.running
    hard = Pacing(hard=True)
    assert not hard.page("critical", about_yours=True) and hard.running


@sync
async def test_the_no_progress_warning_about_your_job_holds_the_clock(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path, paused=False, speed=600)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        await until(pilot, lambda: app.pacing.page_hold, timeout=60)
        await settle(pilot)
        alert = app.driver.frame.snapshot.alerts[-1]
        assert alert.severity == "warning" and "no training progress" in alert.text
        held = app.driver.session.drill.now
        await pilot.pause(0.3)
        await settle(pilot)
        assert app.driver.session.drill.now == held
        assert "HELD" in app.screen.query_one("#night-header").plain


def test_speed_and_paused_flags_reach_the_app():
    from drill.cli import build_parser
    from drill.commands.play import app_options
    from drill.tui.pacing import DEFAULT_SPEED

    options = app_options(build_parser().parse_args(["play", "tutorial", "--speed", "30"]))
    assert options["speed"] == 30 and options["paused"] is False
    options = app_options(build_parser().parse_args(["play", "--paused"]))
    assert options["speed"] == DEFAULT_SPEED and options["paused"] is True


# -- the debrief ----------------------------------------------------------------------------


@sync
async def test_the_debrief_opens_with_the_first_answer_box_taking_keys(tmp_path):
    from textual.widgets import TextArea

    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await _to_debrief(pilot)
        assert isinstance(app.focused, TextArea) and app.focused.id == "opinion"
        await pilot.press("a", "s", "k")
        assert app.screen.query_one("#opinion", TextArea).text == "ask"
        assert app.screen.query_one("#score-total").region.y < 10  # the score is still in view


@pytest.mark.parametrize("width", [120, 80])
@sync
async def test_the_debrief_buttons_leave_none_alone_on_a_row(tmp_path, width):
    from textual.widgets import Button

    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(width, 50)) as pilot:
        await _to_debrief(pilot)
        buttons = list(app.screen.query("#debrief-buttons Button").results(Button))
        assert [b.id for b in buttons][-3:] == ["next", "incidents", "quit"]
        rows: dict[int, int] = {}
        for button in buttons:
            rows[button.region.y] = rows.get(button.region.y, 0) + 1
            assert button.region.width >= len(str(button.label))  # the label is visible
        if width == 120:
            assert len(rows) == 1
        assert max(rows.values()) - min(rows.values()) <= 1, rows


@sync
async def test_export_shows_its_steps_and_never_says_nothing_to_save(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await _to_debrief(pilot)
        screen = app.screen
        shown: list[str] = []
        status = screen.status
        screen.status = lambda text: (shown.append(text), status(text))[1]
        await _click(pilot, "#export-report")
        await until(pilot, lambda: any("written to" in s for s in shown), timeout=60)
    assert not any("Nothing new" in s for s in shown), shown
    steps = [s for s in shown if s.startswith("Exporting the report:")]
    assert any("replaying the night" in s for s in steps), shown
    assert any("writing the page" in s for s in steps), shown
    assert shown[-1].startswith("Report written to")


@sync
async def test_while_scoring_the_loss_panel_shows_the_night_and_progress_is_shown(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await to_night(pilot)
        await type_line(pilot, "wait 40m")
        step = next(j for j in app.driver.frame.snapshot.jobs if j.yours).step
        assert step > 0
        app.driver.lock.acquire()  # hold the scoring worker back, to look at the screen
        try:
            await type_line(pilot, "debrief")
            await pilot.press("y")
            await until(pilot, lambda: screen_name(app) == "DebriefScreen")
            screen = app.screen
            assert screen.result is None
            chart = screen.query_one("#debrief-chart")
            assert chart.step == step and f"step {step}/" in chart.summary().plain
            seen: list[str] = []
            show = screen.show_progress
            screen.show_progress = lambda p: (seen.append(p.text), show(p))[1]
        finally:
            app.driver.lock.release()
        await until(pilot, lambda: screen.result is not None, timeout=60)
    assert seen[0].startswith("Playing out the rest of the night")
    assert any("par and floor" in text for text in seen)


@sync
async def test_no_save_at_the_briefing_or_the_plan(tmp_path):
    for incident in ("dead-rank", "full-disk"):  # full-disk has a pre-shift plan
        app = make_app(incident, tmp_path=tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda app=app: app.driver.warm)
            if incident == "full-disk":
                await pilot.press("enter")
                await until(pilot, lambda app=app: screen_name(app) == "PlanScreen")
            await pilot.press("ctrl+q", "y")
            await until(pilot, lambda app=app: app.driver.closed)
    assert not list(tmp_path.glob("*.jsonl"))


@sync
async def test_replay_from_the_debrief_writes_nothing_until_its_night_starts(tmp_path):
    before = set(saves_dir().glob("dead-rank-seed3-*.jsonl"))
    app = make_app("dead-rank", tmp_path=tmp_path, seed=3)
    async with app.run_test(size=(120, 50)) as pilot:
        await _to_debrief(pilot)
        await _click(pilot, "#replay")
        await until(pilot, lambda: screen_name(app) == "BriefingScreen")
        await until(pilot, lambda: app.driver.warm)
        await pilot.press("ctrl+q", "y")
        await until(pilot, lambda: app.driver.closed)
    assert set(saves_dir().glob("dead-rank-seed3-*.jsonl")) == before
    assert read_save(tmp_path / "dead-rank.jsonl").score is not None  # the first night's


@sync
async def test_the_reference_timeline_waits_until_the_learner_asks(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await _to_debrief(pilot)
        screen = app.screen
        reference = screen.result.reference
        assert reference

        def shown() -> str:
            lines = screen.query_one("#timeline").render_lines(
                screen.query_one("#timeline").region.reset_offset
            )
            return "\n".join(line.text for line in lines)

        assert "status llm-pretrain" in shown()
        assert "reference solution" not in shown() and "drain gpu-a-2" not in shown()
        await _click(pilot, "#show-reference")
        assert "drain gpu-a-2" in shown() and "The reference solution" in shown()


# -- names and suggestions ------------------------------------------------------------------


def test_drill_play_suggests_the_close_incident(capsys):
    from drill.cli import main

    assert main(["play", "dead-rnak", "--backend", "sim"]) == 2
    err = capsys.readouterr().err
    assert "did you mean `dead-rank`" in err and err.count("\n") == 1


@sync
async def test_a_misspelt_option_value_gets_the_close_match(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=BIG) as pilot:
        await to_night(pilot)
        await type_line(pilot, "restart llm-pretrain --from latets")
        assert "Did you mean `restart llm-pretrain --from latest`?" in log_text(app)
        await type_line(pilot, "status llm-pretrian")  # the engine suggests this one itself
        assert "did you mean 'llm-pretrain'" in log_text(app)
        assert "Did you mean `status" not in log_text(app)  # and is not said twice


@sync
async def test_tab_cycles_through_the_candidates(tmp_path):
    from drill.tui.widgets.command_line import CommandLine

    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        prompt = app.screen.query_one(CommandLine)
        await pilot.press("c", "tab")
        assert prompt.value == "c"  # ambiguous: the choices are shown first
        assert "cancel" in str(app.screen.query_one("#inline-help").render())
        await pilot.press("tab")
        assert prompt.value == "cancel"
        await pilot.press("tab")
        assert prompt.value == "ckpt"
        await pilot.press("tab")
        assert prompt.value == "cordon"
        await pilot.press("tab")
        assert prompt.value == "cordon-leaf"
        await pilot.press("tab")
        assert prompt.value == "cancel"  # round again
        await pilot.press("shift+tab")
        assert prompt.value == "cordon-leaf"
        await pilot.press("shift+tab")
        assert prompt.value == "cordon"
        await pilot.press("space", "tab")
        assert prompt.value.startswith("cordon gpu-")  # a new word: completion starts over


# -- the log, the map and the queue ---------------------------------------------------------


@sync
async def test_the_log_expands_and_searches(tmp_path):
    from drill.tui.widgets.log_panel import LogPanel

    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=BIG) as pilot:
        await to_night(pilot)
        await type_line(pilot, "wait 31m")
        await type_line(pilot, "health gpu-a-2")
        screen = app.screen
        log = screen.query_one(LogPanel)
        normal = log.region.height
        await pilot.press("f5")
        await pilot.pause()
        assert log.region.height > normal * 2
        assert screen.query_one("#map").region.height == 0
        await pilot.press("f5")
        await pilot.pause()
        assert log.region.height == normal
        await pilot.press("ctrl+f")
        search = screen.query_one("#log-search")
        assert app.focused is search
        await pilot.press(*"xid")
        shown = [strip.text for strip in log.lines]
        assert shown and all("xid" in line.lower() for line in shown if line.strip())
        assert log.matches < len(log.entries)
        assert "with 'xid'" in log.border_title
        await pilot.press("escape")
        assert len([s for s in log.lines]) >= len(log.entries)
        assert app.focused is screen.query_one("#command")


def _find(strips, text: str) -> tuple[int, int]:
    for row, strip in enumerate(strips):
        col = strip.text.find(text)
        if col >= 0:
            return col, row
    raise AssertionError(f"{text!r} is not drawn")


@sync
async def test_clicking_a_node_or_a_job_fills_the_prompt(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=BIG) as pilot:
        await to_night(pilot)
        screen = app.screen
        prompt = screen.query_one("#command")
        cluster = screen.query_one("#map")
        col, row = _find(cluster._strips, "gpu-a-2 ")
        await pilot.click("#map", offset=(col + 2, row + 1))  # past the border and padding
        assert prompt.value == "health gpu-a-2"
        prompt.value = "drain "
        prompt.cursor_position = len(prompt.value)
        await pilot.click("#map", offset=(col + 2, row + 1))
        assert prompt.value == "drain gpu-a-2 "
        prompt.value = ""
        # The queue's first row under its header is the learner's job.
        await pilot.click("#queue .panel-body", offset=(2, 1))
        assert prompt.value == "status llm-pretrain"


# -- history and resume ---------------------------------------------------------------------


@sync
async def test_history_is_kept_across_sessions(tmp_path):
    first = make_app("tutorial", tmp_path=tmp_path)
    async with first.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        await type_line(pilot, "queue")
        await type_line(pilot, "status tiny-train")
        await pilot.press("ctrl+q", "y")
        await until(pilot, lambda: first.driver.closed)
    second = make_app("dead-rank", tmp_path=tmp_path)
    async with second.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        prompt = second.screen.query_one("#command")
        await pilot.press("up")
        assert prompt.value == "status tiny-train"
        await pilot.press("up")
        assert prompt.value == "queue"
    assert (tmp_path / "config" / "history").read_text().splitlines()[-2:] == [
        "queue",
        "status tiny-train",
    ]


@sync
async def test_resume_starts_with_the_saved_log_and_history(tmp_path):
    from drill.incident.library import resolve_incident

    first = make_app("dead-rank", tmp_path=tmp_path, config_dir=tmp_path / "one")
    async with first.run_test(size=BIG) as pilot:
        await to_night(pilot)
        await type_line(pilot, "wait 31m")
        await type_line(pilot, "health gpu-a-2")
        await pilot.press("ctrl+q", "y")
        await until(pilot, lambda: first.driver.closed)
    save = read_save(tmp_path / "dead-rank.jsonl")
    again = make_app(resume=save, tmp_path=tmp_path, config_dir=tmp_path / "two")
    again.loaded = resolve_incident("dead-rank")
    async with again.run_test(size=BIG) as pilot:
        await to_night(pilot)
        shown = log_text(again)
        assert "> wait 31m" in shown and "> health gpu-a-2" in shown
        assert "Xid 79" in shown  # what health printed then
        assert shown.index("> wait 31m") < shown.index("PAGE") < shown.index("> health")
        prompt = again.screen.query_one("#command")
        await pilot.press("up")
        assert prompt.value == "health gpu-a-2"
        await pilot.press("up")
        assert prompt.value == "wait 31m"
        assert not again.pacing.page_hold  # the old pages do not hold the clock again


# -- keys, themes, the next incident --------------------------------------------------------


@sync
async def test_keys_rebound_and_theme_chosen_in_the_config_file(tmp_path):
    folder = tmp_path / "config"
    folder.mkdir()
    (folder / "config.toml").write_text(
        'theme = "nord"\n\n[keymap]\n"night.pause" = "f9"\n"night.nonsense" = "f8"\n'
    )
    app = make_app("dead-rank", tmp_path=tmp_path)
    notices: list[str] = []
    notify = app.notify
    app.notify = lambda message, **kw: (notices.append(message), notify(message, **kw))[1]
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.theme == "nord"
        await to_night(pilot)
        app.pacing.paused = False
        await pilot.press("f2")
        assert not app.pacing.paused  # f2 is no longer pause
        await pilot.press("f9")
        assert app.pacing.paused
        await pilot.press("f1")
        keys = str(app.screen.query_one("#help-keys").render())
        assert "night.pause" in keys and "f9" in keys
        await pilot.press("escape")
        app.theme = "gruvbox"  # as the palette's theme picker does
        await pilot.pause()
    assert any("night.nonsense" in n for n in notices), notices
    text = (folder / "config.toml").read_text()
    assert 'theme = "gruvbox"' in text and '"night.pause" = "f9"' in text


@sync
async def test_next_incident_from_the_debrief(tmp_path):
    app = make_app("tutorial", tmp_path=tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await _to_debrief(pilot, lines=("status tiny-train",))
        first = app.driver
        await _click(pilot, "#next")
        await until(pilot, lambda: screen_name(app) == "BriefingScreen" and app.driver is not first)
        assert app.driver.spec.incident.id == "dead-rank"  # next in the suggested order
        assert first.closed
        await pilot.press("ctrl+q", "y")
        await until(pilot, lambda: app.driver.closed)
