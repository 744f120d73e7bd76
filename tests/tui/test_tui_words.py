"""The prompt's words are the verbs' declarations plus the TUI's own words (drill/tui/words.py),
and nothing else: completion offers exactly those, the palette offers exactly those, and the
night screen handles every TUI word itself, never sending one to the engine."""

from __future__ import annotations

from drill.engine.actions.catalog import HELP, heads
from drill.tui.completion import Names, candidates, usage_line
from drill.tui.palette import NightCommands
from drill.tui.words import TUI_WORDS, tui_word
from tests.tui.tuikit import make_app, screen_name, sync, to_night, type_line, until

PANEL_ENTRY = "Show panel: "  # the palette's screens, not words


def test_completion_offers_the_verbs_and_the_tui_words():
    assert set(candidates("", Names())) == set(heads()) | set(TUI_WORDS)


def test_each_tui_word_says_what_it_does_under_the_prompt():
    for word in TUI_WORDS.values():
        assert usage_line(word.word) == word.usage
        assert word.usage.startswith(word.word)
    assert tui_word("EXIT") is TUI_WORDS["quit"]


@sync
async def test_the_palette_offers_the_verbs_and_the_tui_words(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        titles = [title for title, _, _ in NightCommands(app.screen)._commands(named=False)]
    words = {
        title.removeprefix("Action: ").split()[0].lower()
        for title in titles
        if not title.startswith(PANEL_ENTRY)
    }
    # `help` is the Help entry on every screen, which opens its screen.
    assert words == (set(heads()) - {HELP.name}) | set(TUI_WORDS)


@sync
async def test_the_night_handles_every_tui_word_itself(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        for word in TUI_WORDS.values():
            for typed in (word.word, *word.also):
                line = f"{typed} 10" if typed == "speed" else typed
                await type_line(pilot, line)
                if screen_name(app) == "ConfirmScreen":  # quit and debrief ask first
                    await pilot.press("n")
                    await until(pilot, lambda: screen_name(app) == "NightScreen")
        assert app.driver.session.drill.actions == []  # none reached the engine
        assert app.pacing.speed == 10 and screen_name(app) == "NightScreen"
