"""The prompt: an Input with shell habits. Up and Down walk the history (kept across sessions in
the config folder), Tab completes verbs and names and, pressed again, cycles through the
candidates (shift+Tab backwards). Every other key is the Input's own (ctrl+a, ctrl+e, ctrl+k,
ctrl+u, ctrl+w, ...).

Completion itself is `drill.tui.completion` (`complete`, `candidates`); this widget only keeps
the cycling state.
"""

from __future__ import annotations

from pathlib import Path

from textual.message import Message
from textual.widgets import Input

from drill.text_safety import visible
from drill.tui.bindings import bindings
from drill.tui.completion import Names, complete
from drill.tui.config import HISTORY_MAX, append_history, load_history


def _stem(text: str) -> str:
    """The line before the word being completed."""
    if not text or text.endswith(" "):
        return text
    return text[: len(text) - len(text.split()[-1])]


class CommandLine(Input):
    BINDINGS = bindings("prompt")

    class Choices(Message):
        """Tab found more than one way to go on: the screen shows them, and which one is on
        the prompt while Tab cycles (`current`, None before the first cycle)."""

        def __init__(self, choices: list[str], current: int | None = None) -> None:
            super().__init__()
            self.choices = choices
            self.current = current

    def __init__(self, *, history_dir: Path | None = None, **kwargs) -> None:
        kwargs.setdefault("placeholder", "type an action, like status; Tab completes, F1 for help")
        super().__init__(**kwargs)
        self.names = Names()
        self.history_dir = history_dir
        self.history: list[str] = load_history(history_dir) if history_dir else []
        self._index: int | None = None
        self._draft = ""
        # While Tab cycles: the line before the word, the candidates, the one shown, and the
        # text the prompt held right after the last Tab (any other edit ends the cycle).
        self._cycle: tuple[str, list[str], int] | None = None
        self._cycle_shown = ""

    # -- history ----------------------------------------------------------------------------

    def remember(self, line: str, *, keep: bool = True) -> None:
        """A line was run: it goes last in the history, and into the history file unless
        `keep` is false (a resumed night's own lines are in its save already)."""
        if line and (not self.history or self.history[-1] != line):
            self.history.append(line)
            del self.history[:-HISTORY_MAX]
            if keep and self.history_dir is not None:
                append_history(line, self.history_dir)
        self._index = None
        self._draft = ""

    def action_history(self, delta: int) -> None:
        if not self.history:
            return
        if self._index is None:
            if delta > 0:
                return
            self._draft = self.value
            self._index = len(self.history)
        self._index += delta
        if self._index >= len(self.history):
            self._index = None
            self.value = self._draft
        else:
            self._index = max(0, self._index)
            # A line from the history file or a resumed save: shown, never obeyed.
            self.value = visible(self.history[self._index])
        self.cursor_position = len(self.value)

    # -- completion -------------------------------------------------------------------------

    def action_complete(self, direction: int = 1) -> None:
        text = self.value[: self.cursor_position]
        rest = self.value[self.cursor_position :]
        if self._cycle is not None and text == self._cycle_shown:
            stem, options, index = self._cycle
            index = (
                (index + direction) % len(options)
                if index >= 0
                else (0 if direction > 0 else len(options) - 1)
            )
            self._put(stem + options[index], rest)
            self._cycle = (stem, options, index)
            self.post_message(self.Choices(options, index))
            return
        line, choices = complete(text, self.names)
        if line != text:
            self._put(line, rest)
        self._cycle = (_stem(line), choices, -1) if len(choices) > 1 else None
        self._cycle_shown = line
        self.post_message(self.Choices(choices))

    def _put(self, line: str, rest: str) -> None:
        self.value = line + rest
        self.cursor_position = len(line)
        self._cycle_shown = line
