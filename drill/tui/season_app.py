"""`drill season --tui`: the season screen on its own, in the game's stylesheet."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from drill.tui.screens.season import SeasonScreen


class SeasonApp(App[int]):
    CSS_PATH = Path(__file__).with_name("drill.tcss")
    TITLE = "3am Drill: season"

    def __init__(self, incident, seed: int, figures=None) -> None:
        super().__init__()
        self.incident = incident
        self.seed = seed
        self.figures = figures

    def on_mount(self) -> None:
        self.push_screen(SeasonScreen(self.incident, self.seed, self.figures))


def run_season_app(incident, seed: int, figures=None) -> int:
    return SeasonApp(incident, seed, figures).run() or 0
