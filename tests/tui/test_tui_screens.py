"""The screens one at a time: the plan's `set` actions, the prompt's keys, rejections, sizes,
help, the palette, quitting."""

from __future__ import annotations

from drill.saves import read_save
from tests.tui.tuikit import (
    log_text,
    make_app,
    screen_name,
    settle,
    static_text,
    sync,
    to_night,
    type_line,
    until,
)

SMALL, BIG = (80, 24), (200, 60)


@sync
async def test_the_plan_becomes_set_actions_at_the_start_of_the_night(tmp_path):
    app = make_app("full-disk", tmp_path=tmp_path)
    async with app.run_test(size=(100, 36)) as pilot:
        await until(pilot, lambda: app.driver.warm)
        await pilot.press("enter")
        await until(pilot, lambda: screen_name(app) == "PlanScreen")
        costs = str(app.screen.query_one("#plan-costs").render())
        assert "980.0GB" in costs and "3 x 980.0GB = 2.9TB" in costs
        await pilot.click("#down-ckpt-keep")  # 3 -> 2, and the cost follows
        await pilot.pause()
        assert "2 x 980.0GB = 2.0TB" in str(app.screen.query_one("#plan-costs").render())
        await pilot.press("ctrl+s")
        await until(pilot, lambda: screen_name(app) == "NightScreen")
        await settle(pilot)
        drill = app.driver.session.drill
        sets = [(a.time, a.end, a.text) for a in drill.actions]
        assert sets == [
            (0.0, 0.0, "set llm-pretrain ckpt-every 50"),
            (0.0, 0.0, "set llm-pretrain ckpt-keep 2"),
        ]
        assert drill.world.jobs["llm-pretrain"].policy.keep == 2
    save = read_save(tmp_path / "full-disk.jsonl")
    assert [a.text for a in save.actions] == [text for _, _, text in sets]


@sync
async def test_a_plan_value_outside_its_range_is_refused_on_screen(tmp_path):
    app = make_app("preempted-job", tmp_path=tmp_path)
    async with app.run_test(size=(100, 36)) as pilot:
        await until(pilot, lambda: app.driver.warm)
        await pilot.press("enter")
        await until(pilot, lambda: screen_name(app) == "PlanScreen")
        field = app.screen.query_one("#input-ckpt-every")
        field.value = "5"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert screen_name(app) == "PlanScreen"
        assert "from 25 to 200" in str(app.screen.query_one("#plan-error").render())
        field.value = "25"
        await pilot.click("#switch-ckpt-on-sigterm")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: screen_name(app) == "NightScreen")
        await settle(pilot)
        texts = [a.text for a in app.driver.session.drill.actions]
        assert texts == ["set llm-pretrain ckpt-on-sigterm yes", "set llm-pretrain ckpt-every 25"]


REJECTED = [
    ("helth gpu-a-1", "did you mean `health`"),
    ("health gpu-zz-9", "gpu-zz-9"),
    ("ckpt", "usage: ckpt"),
    ("restart llm-pretrain --from", "--from needs a value"),
    ("hint", "unlocks in"),
    ("speed fast", "speed takes a number"),
    ("speed 9000", "speed goes from 1 to 600"),
    ("help nosuchverb", "no action `nosuchverb`"),
    ("x" * 600, "keep an action under 500"),
]


@sync
async def test_rejected_lines_say_why_in_one_line_and_the_night_goes_on(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=BIG) as pilot:
        await to_night(pilot)
        for line, why in REJECTED:
            await type_line(pilot, line)
            assert screen_name(app) == "NightScreen"
            shown = log_text(app)
            assert why in shown, (line, shown[-400:])
        assert not app.driver.failed
        await type_line(pilot, "status")
        assert "GPUs in use" in log_text(app)
    save = read_save(tmp_path / "dead-rank.jsonl")
    refused = [a for a in save.actions if not a.accepted]
    assert len(refused) >= 5  # the engine's rejections are recorded; the screen's own are not


@sync
async def test_prompt_keys_history_completion_and_line_editing(tmp_path):
    from drill.tui.widgets.command_line import CommandLine

    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        prompt = app.screen.query_one(CommandLine)
        assert app.focused is prompt
        await pilot.press("h", "e", "a", "tab")
        assert prompt.value == "health "
        await pilot.press("g", "p", "u", "-", "a", "-", "tab")
        assert prompt.value.startswith("health gpu-a-")
        assert "gpu-a-1" in str(app.screen.query_one("#inline-help").render())
        await pilot.press("ctrl+u")
        assert prompt.value == ""
        await pilot.press("c", "k", "tab")
        assert prompt.value == "ckpt "
        await pilot.press("l", "tab", "tab")
        assert prompt.value == "ckpt list llm-pretrain "
        await pilot.press("ctrl+a", "x", "ctrl+e", "y")
        assert prompt.value == "xckpt list llm-pretrain y"
        await pilot.press("ctrl+w")
        assert prompt.value == "xckpt list llm-pretrain "
        await pilot.press("ctrl+a", "ctrl+k")
        assert prompt.value == ""
        await type_line(pilot, "queue", keys=True)
        await type_line(pilot, "nodes", keys=True)
        await pilot.press("up")
        assert prompt.value == "nodes"
        await pilot.press("up")
        assert prompt.value == "queue"
        await pilot.press("down", "down")
        assert prompt.value == ""
        assert [a.text for a in app.driver.session.drill.actions] == ["queue", "nodes"]


@sync
async def test_typing_holds_the_clock_and_pause_is_not_an_action(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path, paused=False, speed=600)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        await until(pilot, lambda: app.driver.session.drill.now > 0)
        await pilot.press("s", "t")
        await settle(pilot)
        held = app.driver.session.drill.now
        await pilot.pause(0.3)
        await settle(pilot)
        assert app.driver.session.drill.now == held
        assert "held while you type" in app.screen.query_one("#night-header").plain
        await pilot.press("ctrl+u")
        await type_line(pilot, "pause")
        stopped = app.driver.session.drill.now
        await pilot.pause(0.3)
        await settle(pilot)
        assert app.driver.session.drill.now == stopped
        await pilot.press("f2")  # resume
        await until(pilot, lambda: app.driver.session.drill.now > stopped)
        await pilot.press("f2")
        assert app.pacing.paused
        await type_line(pilot, "speed 10")
        assert app.pacing.speed == 10
        await pilot.press("f4")
        assert app.pacing.speed == 30
        assert [a.text for a in app.driver.session.drill.actions] == []


@sync
async def test_small_terminal_folds_panels_into_tabs(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await to_night(pilot)
        await type_line(pilot, "wait 30m")
        screen = app.screen
        assert screen.has_class("-narrow")
        tabs = screen.query_one("#panel-tabs")
        assert tabs.display and tabs.region.height > 0
        for key in ("log", "map", "queue", "training", "storage", "pager"):
            await pilot.click(f"#tab-{key}")
            await pilot.pause()
            panel = screen.query_one(f"#{key}")
            assert panel.region.height >= 10 and panel.region.width >= 70, key
            assert screen.region.contains_region(panel.region)
            others = [w for w in screen.query(".panel") if w.id != key]
            assert all(w.region.height == 0 for w in others)
        await pilot.press("f6")
        assert screen.active == "log"
        prompt = screen.query_one("#command")
        assert prompt.region.height == 1 and screen.region.contains_region(prompt.region)
        assert app.focused is prompt
        await type_line(pilot, "status")
        assert screen.active == "log"


@sync
async def test_big_terminal_shows_every_panel_at_once(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=BIG) as pilot:
        await to_night(pilot)
        screen = app.screen
        assert not screen.has_class("-narrow")
        assert not screen.query_one("#panel-tabs").display
        regions = [
            screen.query_one(f"#{key}").region
            for key in ("map", "pager", "queue", "storage", "log", "training")
        ]
        for region in regions:
            assert region.height >= 8 and region.width >= 40
            assert screen.region.contains_region(region)
        for i, a in enumerate(regions):
            assert not any(a.overlaps(b) for b in regions[i + 1 :])
        drawn = "\n".join(strip.text for strip in screen.query_one("#map")._strips)
        for node in app.driver.frame.snapshot.nodes:  # cell by cell: every node has its cell
            assert node.name in drawn
        await type_line(pilot, "wait 31m")
        await pilot.click(screen.query_one("#pager .panel-body"), offset=(0, 0))
        assert screen.query_one("#command").value == "ack P2"  # a click on a page's id


@sync
async def test_f1_and_help_open_the_help_screen(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await to_night(pilot)
        await pilot.press("f1")
        assert screen_name(app) == "HelpScreen"
        assert "ckpt verify JOB STEP" in str(app.screen.query_one("#help-actions").render())
        await pilot.press("escape")
        assert screen_name(app) == "NightScreen"
        await type_line(pilot, "help drain")
        assert screen_name(app) == "HelpScreen"
        assert "Drain does not stop a hung job" in str(app.screen.query_one(".help-verb").render())
        await pilot.press("escape")
        assert app.driver.session.drill.actions == []  # help is the screen's, not an action


@sync
async def test_help_on_a_group_head_lists_its_actions(tmp_path):
    """Audit defect 8: `help ckpt` said "no action `ckpt`; try one of: ..., ckpt, ..."."""
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await to_night(pilot)
        await type_line(pilot, "help ckpt")
        assert screen_name(app) == "HelpScreen", log_text(app)
        shown = str(app.screen.query_one(".help-verb").render())
        for usage in ("ckpt list JOB", "ckpt verify JOB STEP", "ckpt rm JOB STEP"):
            assert usage in shown


@sync
async def test_palette_reaches_actions_and_screens(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"health gpu-a-3")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        prompt = app.screen.query_one("#command")
        assert screen_name(app) == "NightScreen"
        assert prompt.value == "health gpu-a-3"  # put on the prompt, not run
        await pilot.press("enter")
        await settle(pilot)
        assert app.driver.session.drill.actions[-1].text == "health gpu-a-3"
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Speed 300x")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.pacing.speed == 300


@sync
async def test_quit_asks_first_and_closes_the_save(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await to_night(pilot)
        await type_line(pilot, "status")
        await pilot.press("ctrl+q")
        assert screen_name(app) == "ConfirmScreen"
        await pilot.press("n")
        assert screen_name(app) == "NightScreen"
        await type_line(pilot, "quit")
        assert screen_name(app) == "ConfirmScreen"
        await pilot.press("enter")
        await until(pilot, lambda: app.driver.closed)
    assert app.return_code == 0
    assert app.driver.session.writer.closed
    save = read_save(tmp_path / "dead-rank.jsonl")
    assert [a.text for a in save.actions] == ["status"] and save.score is None


@sync
async def test_quit_and_the_engine_error_line_say_only_what_is_saved(tmp_path):
    """Before the night starts there is no save: the quit dialog must not claim one. Once it
    runs, the dialog and the engine-error line name the save itself."""
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.driver.warm)
        await pilot.press("ctrl+q")
        assert screen_name(app) == "ConfirmScreen"
        detail = static_text(app, "#dialog-detail")
        assert "nothing to lose" in detail and "already in" not in detail, detail
        assert not list(tmp_path.glob("*.jsonl"))
        await pilot.press("n")
        await to_night(pilot)
        save = str(tmp_path / "dead-rank.jsonl")
        await pilot.press("ctrl+q")
        assert static_text(app, "#dialog-detail").replace("\n", "") == (
            f"Every action you took is already in {save}."
        )
        await pilot.press("n")
        app.screen.engine_failed("Traceback\nRuntimeError: boom")
        await pilot.pause()
        assert f"Your actions so far are in {save}." in log_text(app).replace("\n", "")


@sync
async def test_resume_carries_on_a_saved_night(tmp_path):
    from drill.incident.library import resolve_incident

    first = make_app("dead-rank", tmp_path=tmp_path)
    async with first.run_test(size=(100, 30)) as pilot:
        await to_night(pilot)
        await type_line(pilot, "wait 10m")
        await type_line(pilot, "status")
        await pilot.press("ctrl+q", "y")
        await until(pilot, lambda: first.driver.closed)
    save = read_save(tmp_path / "dead-rank.jsonl")
    again = make_app(resume=save, tmp_path=tmp_path)
    again.loaded = resolve_incident("dead-rank")
    async with again.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: again.driver.warm)
        assert again.driver.session.drill.now == 615.0
        await pilot.press("enter")
        await until(pilot, lambda: screen_name(again) == "NightScreen")  # no plan on a resume
        await type_line(pilot, "queue")
        await pilot.press("ctrl+q", "y")
        await until(pilot, lambda: again.driver.closed)
    assert [a.text for a in read_save(tmp_path / "dead-rank.jsonl").actions] == [
        "wait 10m",
        "status",
        "queue",
    ]


@sync
async def test_a_critical_page_holds_the_night_until_the_learner_acts(tmp_path):
    app = make_app("tutorial", tmp_path=tmp_path, paused=False, speed=600)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        await until(pilot, lambda: app.pacing.page_hold, timeout=60)
        await settle(pilot)
        held = app.driver.session.drill.now
        await pilot.pause(0.3)
        await settle(pilot)
        assert app.driver.session.drill.now == held
        assert "HELD" in app.screen.query_one("#night-header").plain
        # The log shows the page as the pager names it: its id and severity from the event.
        pages = app.driver.session.drill.world.pager.alerts
        critical = next(a for a in pages if a.severity == "critical")
        assert f"PAGE {critical.id} critical: " in log_text(app)
        await type_line(pilot, "ack all")
        assert not app.pacing.page_hold
        await until(pilot, lambda: app.driver.session.drill.now > held + 60)


@sync
async def test_hard_mode_never_holds(tmp_path):
    app = make_app("tutorial", tmp_path=tmp_path, paused=False, speed=600, hard=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        await pilot.press("s", "t", "a")
        start = app.driver.session.drill.now
        await until(pilot, lambda: app.driver.session.drill.now > max(start, 400.0), timeout=60)
        assert not app.pacing.page_hold


@sync
async def test_a_frame_that_comes_before_the_night_screen_mounts_waits_for_it(tmp_path):
    """A frame can reach the app between push_screen and the night screen's on_mount, before
    its widgets exist (seen as NoMatches on ClusterMap under load). It must not crash the
    night; the screen shows the driver's latest frame once it mounts."""
    from drill.tui.screens.night import NightScreen

    app = make_app("tutorial", tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        await settle(pilot)
        frame = app.driver.frame
        assert frame is not None
        early = NightScreen(app.driver, app.pacing)
        early.show_frame(frame)  # not mounted yet: no ClusterMap to query
        assert early.frame is None
        assert screen_name(app) == "NightScreen"


@sync
async def test_a_page_about_my_job_that_fires_during_an_action_holds_the_clock(tmp_path):
    """Audit defect 6: the action's own result released the hold that a warning about the
    learner's job, fired while the action ran, had just set. In dead-rank P2 ("llm-pretrain:
    no training progress") fires at 03:29:48, inside `wait 31m`."""
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        await type_line(pilot, "wait 31m")
        assert "PAGE P2 warning: llm-pretrain" in log_text(app)
        assert app.screen.pacing.page_hold
        await type_line(pilot, "ack P2")
        assert not app.screen.pacing.page_hold  # acting after it releases it


@sync
async def test_help_and_the_palette_hold_the_clock(tmp_path):
    """Audit defect 17: 47s of night passed while F1's help was open for about 5s at 10x."""
    app = make_app("dead-rank", tmp_path=tmp_path, paused=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)

        def now() -> float:
            return app.driver.frame.snapshot.time

        for key in ("f1", "ctrl+p"):
            await pilot.press(key)
            await pilot.pause(0.3)
            await settle(pilot)
            before = now()
            await pilot.pause(1.0)  # 10s of night at 10x, were the clock running
            await settle(pilot)
            assert now() == before, key
            await pilot.press("escape")
            await until(pilot, lambda: screen_name(app) == "NightScreen")
        await until(pilot, lambda: now() > before)  # and it runs again once they close


@sync
async def test_help_keys_are_printed_as_on_the_keyboard_in_columns(tmp_path):
    """Audit defect 18: "left_square_bracket", "plus / equals_sign" pushed their descriptions
    and ids out of line."""
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await to_night(pilot)
        await pilot.press("f1")
        shown = str(app.screen.query_one("#help-keys").render())
        keys = shown.split("\nLine editing")[0]
        assert "square_bracket" not in keys and "equals_sign" not in keys
        rows = [line for line in keys.splitlines() if line.startswith("  ") and line.strip()]
        assert rows and all(row[18] == " " and row[19] != " " for row in rows), rows


async def _palette(pilot, query: str) -> list[str]:
    """The palette's entries for what is typed, as (title, help) lines."""
    from textual.command import CommandList

    await pilot.press("ctrl+p")
    await pilot.pause(0.3)
    await pilot.press(*query)
    await pilot.pause(0.5)
    found = pilot.app.screen.query_one(CommandList)
    shown = [str(found.get_option_at_index(i).prompt) for i in range(found.option_count)]
    await pilot.press("escape")
    await pilot.pause()
    return shown


@sync
async def test_the_palette_lists_help_and_quit_once_in_the_games_words(tmp_path):
    """Audit defect 19: "Help" twice, Textual's own Quit beside the game's, and
    "1 seconds of night per second"."""
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        helps = [e for e in await _palette(pilot, "help") if e.startswith("Help\n")]
        assert len(helps) == 1, helps
        quits = [e for e in await _palette(pilot, "quit") if e.startswith("Quit\n")]
        assert quits == ["Quit\nLeave; every action is already saved"]
        speeds = await _palette(pilot, "speed 1x")
        assert "Speed 1x\n1 second of night per second" in speeds, speeds


@sync
async def test_the_full_screen_log_wraps_at_its_own_width(tmp_path):
    """Audit defect 13: F5's log kept the narrow panel's line breaks (page lines broke at ~88
    columns in a 138-column log)."""
    from textual.widgets import RichLog

    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await to_night(pilot)
        await type_line(pilot, "wait 31m")  # P2's page line is longer than the panel is wide
        log = app.screen.query_one("#log", RichLog)
        narrow = log.scrollable_content_region.width
        await pilot.press("f5")
        await pilot.pause(0.2)
        assert log.scrollable_content_region.width > narrow + 20
        longest = max(len(strip.text.rstrip()) for strip in log.lines)
        assert longest > narrow, (longest, narrow)


@sync
async def test_the_training_panel_shows_no_rate_for_a_stopped_job(tmp_path):
    """Audit defect 32: "step 24/120 3.9 steps/min" while tiny-train had failed."""
    from drill.tui.widgets.loss_chart import LossChart

    app = make_app("tutorial", tmp_path=tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await to_night(pilot)
        await type_line(pilot, "wait 7m")  # the Xid 13 crash at 03:06:05 stops tiny-train
        await type_line(pilot, "ack all")
        chart = app.screen.query_one(LossChart)
        summary = chart.summary().plain
        assert "steps/min" not in summary and "failed" in summary, summary
