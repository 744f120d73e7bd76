"""The night's header: the clock as a time of night, the speed, the incident and the course.

Laid out for the width it has, in order of need: the clock, its state (PAUSED, HELD...) and the
open pages always show in full; the incident's title next, cut with an ellipsis only when even
alone it does not fit; the course's lesson name only when everything fits in full (it says
nothing about tonight, so it goes first). At 80 columns a held clock once pushed both the title
and the lesson name to "A GPU falls off t..." and "Edge FDE, lesson 1...".
"""

from __future__ import annotations

from rich.text import Text

from drill.course import SHORT
from drill.tui.widgets.text_line import TextLine

GAP = 3  # columns between the parts


class NightHeader(TextLine):
    plain = ""  # the words shown at the current width, as plain text, for tests

    def show(self, *, clock: str, pace: str, incident: str, pages: int, critical: bool) -> None:
        key = (clock, pace, incident, pages, critical)
        if key == self._key:
            return
        self._key = key
        self._fields = key
        self.refresh()

    def on_resize(self, event) -> None:
        self.refresh()

    def render(self):
        fields = getattr(self, "_fields", None)
        if fields is None:
            return ""
        text = header_text(*fields, width=self.size.width)
        self.plain = text.plain
        return text


def header_text(
    clock: str, pace: str, incident: str, pages: int, critical: bool, *, width: int
) -> Text:
    left = Text(f" {clock} ", style="bold reverse")
    left.append(f" {pace}", style="bold yellow" if pace.startswith(("PAUSED", "HELD")) else "bold")
    page_style = "bold white on red" if critical else "bold" if pages else "grey62"
    right = Text(
        f" {pages} page{'s' if pages != 1 else ''} open " if pages else " no open pages ",
        style=page_style,
    )
    room = width - left.cell_len - right.cell_len - GAP - 1
    middle = Text(incident, style="bold")
    if middle.cell_len + GAP + len(SHORT) <= room:
        middle.append(" " * (room - middle.cell_len - len(SHORT)))
        middle.append(SHORT, style="grey62")
    elif room >= 2:
        middle.truncate(room, overflow="ellipsis")
        middle.pad_right(room - middle.cell_len)
    else:
        middle = Text("")
    line = Text.assemble(left, " " * GAP if room >= 2 else " ", middle, " ", right)
    line.truncate(max(0, width), overflow="ellipsis")
    return line
