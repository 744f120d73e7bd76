"""The replica's loss curve as it trains, with the undisturbed baseline faintly behind it.

Drawn in braille cells (2 x 4 dots per character) so a small panel still shows the shape: where
the live curve jumps back after a restart, and whether it rejoins the baseline.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widget import Widget

BRAILLE = 0x2800
# Dot bits by (x, y) inside a cell: x in 0..1, y in 0..3 from the top.
DOTS = {
    (0, 0): 0x01,
    (0, 1): 0x02,
    (0, 2): 0x04,
    (1, 0): 0x08,
    (1, 1): 0x10,
    (1, 2): 0x20,
    (0, 3): 0x40,
    (1, 3): 0x80,
}
LIVE = "bold bright_cyan"
BASE = "grey42"
AXIS = 7  # columns for the y labels


def _canvas(
    points: list[tuple[float, float]], width: int, height: int, x_max: float, lo: float, hi: float
):
    cells: dict[tuple[int, int], int] = {}
    span = (hi - lo) or 1.0
    for x, y in points:
        px = min(width * 2 - 1, max(0, int(x / x_max * (width * 2 - 1)))) if x_max else 0
        py = min(height * 4 - 1, max(0, int((hi - y) / span * (height * 4 - 1))))
        key = (px // 2, py // 4)
        cells[key] = cells.get(key, 0) | DOTS[(px % 2, py % 4)]
    return cells


def plot(
    live: list[tuple[int, float]],
    baseline: list[tuple[int, float]],
    width: int,
    height: int,
    x_max: int,
) -> list[Text]:
    """Rows of text: y labels, then the two curves; live wins where they share a cell."""
    width = max(4, width - AXIS)
    height = max(2, height)
    values = [y for _, y in live] + [y for _, y in baseline]
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    base = _canvas(baseline, width, height, x_max, lo, hi)
    mine = _canvas(live, width, height, x_max, lo, hi)
    rows = []
    for row in range(height):
        label = _axis(hi) if row == 0 else _axis(lo) if row == height - 1 else " " * AXIS
        text = Text(label, style="grey50")
        for col in range(width):
            if (col, row) in mine:
                text.append(chr(BRAILLE | mine[(col, row)] | base.get((col, row), 0)), style=LIVE)
            elif (col, row) in base:
                text.append(chr(BRAILLE | base[(col, row)]), style=BASE)
            else:
                text.append(" ")
        rows.append(text)
    return rows


def _axis(value: float) -> str:
    """A y label in AXIS columns; below 0.01 in powers of ten, not 0.00."""
    shown = f"{value:.2f}" if value == 0 or abs(value) >= 0.01 else f"{value:.0e}"
    return f"{shown:>{AXIS - 1}} "


def loss_text(loss: float) -> str:
    """Three decimals, or three significant figures below 0.1: a small model's loss of 0.0004
    must not read as 0.000 beside a baseline that reads the same."""
    if loss == 0 or abs(loss) >= 0.1:
        return f"{loss:.3f}"
    return f"{loss:.3g}"


def step_rate(history: list[tuple[float, int]]) -> float | None:
    """Steps per minute of night over the recent frames."""
    if len(history) < 2:
        return None
    (t0, s0), (t1, s1) = history[0], history[-1]
    if t1 - t0 < 1:
        return None
    return (s1 - s0) / (t1 - t0) * 60.0


class LossChart(Widget):
    DEFAULT_CSS = """
    LossChart { height: 1fr; min-height: 4; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.losses: tuple[tuple[int, float], ...] = ()
        self.baseline: tuple[float, ...] = ()
        self.steps = 0
        self.step = 0
        self.rate: float | None = None
        self.state = "running"  # the job's state; the summary names any other
        self.replica = True
        self._history: list[tuple[float, int]] = []

    def update_data(
        self,
        *,
        losses: tuple[tuple[int, float], ...] | None = None,
        baseline: tuple[float, ...] | None = None,
        steps: int | None = None,
        step: int | None = None,
        time: float | None = None,
        replica: bool | None = None,
        state: str | None = None,
    ) -> None:
        if losses is not None:
            self.losses = losses
        if baseline is not None:
            self.baseline = baseline
        if steps is not None:
            self.steps = steps
        if replica is not None:
            self.replica = replica
        if step is not None and time is not None:
            if self._history and (step < self._history[-1][1] or time < self._history[-1][0]):
                self._history.clear()  # a restart went back to a checkpoint
            self._history.append((time, step))
            self._history = [h for h in self._history if h[0] >= time - 600.0]
            self.step = step
            self.rate = step_rate(self._history)
        if state is not None:
            self.state = state
            if state != "running":  # a stopped job has no rate: say what it is instead
                self._history.clear()
                self.rate = None
        self.refresh()

    def summary(self) -> Text:
        text = Text(f"step {self.step}/{self.steps}", style="bold")
        if self.rate is not None:
            text.append(f"  {self.rate:.1f} steps/min")
        elif self.state != "running":
            text.append(f"  {self.state}", style="yellow")
        if self.losses:
            step, loss = self.losses[-1]
            text.append(f"  loss {loss_text(loss)}", style=LIVE)
            if 0 < step <= len(self.baseline):
                text.append(f"  baseline {loss_text(self.baseline[step - 1])}", style=BASE)
        return text

    def render(self):
        width, height = self.content_region.width or 40, self.content_region.height or 6
        head = self.summary()
        if not self.replica:
            note = Text(
                "No replica in this run (backend sim): steps are counted, not trained, so there is"
                " no loss to draw.",
                style="grey62",
            )
            return Group(head, note)
        if not self.losses and not self.baseline:
            return Group(head, Text("No loss yet: the job has not trained a step.", style="grey62"))
        baseline = [(i + 1, loss) for i, loss in enumerate(self.baseline)]
        live = list(self.losses)
        x_max = max(self.steps, max((s for s, _ in live), default=0), len(baseline), 1)
        rows = plot(live, baseline, width, max(2, height - 2), x_max)
        legend = Text("  ")
        legend.append("⣿ live", style=LIVE)
        legend.append("  ")
        legend.append("⣿ undisturbed baseline", style=BASE)
        return Group(head, *rows, legend)
