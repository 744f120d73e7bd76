"""The first screen: the shipped incidents in the suggested order, with the learner's best score
from the saves folder. Loads only YAML and the saves; torch stays unloaded until a night starts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Static

from drill.course import PHASE, SHORT
from drill.text_safety import visible
from drill.tui.bindings import bindings


@dataclass(frozen=True)
class Entry:
    loaded: object  # LoadedIncident
    best: float | None


def load_entries(saves_dir: Path | None) -> tuple[list[Entry], list[str]]:
    from drill.incident.errors import IncidentError
    from drill.incident.library import shipped_incident_files
    from drill.incident.loader import load_incident
    from drill.saves import best_scores

    best = best_scores(saves_dir)
    entries, problems = [], []
    for path in shipped_incident_files():
        try:
            loaded = load_incident(path)
        except IncidentError as exc:
            problems.append(str(exc).splitlines()[0])
            continue
        entries.append(Entry(loaded, best.get(loaded.incident.id)))
    entries.sort(key=lambda e: (e.loaded.incident.order, e.loaded.incident.id))
    return entries, problems


def next_entry(incident_id: str, saves_dir: Path | None) -> Entry | None:
    """The shipped incident after this one in the suggested order; the first after the last,
    or after an incident that is not shipped."""
    entries, _ = load_entries(saves_dir)
    if not entries:
        return None
    ids = [e.loaded.incident.id for e in entries]
    if incident_id not in ids:
        return entries[0]
    return entries[(ids.index(incident_id) + 1) % len(entries)]


class PickerScreen(Screen):
    BINDINGS = bindings("picker")

    def __init__(self, saves_dir: Path | None = None) -> None:
        super().__init__()
        self.entries, self.problems = load_entries(saves_dir)

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("3am Drill", id="picker-title")
            yield Static(
                f"{SHORT} ({PHASE}). Pick tonight's incident; the list is in the suggested order."
                " Enter or a double click plays it.",
                id="picker-intro",
                markup=False,
            )
            yield DataTable(id="incidents", cursor_type="row", zebra_stripes=True)
            if self.problems:
                yield Static(
                    visible("Not listed: " + "; ".join(self.problems)),
                    id="picker-problems",
                    markup=False,
                )
            with Horizontal(id="picker-buttons"):
                yield Button("Play", id="play", variant="primary")
                yield Button("Quit", id="quit")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("#", "Incident", "Title", "Level", "Time", "Your best")
        for number, entry in enumerate(self.entries, start=1):
            incident = entry.loaded.incident
            best = "-" if entry.best is None else f"{entry.best:.0f}"
            # Text cells: a DataTable reads a plain string as markup, and a title is the file's.
            table.add_row(
                str(number),
                Text(incident.id),
                Text(incident.title),
                Text(incident.difficulty),
                f"~{incident.estimated_minutes}m",
                best,
                key=incident.id,
            )
        table.focus()
        self.call_after_refresh(self.app.drawn, self)

    def _chosen(self):
        table = self.query_one(DataTable)
        if not self.entries:
            return None
        return self.entries[table.cursor_row].loaded

    def action_play(self) -> None:
        loaded = self._chosen()
        if loaded is not None:
            self.app.begin(loaded)

    def action_season(self) -> None:
        loaded = self._chosen()
        if loaded is None:
            return
        if loaded.incident.season is None:
            self.notify(f"{loaded.incident.id} has no season; try fleet-season", severity="warning")
            return
        from drill.tui.screens.season import SeasonScreen

        self.app.push_screen(SeasonScreen(loaded.incident, loaded.incident.seeds[0]))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_play()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "play":
            self.action_play()
        else:
            self.app.action_quit()
