"""The night's header: the clock as a time of night, the speed, the incident and the course."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from drill.course import SHORT
from drill.tui.widgets.text_line import TextLine


class NightHeader(TextLine):
    plain = ""  # the same words as plain text, for tests

    def show(self, *, clock: str, pace: str, incident: str, pages: int, critical: bool) -> None:
        key = (clock, pace, incident, pages, critical)
        if key == self._key:
            return
        self.plain = f"{clock} {pace} {incident} {SHORT} {pages} open"
        grid = Table.grid(expand=True, padding=(0, 1))
        grid.add_column(no_wrap=True)
        grid.add_column(ratio=3, no_wrap=True, overflow="ellipsis")
        grid.add_column(ratio=2, no_wrap=True, overflow="ellipsis", justify="right")
        grid.add_column(no_wrap=True, justify="right")
        left = Text(f" {clock} ", style="bold reverse")
        left.append(
            f" {pace}", style="bold yellow" if pace.startswith(("PAUSED", "HELD")) else "bold"
        )
        page_style = "bold white on red" if critical else "bold" if pages else "grey62"
        right = Text(
            f" {pages} page{'s' if pages != 1 else ''} open " if pages else " no open pages ",
            style=page_style,
        )
        grid.add_row(left, Text(incident, style="bold"), Text(SHORT, style="grey62"), right)
        self.set(grid, key)
