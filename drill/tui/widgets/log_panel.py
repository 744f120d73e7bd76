"""The log: each action as typed, what it printed, and what the night did meanwhile. Lines wrap
at the panel's width (kept while the panel is folded away behind a tab on a small screen)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog


class LogPanel(RichLog):
    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("wrap", True)
        kwargs.setdefault("markup", False)
        kwargs.setdefault("max_lines", 3000)
        kwargs.setdefault("min_width", 20)
        super().__init__(**kwargs)
        self._width = 0

    def on_resize(self, event) -> None:
        width = self.scrollable_content_region.width
        if width > 0:
            self._width = width

    def add(self, text: Text) -> None:
        width = self.scrollable_content_region.width or self._width
        self.write(text, width=width if width >= 20 else None)
