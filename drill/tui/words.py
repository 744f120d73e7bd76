"""The words the night's prompt takes that are not verbs, declared once: the TUI handles them
itself (they are not actions and are not saved). Completion, the line under the prompt, the
command palette and the night screen's handling of a typed line all read them from here; the
verbs come from their own declarations (drill/engine/actions/catalog.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TuiWord:
    word: str
    usage: str  # the line under the prompt while it is typed
    title: str = ""  # its entry in the command palette; "" for none
    about: str = ""  # the palette entry's help
    also: tuple[str, ...] = ()  # other spellings it takes, not offered by completion


DEBRIEF = TuiWord(
    "debrief",
    "debrief: end the night now and see the score",
    "Debrief",
    "End the night and see the score",
)
PAUSE = TuiWord(
    "pause",
    "pause: hold the clock (not an action, not saved)",
    "Pause",
    "Hold the clock (not saved)",
)
RESUME = TuiWord("resume", "resume: let the clock run again", "Resume", "Let the clock run again")
QUIT = TuiWord(
    "quit",
    "quit: leave; every action is already saved",
    "Quit",
    "Leave; every action is already saved",
    also=("exit",),
)
# The palette has an entry per speed (`Speed 60x`), not one for the word.
SPEED = TuiWord("speed", "speed N: 1 to 600 seconds of night per second (not saved)", "Speed")

TUI_WORDS: dict[str, TuiWord] = {w.word: w for w in (DEBRIEF, PAUSE, RESUME, QUIT, SPEED)}


def tui_word(typed: str) -> TuiWord | None:
    """The TUI word a typed word is, by its name or another spelling, or None."""
    typed = typed.lower()
    return next((w for w in TUI_WORDS.values() if typed == w.word or typed in w.also), None)
