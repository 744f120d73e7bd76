"""The season screen: weeks of the fleet's failures under the learner's standing policies.

Each key flips or moves one policy and plays the season again in a worker thread (a few seconds
of simulation), so the learner sees what that one policy is worth on the same failures' seed.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from drill.tui.bindings import bindings
from drill.tui.widgets.season_chart import SeasonChart


class SeasonScreen(Screen):
    BINDINGS = bindings("season")

    def __init__(self, incident, seed: int, figures=None, policies=None) -> None:
        super().__init__()
        from drill.season.figures import policies_with

        self.incident = incident
        self.seed = seed
        self.policies = policies or policies_with(incident)
        self.figures = figures

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="season"):
            yield Static(f"Season: {self.incident.title}", id="season-title", markup=False)
            yield Static("", id="season-policies", markup=False)
            yield Static("", id="season-summary", markup=False)
            with Vertical(id="season-body"):
                if self.figures is not None:
                    yield SeasonChart(self.figures, id="season-chart")
                yield Static("", id="season-account", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        if self.figures is None:
            self.replay()
        else:
            self.show(self.figures)

    def show(self, figures) -> None:
        from drill.season.text import hours, policy_line

        if not self.is_attached:
            return  # the learner went back while the season played
        self.figures = figures
        self.query_one("#season-policies", Static).update(
            f"Policies: {policy_line(figures)}.  d drain, h health check, r restarts,"
            " [ ] cadence, - + retention"
        )
        self.query_one("#season-summary", Static).update(
            f"{figures.length / 86400:g} days, seed {figures.seed}. Effective training"
            f" {hours(figures.effective)} of {hours(figures.length)}"
            f" ({figures.effective_share:.1%}); {len(figures.interruptions)} interruptions of"
            f" your job, {figures.strikes} on the fleet."
        )
        charts = self.query(SeasonChart)
        if charts:
            charts.first().show(figures)
        else:
            self.query_one("#season-body", Vertical).mount(
                SeasonChart(figures, id="season-chart"), before=0
            )
        from drill.values.units import format_size

        lines = [
            f"{name:<24}{hours(s):>10}  {s / figures.length:6.1%}" for name, s in figures.account()
        ]
        lines.append(
            f"Checkpoints: {figures.checkpoint_writes} of {format_size(figures.checkpoint_size)},"
            f" {format_size(figures.storage_written)} written, {format_size(figures.storage_peak)}"
            " held at most."
        )
        self.query_one("#season-account", Static).update("\n".join(lines))

    @work(thread=True, exclusive=True)
    def replay(self) -> None:
        from drill.season.figures import play_season

        self.app.call_from_thread(
            self.query_one("#season-summary", Static).update, "Playing the season..."
        )
        figures = play_season(self.incident, self.seed, self.policies)
        self.app.call_from_thread(self.show, figures)

    def _change(self, **update) -> None:
        self.policies = self.policies.model_copy(update=update)
        self.replay()

    def action_toggle(self, name: str) -> None:
        self._change(**{name: not getattr(self.policies, name)})

    def action_cadence(self, factor: float) -> None:
        every = self.figures.policies["checkpoint_every"] if self.figures else 1
        self._change(checkpoint_every=max(1, min(100000, round(every * factor))))

    def action_keep(self, delta: int) -> None:
        keep = self.figures.policies["keep"] if self.figures else 1
        self._change(keep=max(1, min(100, keep + delta)))

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit(0)
