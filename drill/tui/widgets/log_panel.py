"""The log: each action as typed, what it printed, and what the night did meanwhile. Lines wrap
at the panel's width (kept while the panel is folded away behind a tab on a small screen).

It keeps every line it was given, so it can show only the lines with a word in them (search)
and show everything again after.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from drill.text_safety import visible

MAX_LINES = 3000


class LogPanel(RichLog):
    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("wrap", True)
        kwargs.setdefault("markup", False)
        kwargs.setdefault("max_lines", MAX_LINES)
        kwargs.setdefault("min_width", 20)
        super().__init__(**kwargs)
        self._width = 0
        self.entries: list[Text] = []
        self.query_text = ""  # the search; empty shows every line

    def on_resize(self, event) -> None:
        width = self.scrollable_content_region.width
        if width > 0:
            wrapped_at, self._width = self._width, width
            if wrapped_at and width != wrapped_at:
                # Lines are wrapped when written: F5's full-screen log (and any resize) wraps
                # them again at the new width instead of keeping the narrow panel's breaks.
                self.search(self.query_text)
                self.scroll_end(animate=False)

    def add(self, text: Text) -> None:
        # A line can quote a save or the learner's own paste: its control characters become
        # visible signs of the same length, so the styles stay where they were.
        clean = visible(text.plain)
        if clean != text.plain:
            text = text.copy()
            text.plain = clean
        # One entry per line of output, so a search shows the lines that match, not every
        # line of an output that matches somewhere.
        for line in text.split("\n", allow_blank=True) if "\n" in text.plain else [text]:
            self.entries.append(line)
            if self._matches(line):
                self._write(self._marked(line))
        del self.entries[:-MAX_LINES]

    def search(self, query: str) -> int:
        """Show only the lines holding `query` (any case), marked; an empty query shows all.
        Returns how many lines match."""
        self.query_text = query.strip()
        self.clear()
        shown = [t for t in self.entries if self._matches(t)]
        for text in shown:
            self._write(self._marked(text))
        self._show_title(len(shown))
        return len(shown)

    @property
    def matches(self) -> int:
        return sum(1 for t in self.entries if self._matches(t))

    def _matches(self, text: Text) -> bool:
        return not self.query_text or self.query_text.lower() in text.plain.lower()

    def _marked(self, text: Text) -> Text:
        if not self.query_text:
            return text
        marked = text.copy()
        marked.highlight_words([self.query_text], style="reverse", case_sensitive=False)
        return marked

    def _show_title(self, count: int) -> None:
        if self.query_text:
            self.border_title = (
                f"Log: {count} line{'s' if count != 1 else ''} with {self.query_text!r}"
            )
        else:
            self.border_title = "Log"

    def _write(self, text: Text) -> None:
        width = self.scrollable_content_region.width or self._width
        self.write(text, width=width if width >= 20 else None)
