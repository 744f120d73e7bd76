"""`drill course report --tui`: the class report screen on its own, in the game's stylesheet,
with the instructor's theme and keys from config.toml (drill/tui/config.py) when they name a
known theme and known binding ids."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from drill.classroom.results import ClassResults
from drill.tui.screens.class_report import ClassReportScreen


class ClassReportApp(App[int]):
    CSS_PATH = Path(__file__).with_name("drill.tcss")
    TITLE = "3am Drill: class report"

    def __init__(self, results: ClassResults, config_dir: Path | None = None) -> None:
        super().__init__()
        self.results = results
        self.config_dir = config_dir

    def on_mount(self) -> None:
        from drill.tui.bindings import BY_ID
        from drill.tui.config import load_config

        config = load_config(self.config_dir)
        if config.theme and config.theme in self.available_themes:
            self.theme = config.theme
        self.set_keymap({k: v for k, v in config.keymap.items() if k in BY_ID})
        self.push_screen(ClassReportScreen(self.results))


def run_class_report_app(results: ClassResults, config_dir: Path | None = None) -> int:
    return ClassReportApp(results, config_dir).run() or 0
