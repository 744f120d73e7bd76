"""The log's search box: typing filters the log to the lines with that text; Enter keeps the
filter and gives the keys back to the prompt; Escape clears it."""

from __future__ import annotations

from textual.widgets import Input

from drill.tui.bindings import bindings


class LogSearch(Input):
    BINDINGS = bindings("search")

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("placeholder", "search the log; Enter keeps it, Escape clears it")
        super().__init__(**kwargs)

    def action_close_search(self) -> None:
        self.screen.close_search()
