"""Small texts the learner reads on the briefing and under the prompt, read as drawn."""

from __future__ import annotations

from tests.tui.tuikit import make_app, screen_name, static_text, sync, to_night, until


def drawn(widget) -> str:
    """The widget's first line as the terminal shows it (markup already applied)."""
    return widget.render_line(0).text


@sync
async def test_the_usage_under_the_prompt_keeps_its_optional_arguments(tmp_path):
    """`status [JOB]` once drew as `status :`: the brackets were read as markup."""
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        for verb, usage in (("status", "status [JOB]:"), ("df", "df [VOLUME]:")):
            await pilot.press("ctrl+u", *verb)
            await pilot.pause()
            shown = drawn(app.screen.query_one("#inline-help"))
            assert shown.startswith(usage), shown


@sync
async def test_the_briefing_says_the_incident_and_its_level_once_each(tmp_path):
    for incident, level in (("tutorial", None), ("dead-rank", "easy")):
        app = make_app(incident, tmp_path=tmp_path / incident)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda app=app: screen_name(app) == "BriefingScreen")
            meta = static_text(app, "#situation").splitlines()[1]
            words = [word.strip() for word in meta.split(",")]
            assert words[0] == incident and len(words) == len(set(words)), meta
            assert (level in words) if level else words[1].startswith("about "), meta


@sync
async def test_after_df_the_storage_panel_shows_the_moment_df_read(tmp_path):
    """The panel once showed the volumes as of when `df` finished, 10 s after the reading in the
    log: its "as of" and numbers were not the ones `df` had just printed."""
    from drill.tui.widgets.storage import StoragePanel
    from tests.tui.tuikit import type_line

    app = make_app("full-disk", tmp_path=tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await to_night(pilot)
        await type_line(pilot, "wait 10m")
        await type_line(pilot, "df")
        result = app.driver.session.drill.actions[-1]
        assert result.verb == "df" and result.end > result.time
        screen = app.screen
        lag = 300.0  # full-disk's volume reports 5m late
        volume = screen.frame.storage.volumes[0]
        assert volume.as_of == result.time - lag
        body = screen.query_one(StoragePanel).query_one(".panel-body")
        text = "\n".join(body.render_line(y).text for y in range(body.size.height))
        assert f"as of {screen.clock(result.time - lag)}" in text, text
