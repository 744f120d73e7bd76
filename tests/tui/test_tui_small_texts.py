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
