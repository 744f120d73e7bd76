"""A season in the terminal: training kept per day as a bar each, and time lost by cause.

Each day's bar is the share of the day the job trained and kept; the cell under it names the
worst cause that day by its initial. Text only, so it reads the same in a browser tab.
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from drill.season.figures import SeasonFigures

BLOCKS = " ▁▂▃▄▅▆▇█"
INITIAL = {
    "gpu": "G",
    "gpu_memory": "M",
    "network": "N",
    "nic": "H",  # a host port
    "node": "D",
    "software": "S",
    "sdc": "C",  # corruption
}
STYLE = {
    "gpu": "bold red",
    "gpu_memory": "bold dark_orange",
    "network": "bold blue",
    "node": "bold magenta",
    "software": "bold green",
    "nic": "bold cyan",
    "sdc": "bold yellow",
}
DAY = 86400.0


def daily_kept(figures: SeasonFigures) -> list[float]:
    """The share of each day that was training kept, from the hourly curve."""
    out = []
    days = max(1, round(figures.length / DAY))
    by_time = dict(figures.curve)
    for day in range(days):
        start, end = day * DAY, min((day + 1) * DAY, figures.length)
        before = _at(by_time, figures.curve, start)
        after = _at(by_time, figures.curve, end)
        out.append(max(0.0, min(1.0, (after - before) / (end - start))))
    return out


def _at(by_time: dict, curve: list[tuple[float, float]], time: float) -> float:
    if time in by_time:
        return by_time[time]
    earlier = [v for t, v in curve if t <= time]
    return earlier[-1] if earlier else 0.0


def worst_cause_by_day(figures: SeasonFigures) -> list[str | None]:
    days = max(1, round(figures.length / DAY))
    lost: list[dict[str, float]] = [{} for _ in range(days)]
    for item in figures.interruptions:
        day = min(days - 1, int(item.time // DAY))
        lost[day][item.cause] = lost[day].get(item.cause, 0.0) + item.lost
    return [max(d, key=lambda c: (d[c], c)) if d else None for d in lost]


def render_chart(figures: SeasonFigures, rows: int = 6) -> Text:
    shares = daily_kept(figures)
    worst = worst_cause_by_day(figures)
    text = Text()
    for row in range(rows, 0, -1):
        label = f"{row / rows:>4.0%} " if row in (rows, rows // 2) else "     "
        text.append(label, style="dim")
        for share in shares:
            filled = share * rows - (row - 1)
            level = max(0, min(8, round(filled * 8)))
            text.append(BLOCKS[level] * 2, style="green")
        text.append("\n")
    text.append("     ")
    for cause in worst:
        if cause:
            text.append(f"{INITIAL[cause]} ", style=STYLE[cause])
        else:
            text.append("  ")
    text.append("\n     day 1" + " " * max(0, 2 * len(shares) - 12) + f"day {len(shares)}\n")
    text.append("     training kept each day; under a day, its costliest cause: ", style="dim")
    for cause, letter in INITIAL.items():
        text.append(f"{letter} {cause}  ", style=STYLE[cause])
    text.append("\n\n")
    longest = max([row.lost for row in figures.causes] + [figures.checkpoint_time, 1.0])
    bars = [(row.text, row.lost, STYLE[row.cause]) for row in figures.causes]
    bars.append(("checkpoint writes", figures.checkpoint_time, "bold white"))
    for name, seconds, style in bars:
        width = round(36 * seconds / longest)
        text.append(f"{name:<30}", style="dim")
        text.append("█" * width, style=style)
        text.append(f" {seconds / 3600:.1f} h ({seconds / figures.length:.1%})\n")
    return text


class SeasonChart(Widget):
    DEFAULT_CSS = "SeasonChart { height: auto; }"

    def __init__(self, figures: SeasonFigures, **kwargs) -> None:
        super().__init__(**kwargs)
        self.figures = figures

    def show(self, figures: SeasonFigures) -> None:
        self.figures = figures
        self.refresh(layout=True)

    def render(self) -> Text:
        return render_chart(self.figures)
