"""The prompt: an Input with shell habits. Up and Down walk the history, Tab completes verbs and
names. Every other key is the Input's own (ctrl+a, ctrl+e, ctrl+k, ctrl+u, ctrl+w, ...)."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input

from drill.tui.completion import Names, complete

HISTORY_MAX = 500


class CommandLine(Input):
    BINDINGS = [
        Binding("up", "history(-1)", "Previous command", show=False),
        Binding("down", "history(1)", "Next command", show=False),
        Binding("tab", "complete", "Complete", show=False),
    ]

    class Choices(Message):
        """Tab found more than one way to go on: the screen shows them."""

        def __init__(self, choices: list[str]) -> None:
            super().__init__()
            self.choices = choices

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("placeholder", "type an action, like status; Tab completes, F1 for help")
        super().__init__(**kwargs)
        self.names = Names()
        self.history: list[str] = []
        self._index: int | None = None
        self._draft = ""

    def remember(self, line: str) -> None:
        if line and (not self.history or self.history[-1] != line):
            self.history.append(line)
            del self.history[:-HISTORY_MAX]
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
            self.value = self.history[self._index]
        self.cursor_position = len(self.value)

    def action_complete(self) -> None:
        text = self.value[: self.cursor_position]
        line, choices = complete(text, self.names)
        if line != text:
            self.value = line + self.value[self.cursor_position :]
            self.cursor_position = len(line)
        self.post_message(self.Choices(choices))
