"""A bordered, scrolling panel whose body is one Static: cheap to redraw from a snapshot."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static


class Panel(VerticalScroll, can_focus=False):
    def __init__(self, title: str, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=f"panel {classes or ''}".strip())
        self.border_title = title
        self._last: object = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="panel-body", markup=False)

    def set_body(self, key: object, renderable) -> None:
        """Redraw only when the data behind it changed."""
        if key == self._last:
            return
        self._last = key
        self.query_one(".panel-body", Static).update(renderable)
