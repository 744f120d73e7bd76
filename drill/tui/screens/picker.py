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
        self._fill(self.size.width)
        self.query_one(DataTable).focus()
        self.call_after_refresh(self.app.drawn, self)

    def on_resize(self, event) -> None:
        self._fill(event.size.width)

    def _rows(self) -> list[tuple[str, str, str, str, str, str]]:
        rows = []
        for number, entry in enumerate(self.entries, start=1):
            incident = entry.loaded.incident
            best = "-" if entry.best is None else f"{entry.best:.0f}"
            rows.append(
                (
                    str(number),
                    incident.id,
                    incident.title,
                    incident.difficulty,
                    f"~{incident.estimated_minutes}m",
                    best,
                )
            )
        return rows

    def _fill(self, width: int) -> None:
        """Every column but the title at its content's width; the title gets what is left, cut
        with an ellipsis, and goes when too little is left (at 80 columns it once pushed Level,
        Time and Your best off the screen)."""
        table = self.query_one(DataTable)
        rows = self._rows()
        heads = ("#", "Incident", "Title", "Level", "Time", "Your best")
        widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(heads)]
        # The picker's padding, the table's scrollbar, and a cell's padding on each side.
        room = width - 4 - 2 - 2 * len(heads) - (sum(widths) - widths[2])
        title_w = min(widths[2], room)
        shown = [i for i in range(len(heads)) if i != 2 or title_w >= 12]
        key = (tuple(shown), title_w)
        if getattr(self, "_layout", None) == key:
            return
        self._layout = key
        row = table.cursor_row
        table.clear(columns=True)
        for i in shown:
            table.add_column(heads[i], width=title_w if i == 2 else None)
        for cells, entry in zip(rows, self.entries, strict=True):
            # Text cells: a DataTable reads a plain string as markup, and a title is the file's.
            texts = [Text(cells[i]) for i in shown]
            if 2 in shown:
                texts[shown.index(2)].truncate(title_w, overflow="ellipsis")
            table.add_row(*texts, key=entry.loaded.incident.id)
        if rows:
            table.move_cursor(row=min(row, len(rows) - 1))

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
