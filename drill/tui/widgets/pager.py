"""The pager: alerts by severity, open ones first, with who has acknowledged them. Noise pages are
pages too: telling them apart is the learner's job. Clicking a page's id puts `ack ID` on the
prompt."""

from __future__ import annotations

import re

from textual.content import Content

from drill.engine.snapshot import AlertView
from drill.tui.widgets.panel import Panel

SEVERITY = {
    "critical": ("CRIT", "bold white on red"),
    "warning": ("WARN", "black on yellow"),
    "info": ("INFO", "dim"),
}
ORDER = {"critical": 0, "warning": 1, "info": 2}
SAFE_ID = re.compile(r"^[A-Za-z0-9-]{1,12}$")


def open_pages(alerts: tuple[AlertView, ...]) -> list[AlertView]:
    return [a for a in alerts if not a.acked]


def _id(alert: AlertView) -> Content:
    label = f"{alert.id:<4}"
    if alert.acked or not SAFE_ID.match(alert.id):
        return Content.styled(label, "dim" if alert.acked else "bold")
    # An action link: the id is checked to be plain letters and digits before it goes in.
    return Content.from_markup(
        f"[bold underline @click=screen.fill('ack {alert.id}')]{alert.id}[/]"
    ) + " " * (len(label) - len(alert.id))


def pager_text(alerts: tuple[AlertView, ...], clock) -> Content:
    if not alerts:
        return Content.styled("Quiet. No pages yet.", "dim")
    ordered = sorted(
        alerts, key=lambda a: (a.acked, ORDER.get(a.severity, 3) if not a.acked else 0, -a.time)
    )
    lines = []
    for alert in ordered:
        tag, style = SEVERITY.get(alert.severity, (alert.severity[:4].upper(), ""))
        state = (
            Content.styled(" acked ", "dim") if alert.acked else Content.styled(" OPEN  ", "bold")
        )
        lines.append(
            Content.assemble(
                _id(alert),
                f"{clock(alert.time)} ",
                (f" {tag} ", style),
                state,
                (alert.text, "dim" if alert.acked else ""),
            )
        )
    return Content("\n").join(lines)


class PagerPanel(Panel):
    def __init__(self, *, id: str | None = "pager", classes: str | None = None) -> None:
        super().__init__("Pager", id=id, classes=classes)
        self.clock = str

    def show(self, alerts: tuple[AlertView, ...]) -> None:
        waiting = len(open_pages(alerts))
        self.border_title = f"Pager: {waiting} open" if waiting else "Pager"
        self.set_body(alerts, pager_text(alerts, self.clock))
