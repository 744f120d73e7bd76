"""Storage: volumes against capacity and quota as `df` reports them, and the learner's
checkpoints as `ckpt list` reports them (verified or not; never what is inside)."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from drill.engine.storage_view import StorageView
from drill.tui.widgets.panel import Panel
from drill.values.units import format_size

BAR = 16


def bar(fraction: float, width: int = BAR) -> Text:
    fraction = max(0.0, min(1.0, fraction))
    filled = round(fraction * width)
    colour = "red" if fraction >= 0.9 else "yellow" if fraction >= 0.75 else "green"
    text = Text("█" * filled, style=colour)
    text.append("░" * (width - filled), style="grey42")
    return text


class Meters:
    """A volume's used and quota lines, their bars as wide as the panel leaves room for (16 at
    most, 4 at least), so "quota" stays on its line in a narrow panel (it wrapped at 140x45)."""

    def __init__(self, volume, team: str) -> None:
        self.volume, self.team = volume, team

    def __rich_console__(self, console, options):
        volume = self.volume
        rows = [
            (
                "  used  ",
                volume.used / volume.capacity if volume.capacity else 0.0,
                f" {format_size(volume.used)} of {format_size(volume.capacity)}",
            ),
        ]
        if volume.quota is not None:
            rows.append(
                (
                    f"  {self.team:<4}  ",
                    volume.team_used / volume.quota if volume.quota else 1.0,
                    f" {format_size(volume.team_used)} of {format_size(volume.quota)} quota",
                )
            )
        widest = max(len(head) + len(tail) for head, _, tail in rows)
        width = max(4, min(BAR, options.max_width - widest))
        for head, fraction, tail in rows:
            line = Text(head)
            line.append_text(bar(fraction, width))
            line.append(tail)
            yield line


def storage_text(view: StorageView, clock) -> Group:
    parts: list[Text | Meters] = []
    if not view.volumes:
        parts.append(
            Text(
                "No storage volumes in this incident; checkpoints go to shared storage"
                " that every node reads.",
                style="grey62",
            )
        )
    for volume in view.volumes:
        mark = " (your checkpoints)" if volume.name == view.volume else ""
        parts.append(Text(f"{volume.name}{mark}  as of {clock(volume.as_of)}", style="bold"))
        parts.append(Meters(volume, view.team))
        if volume.quota is None and volume.team_used:
            parts.append(Text(f"  team {view.team}: {format_size(volume.team_used)} (no quota)"))
    latest = "none" if view.latest is None else f"step {view.latest}"
    parts.append(Text(f"Checkpoints of {view.job}", style="bold"))
    parts.append(Text(f"  latest -> {latest}", style="cyan"))
    if not view.checkpoints:
        parts.append(Text("  none yet", style="grey62"))
    for record in view.checkpoints:
        state = {
            None: ("unverified", "grey62"),
            True: ("verified", "green"),
            False: ("FAILED verify", "bold red"),
        }[record.verified]
        line = Text(f"  {record.step:>6}  {clock(record.time)}  ")
        line.append(state[0], style=state[1])
        parts.append(line)
    return Group(*parts)


class StoragePanel(Panel):
    def __init__(self, *, id: str | None = "storage", classes: str | None = None) -> None:
        super().__init__("Storage", id=id, classes=classes)
        self.clock = str

    def show(self, view: StorageView) -> None:
        self.set_body(view, storage_text(view, self.clock))
