"""The class report in the terminal: learners by night, heat-coloured by score, and one
learner's night on Enter (their timeline, the points per component, or why the save was refused).

The colours and cell words are the HTML page's (drill/classroom/heat.py), so the terminal and
the page read the same; every cell also carries its number and letter or a word, so it reads on
a monochrome terminal too. A learner's name, an action or a reason is someone else's text:
shown as plain Text through `visible`, never as markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from drill.classroom.class_figures import lost_most, same_act
from drill.classroom.heat import HEATS, Heat, heat_of
from drill.classroom.results import ClassResults, GradedNight
from drill.figures import title as component_title
from drill.text_safety import visible
from drill.tui.bindings import bindings
from drill.values.units import plural

NIGHT_MIN = 6  # " 87 B ": the narrowest night column; ten of them fit 80 columns
NIGHT_MAX = 20
LEARNER_MAX = 16
LOST_MOST_W = 18


def short_cell(entry: GradedNight | None) -> str:
    """A night cell in the terminal: `87 B`, `ref` (refused) or `-` (nothing handed in)."""
    heat = heat_of(entry)
    if heat.key == "missing":
        return "-"
    if heat.key == "refused":
        return "ref"
    assert entry is not None and entry.total is not None
    return f"{int(entry.total // 1)} {entry.grade or ''}".strip()


def heat_text(text: str, heat: Heat, width: int) -> Text:
    """The cell's words centred in its whole width, so the colour is one block per cell."""
    style = f"{heat.foreground} on {heat.background}"
    if heat.key == "missing":
        style = "dim"  # the page's white cell would glare on a dark terminal
    elif heat.key == "refused":
        style += " bold"
    return Text(visible(text).center(width), style=style, no_wrap=True)


# The legend's short words, to fit one line at 80 columns; the page's legend has the long ones.
LEGEND = {
    "A": "A 90+",
    "B": "B 80-89",
    "C": "C 65-79",
    "D": "D 50-64",
    "F": "F under 50",
    "refused": "ref refused",
    "missing": "- missing",
}


def legend() -> Text:
    out = Text()
    for heat in HEATS:
        if out:
            out.append(" ")
        label = LEGEND[heat.key]
        out.append_text(heat_text(label, heat, len(label) + 2))
    return out


class ClassReportScreen(Screen):
    """Learners down, nights across. Arrows move, Enter opens the learner's night."""

    BINDINGS = bindings("class")

    def __init__(self, results: ClassResults) -> None:
        super().__init__()
        self.results = results
        self._layout: tuple[int, bool, bool] | None = None

    def compose(self) -> ComposeResult:
        r = self.results
        cells = [heat_of(r.cell(learner, n)).key for learner in r.learners for n in r.nights]
        refused, missing = cells.count("refused"), cells.count("missing")
        yield Static(visible(f"{r.title}: class report"), id="class-title", markup=False)
        yield Static(
            f"{plural(len(r.learners), 'learner')}, {plural(len(r.nights), 'night')};"
            f" {refused} refused, {missing} missing. Enter opens a learner's night.",
            id="class-summary",
            markup=False,
        )
        yield Static(self._nights_line(), id="class-nights", markup=False)
        yield Static(legend(), id="class-legend")
        # The cursor keeps the cell's own colours and reverses them (drill.tcss): the theme's
        # cursor colour would hide which band the cell is in, and its text the number.
        yield DataTable(
            id="class-table",
            cursor_type="cell",
            cell_padding=0,
            fixed_columns=1,
            cursor_foreground_priority="renderable",
            cursor_background_priority="renderable",
        )
        yield Footer()

    def _nights_line(self) -> str:
        return visible(
            "Nights: "
            + ", ".join(f"{i} {night}" for i, night in enumerate(self.results.nights, start=1))
        )

    def on_mount(self) -> None:
        self._fill(self.size.width)
        table = self.query_one(DataTable)
        table.move_cursor(row=0, column=1 if self.results.nights else 0)
        table.focus()

    def on_resize(self, event) -> None:
        self._fill(event.size.width)

    def _widths(self, width: int) -> tuple[int, int, bool, bool]:
        """(learner column, night column, night names as headers?, lost-most column?)."""
        r = self.results
        learner_w = min(LEARNER_MAX, max([7, *(len(visible(n)) for n in r.learners)])) + 1
        count = max(1, len(r.nights))
        room = width - learner_w - 2  # the table's vertical scrollbar
        longest = max([NIGHT_MIN, *(len(n) + 2 for n in r.nights)])
        with_lost = room - LOST_MOST_W >= count * min(longest, NIGHT_MAX)
        if with_lost:
            room -= LOST_MOST_W
        night_w = max(NIGHT_MIN, min(NIGHT_MAX, longest, room // count))
        return learner_w, night_w, longest <= night_w, with_lost

    def _fill(self, width: int) -> None:
        learner_w, night_w, names, with_lost = self._widths(width)
        key = (night_w, names, with_lost)
        if key == self._layout:
            return
        self._layout = key
        table = self.query_one(DataTable)
        cursor = table.cursor_coordinate
        table.clear(columns=True)
        table.add_column(Text("Learner"), width=learner_w, key="learner")
        for index, night in enumerate(self.results.nights, start=1):
            label = visible(night) if names else str(index)
            table.add_column(Text(label.center(night_w), no_wrap=True), width=night_w, key=night)
        if with_lost:
            table.add_column(Text(" Lost most"), width=LOST_MOST_W, key="lost-most")
        for learner in self.results.learners:
            name = Text(visible(learner), no_wrap=True)
            name.truncate(learner_w - 1, overflow="ellipsis")
            cells: list[Text] = [name]
            for night in self.results.nights:
                entry = self.results.cell(learner, night)
                cells.append(heat_text(short_cell(entry), heat_of(entry), night_w))
            if with_lost:
                worst = lost_most(self.results.for_learner(learner))
                cells.append(
                    Text(" " + (component_title(worst.name) if worst else ""), no_wrap=True)
                )
            table.add_row(*cells)
        if self.results.learners:
            table.move_cursor(row=cursor.row, column=cursor.column)

    def _chosen(self) -> tuple[str, int] | None:
        """The learner and the night index under the cursor; the name column opens night 1."""
        if not self.results.learners or not self.results.nights:
            return None
        row, column = self.query_one(DataTable).cursor_coordinate
        night = min(max(column - 1, 0), len(self.results.nights) - 1)
        return self.results.learners[row], night

    def action_open(self) -> None:
        chosen = self._chosen()
        if chosen is not None:
            self.app.push_screen(LearnerNightScreen(self.results, *chosen))

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self.action_open()

    def action_leave(self) -> None:
        self.app.exit(0)


class LearnerNightScreen(Screen):
    """One learner's night: score and components, the first wrong act, the timeline; or the
    refusal's line, field and reason; or that nothing was handed in. Left and right move to the
    same learner's other nights, Escape goes back to the class."""

    BINDINGS = bindings("learner")

    def __init__(self, results: ClassResults, learner: str, night: int) -> None:
        super().__init__()
        self.results = results
        self.learner = learner
        self.night = night

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="learner"):
            yield Static("", id="learner-title", markup=False)
            yield Static("", id="learner-nights")
            yield Static("", id="learner-lost-most", markup=False)
            yield Static("", id="learner-score")
            yield Static("", id="learner-components")
            yield Static("", id="learner-timeline")
        yield Footer()

    def on_mount(self) -> None:
        self.show()
        self.query_one(VerticalScroll).focus()

    @property
    def entry(self) -> GradedNight | None:
        return self.results.cell(self.learner, self.results.nights[self.night])

    def show(self) -> None:
        r = self.results
        night = r.nights[self.night]
        self.query_one("#learner-title", Static).update(
            visible(f"{self.learner}: night {self.night + 1} of {len(r.nights)}, {night}")
        )
        self.query_one("#learner-nights", Static).update(self._nights())
        worst = lost_most(r.for_learner(self.learner))
        self.query_one("#learner-lost-most", Static).update(
            f"Lost the most over their nights: {component_title(worst.name)},"
            f" {worst.lost:.1f} points."
            if worst
            else "No points lost on a verified night."
        )
        entry = self.entry
        self.query_one("#learner-score", Static).update(self._score(entry))
        self.query_one("#learner-components", Static).update(self._components(entry))
        self.query_one("#learner-timeline", Static).update(self._timeline(entry))
        self.query_one(VerticalScroll).scroll_home(animate=False)

    def _nights(self) -> Text:
        out = Text("Their nights: ")
        for index, night in enumerate(self.results.nights):
            entry = self.results.cell(self.learner, night)
            if index:
                out.append("  ")
            out.append(f"{index + 1} ", style="bold" if index == self.night else "")
            words = short_cell(entry)
            out.append_text(heat_text(words, heat_of(entry), len(words) + 2))
        return out

    def _score(self, entry: GradedNight | None) -> Text:
        if entry is None:
            return Text("Nothing handed in for this night.", style="bold")
        if entry.refusal is not None:
            r = entry.refusal
            where = f"line {r.line}" if r.line > 0 else "the save could not be read"
            field = f", field {r.field}" if r.field else ""
            return Text(
                visible(
                    f"Refused: {entry.save_name} did not replay to what it says.\n"
                    f"First difference: {where}{field}.\n{r.reason}\n"
                    f"{plural(entry.attempts, 'save')} handed in; none graded for this night."
                ),
                style="bold",
            )
        out = Text()
        out.append(f"{entry.total:.1f} of 100, {entry.grade}", style="bold")
        out.append(
            visible(
                f". Kept from {plural(entry.attempts, 'save')} handed in: {entry.save_name},"
                f" seed {entry.seed}.\nFirst wrong act: {entry.first_wrong_act or 'none'}"
            )
        )
        return out

    def _components(self, entry: GradedNight | None) -> Text:
        if entry is None or not entry.verified or not entry.components:
            return Text("")
        most = entry.lost_most
        out = Text("\n").append("Points per component", style="bold")
        for c in entry.components:
            if c.weight <= 0:
                continue
            line = f"  {component_title(c.name):<20}{c.points:5.1f} of {c.weight:<4.0f} lost {c.lost:4.1f}"
            out.append("\n" + line + ("  (lost most)" if c.name == most else ""))
        return out

    def _timeline(self, entry: GradedNight | None) -> Text:
        if entry is None or not entry.verified:
            return Text("")
        out = Text("\n").append("Timeline", style="bold")
        if not entry.timeline:
            return out.append("\n  No lines in this night's timeline.")
        wrong = same_act(entry.first_wrong_act) if entry.first_wrong_act else None
        for line in entry.timeline:
            mark = wrong is not None and line.kind == "action" and same_act(line.text) == wrong
            if mark:
                wrong = None
            out.append("\n")
            text = visible(f"  {line.clock}  {line.kind:<7}{line.text}")
            out.append(
                text + ("  <- first wrong act" if mark else ""), style="reverse" if mark else ""
            )
        return out

    def action_night(self, step: int) -> None:
        self.night = (self.night + step) % len(self.results.nights)
        self.show()

    def action_back(self) -> None:
        self.app.pop_screen()
