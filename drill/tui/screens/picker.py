"""The first screen: the shipped incidents in the suggested order, with the learner's best score
from the saves folder. Torch stays unloaded until a night starts.

The first frame is drawn from each file's header (drill/incident/header.py): the full load's
pydantic models and fault kinds cost more to import than the rest of the screen. Right after
that frame a worker loads every file fully, as before; a file that fails leaves the list and
joins the "Not listed" line with the loader's own first line, and Play uses the loaded incident
(or loads it then, if the learner was quicker than the check).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Static

from drill.course import PHASE, SHORT
from drill.incident.errors import IncidentError
from drill.incident.header import Header, read_header
from drill.text_safety import visible
from drill.tui.bindings import bindings


@dataclass
class Entry:
    header: Header
    best: float | None
    loaded: object | None = None  # the LoadedIncident, once the full load has run


def load_entries(
    saves_dir: Path | None, files: list[Path] | None = None, *, ordered: bool = False
) -> tuple[list[Entry], list[str]]:
    """Every incident fully loaded: the list the picker settles on."""
    from drill.incident.loader import load_incident

    entries, problems = [], []
    best = _best(saves_dir)
    for path in _files(files):
        try:
            loaded = load_incident(path)
        except IncidentError as exc:
            problems.append(_first_line(exc))
            continue
        entries.append(Entry(Header.of(loaded), best.get(loaded.incident.id), loaded))
    return (entries if ordered else _sorted(entries)), problems


def header_entries(
    saves_dir: Path | None, files: list[Path] | None = None, *, ordered: bool = False
) -> tuple[list[Entry], list[str]]:
    """The list for the first frame, from the headers; a file whose header does not read is
    loaded fully at once, so its problem is the loader's, as in `load_entries`."""
    entries, problems = [], []
    best = _best(saves_dir)
    for path in _files(files):
        header = read_header(path)
        loaded = None
        if header is None:
            from drill.incident.loader import load_incident

            try:
                loaded = load_incident(path)
            except IncidentError as exc:
                problems.append(_first_line(exc))
                continue
            header = Header.of(loaded)
        entries.append(Entry(header, best.get(header.id), loaded))
    return (entries if ordered else _sorted(entries)), problems


def check_entry(entry: Entry) -> str | None:
    """Load the entry fully (once); the loader's first line when the file does not load."""
    if entry.loaded is None:
        from drill.incident.loader import load_incident

        try:
            entry.loaded = load_incident(entry.header.path)
        except IncidentError as exc:
            return _first_line(exc)
    return None


def _files(files: list[Path] | None) -> list[Path]:
    if files is not None:
        return list(files)
    from drill.incident.library import shipped_incident_files

    return shipped_incident_files()


def _best(saves_dir: Path | None) -> dict[str, float]:
    from drill.saves_dir import saves_dir as default_saves_dir

    folder = saves_dir or default_saves_dir()
    if not any(folder.glob("*.jsonl")):  # drill.saves costs its import: none to read
        return {}
    from drill.saves import best_scores

    return best_scores(folder)


def _sorted(entries: list[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: (e.header.order, e.header.id))


def _first_line(exc: IncidentError) -> str:
    return str(exc).splitlines()[0]


def next_entry(incident_id: str, saves_dir: Path | None) -> Entry | None:
    """The shipped incident after this one in the suggested order; the first after the last,
    or after an incident that is not shipped."""
    entries, _ = load_entries(saves_dir)
    if not entries:
        return None
    ids = [e.header.id for e in entries]
    if incident_id not in ids:
        return entries[0]
    return entries[(ids.index(incident_id) + 1) % len(entries)]


class PickerScreen(Screen):
    BINDINGS = bindings("picker")

    def __init__(
        self,
        saves_dir: Path | None = None,
        files: list[Path] | None = None,
        *,
        course_title: str | None = None,
    ) -> None:
        super().__init__()
        # `files`: the incident files to list instead of the shipped ones (a course's nights,
        # in the course's order, or tests').
        self.course_title = course_title
        self.entries, self.problems = header_entries(
            saves_dir, files, ordered=course_title is not None
        )
        self.checked = False  # every entry fully loaded (or moved to the problems)

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("3am Drill", id="picker-title")
            yield Static(self._intro(), id="picker-intro", markup=False)
            yield DataTable(id="incidents", cursor_type="row", zebra_stripes=True)
            problems = Static(self._problems_text(), id="picker-problems", markup=False)
            problems.display = bool(self.problems)  # the full check may add some later
            yield problems
            with Horizontal(id="picker-buttons"):
                yield Button("Play", id="play", variant="primary")
                yield Button("Quit", id="quit")
        yield Footer()

    def _intro(self) -> str:
        if self.course_title is not None:
            return visible(
                f"{self.course_title}: the course's nights, in its order. Enter or a double click"
                " plays one; every night you play is saved in the course's pack."
            )
        return (
            f"{SHORT} ({PHASE}). Pick tonight's incident; the list is in the suggested order."
            " Enter or a double click plays it."
        )

    def on_mount(self) -> None:
        self._fill(self.size.width)
        self.query_one(DataTable).focus()
        self.call_after_refresh(self._drawn)

    def on_resize(self, event) -> None:
        self._fill(event.size.width)

    def _rows(self) -> list[tuple[str, str, str, str, str, str]]:
        rows = []
        for number, entry in enumerate(self.entries, start=1):
            header = entry.header
            best = "-" if entry.best is None else f"{entry.best:.0f}"
            rows.append(
                (
                    str(number),
                    header.id,
                    header.title,
                    header.difficulty,
                    f"~{header.estimated_minutes}m",
                    best,
                )
            )
        return rows

    def _fill(self, width: int, *, again: bool = False) -> None:
        """Every column but the title at its content's width; the title gets what is left, cut
        with an ellipsis, and goes when too little is left (at 80 columns it once pushed Level,
        Time and Your best off the screen). `again`: the rows changed, so fill even when the
        widths did not."""
        table = self.query_one(DataTable)
        rows = self._rows()
        heads = ("#", "Incident", "Title", "Level", "Time", "Your best")
        widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(heads)]
        # The picker's padding, the table's scrollbar, and a cell's padding on each side.
        room = width - 4 - 2 - 2 * len(heads) - (sum(widths) - widths[2])
        title_w = min(widths[2], room)
        shown = [i for i in range(len(heads)) if i != 2 or title_w >= 12]
        key = (tuple(shown), title_w)
        if getattr(self, "_layout", None) == key and not again:
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
            table.add_row(*texts, key=entry.header.id)
        if rows:
            table.move_cursor(row=min(row, len(rows) - 1))

    def _problems_text(self) -> str:
        return visible("Not listed: " + "; ".join(self.problems))

    def _drawn(self) -> None:
        self.app.drawn(self)
        self.run_worker(self._check_all, thread=True, exit_on_error=False)

    def _check_all(self) -> None:
        """Off the event loop, after the first frame: the full load of every listed file."""
        failed = [(entry, why) for entry in list(self.entries) if (why := check_entry(entry))]
        self.app.call_from_thread(self._checked, failed)

    def _checked(self, failed: list[tuple[Entry, str]]) -> None:
        self.checked = True
        if not failed or not self.is_attached:
            return  # nothing to move, or the learner left the picker before the check ended
        self.entries = [e for e in self.entries if all(e is not f for f, _ in failed)]
        self.problems += [why for _, why in failed]
        self._fill(self.size.width, again=True)  # renumbered, as if the file had never been listed
        problems = self.query_one("#picker-problems", Static)
        problems.update(self._problems_text())
        problems.display = True

    def _chosen(self):
        table = self.query_one(DataTable)
        if not self.entries:
            return None
        entry = self.entries[table.cursor_row]
        why = check_entry(entry)  # usually done already by the worker
        if why is not None:
            self.notify(visible(why), title="Not listed", severity="error")
            return None
        return entry.loaded

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
