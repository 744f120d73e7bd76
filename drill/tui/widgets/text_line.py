"""A one-line widget that redraws without a layout pass: the header and the line under the
prompt change on every keystroke or tick, and a Static.update would reflow the whole screen."""

from __future__ import annotations

from textual.widget import Widget


class TextLine(Widget):
    DEFAULT_CSS = """
    TextLine { height: 1; }
    """

    def __init__(self, content="", **kwargs) -> None:
        super().__init__(**kwargs)
        self._content = content
        self._key: object = content

    def set(self, content, key: object = None) -> None:
        """Show new content; `key` (default: the content) says whether it changed."""
        key = content if key is None else key
        if key == self._key:
            return
        self._key = key
        self._content = content
        self.refresh()

    @property
    def content(self):
        return self._content

    def render(self):
        return self._content
