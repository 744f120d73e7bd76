"""The debrief: the score line, the opinion question under it (its answer box has the keys
from the start and stays in view), the score's figures against par and doing nothing, the
takeaways, the loss curve against the baseline, the learner's night (and the reference's, once the learner asks for it: it would
spoil a replay), and the learner's runbook. Texts go into the save.

Scoring and the exports take seconds to tens of seconds: they run in thread workers that say
how far they have got and stop at their next step when the learner leaves.
"""

from __future__ import annotations

import time
from itertools import zip_longest
from pathlib import Path

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Grid, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Label, ProgressBar, Static, TextArea
from textual.worker import get_current_worker

from drill.engine.runbook_sections import RUNBOOK_SECTIONS
from drill.figures import FLOOR_NAME, points, rows
from drill.text_safety import visible
from drill.tui.bindings import bindings
from drill.tui.messages import Debrief, Progress
from drill.tui.widgets.loss_chart import LossChart

# What each export says as it goes (the report's come from drill.report.write_report).
EXPORT_STEPS = {
    "runbook": ("replaying the night from the save", "written"),
    "report": (
        "replaying the night from the save",
        "reading the reference solution's night",
        "writing the page",
    ),
}
BUTTONS = (
    ("save", "Save answers", "Write your answers into the save (ctrl+s)"),
    ("export-runbook", "Export runbook", "Your runbook as Markdown, beside the save"),
    ("export-report", "Export report", "The night as one HTML page, beside the save"),
    ("replay", "Replay", "The same incident and seed again, in a new save"),
    ("next", "Next incident", "The next incident in the suggested order"),
    ("incidents", "Incidents", "Back to the list of incidents"),
    ("quit", "Quit", "Leave; the night is saved"),
)


class Cancelled(Exception):
    """The learner left while an export was running."""


class ExportDone(Message):
    def __init__(self, text: str, *, error: bool = False) -> None:
        super().__init__()
        self.text = text
        self.error = error


def score_line(score) -> str:
    return f"Score {score.total}/100, grade {score.grade}"


def components_text(score) -> Group:
    """Every component the Score has, whatever they are: a table of points and the three
    figures, then why, one line each."""
    parts = rows(score)
    table = Table(expand=True, box=None, pad_edge=False, header_style="bold", padding=(0, 1))
    table.add_column("Component", no_wrap=True, style="bold")
    table.add_column("Points", no_wrap=True, justify="right")
    table.add_column("Yours", ratio=1, overflow="fold")
    table.add_column("Reference", ratio=1, overflow="fold")
    table.add_column(FLOOR_NAME.capitalize(), ratio=1, overflow="fold")
    table.add_column("Basis", ratio=1, overflow="fold")  # tonight, or expected over N nights
    for row in parts:
        style = (
            "bold green"
            if row.points >= row.weight
            else "bold yellow"
            if row.points
            else "bold red"
        )
        table.add_row(
            row.title, Text(points(row), style=style), row.mine, row.par, row.floor, row.basis
        )
    why = Text()
    for row in parts:
        why.append(f"{row.title}: ", style="bold")
        why.append(f"{row.why}\n", style="grey70")
    why.append(
        "The reference is what the incident's reference solution got on this same night and seed;"
        f" {FLOOR_NAME} is what the night did with nobody acting. Points scale between them."
        " A figure expected over N nights is the mean over tonight and seeded nights where only"
        " what nobody on call could know (other teams' jobs, random failures) was drawn again.",
        style="grey50",
    )
    return Group(table, Text(""), why)


def _cell(entry: dict | None) -> Text:
    if entry is None:
        return Text("")
    cell = Text(f"{entry['clock']} ", style="grey62")
    cell.append(
        visible(entry["text"]), style="" if entry.get("accepted", True) else "strike grey50"
    )
    if not entry.get("accepted", True):
        cell.append(" (not done)", style="grey50")
    return cell


def timeline_table(mine: list[dict], reference: list[dict] | None) -> Table:
    """The learner's actions; with `reference`, the reference solution's beside them."""
    table = Table(expand=True, box=None, pad_edge=False, header_style="bold")
    table.add_column("Your night", ratio=1, overflow="fold")
    if reference is not None:
        table.add_column("The reference solution", ratio=1, overflow="fold")
        for left, right in zip_longest(mine, reference):
            table.add_row(_cell(left), _cell(right))
        if not mine and not reference:
            table.add_row(Text("no actions", style="grey62"), Text("no actions", style="grey62"))
    else:
        table.show_header = False  # the section's heading says whose night it is
        for entry in mine:
            table.add_row(_cell(entry))
        if not mine:
            table.add_row(Text("no actions", style="grey62"))
    return table


class DebriefScreen(Screen):
    BINDINGS = bindings("debrief")

    def __init__(self, driver) -> None:
        super().__init__()
        self.driver = driver
        self.incident = driver.spec.incident
        self.result: Debrief | None = None
        self.reference_shown = False
        self.progress: Progress | None = None
        self._started = time.monotonic()
        self._export_started = self._started

    def compose(self) -> ComposeResult:
        incident = self.incident
        saved = self.driver.saved_texts
        with VerticalScroll(id="debrief"):
            yield Static(Text(f"Debrief: {incident.title}", style="bold"), id="debrief-title")
            yield Static(
                "Scoring the night: the rest of it plays out, then the engine plays the reference"
                " solution and an empty night on the same seed...",
                id="score-total",
                markup=False,
            )
            yield ProgressBar(total=100, show_eta=False, id="score-progress")
            # The opinion box right under the score line: it has the keys from the start, and
            # the score's table arriving below it never pushes it off-screen (80x24 included).
            if incident.debrief.opinion:
                yield Static(Text("Opinion checkpoint", style="bold"), classes="section")
                yield Static(self._opinion(), markup=False, classes="question", id="question")
                yield TextArea(
                    visible(saved.get("opinion", "")),
                    id="opinion",
                    classes="answer",
                    soft_wrap=True,
                )
            yield Static("", id="components")
            yield Static(Text("Takeaways", style="bold"), classes="section")
            yield Static(self._takeaways(), id="takeaways", markup=False)
            yield Static(Text("Checkpoint cadence", style="bold"), classes="section")
            yield Static("\n".join(self._cadence()), id="cadence", markup=False)
            yield Static(Text("Loss against the undisturbed run", style="bold"), classes="section")
            yield LossChart(id="debrief-chart")
            yield Static(Text("Your night", style="bold"), classes="section", id="timeline-title")
            yield Static("", id="timeline")
            yield Button(
                "Show the reference solution beside it",
                id="show-reference",
                compact=True,
                disabled=True,
                tooltip="What the incident's author did on this night. It spoils a replay.",
            )
            yield Static(Text("Your runbook", style="bold"), classes="section")
            yield Static(
                "Write it in your own words: what you would do next time. It goes into your save.",
                classes="question",
                markup=False,
            )
            for section in RUNBOOK_SECTIONS:
                yield Label(f"{section.short}: {section.prompt}", classes="runbook-label")
                yield TextArea(
                    visible(saved.get(section.save_key, "")),
                    id=section.save_key.replace(".", "-"),
                    classes="answer",
                    soft_wrap=True,
                )
            with Grid(id="debrief-buttons"):
                for button_id, label, tooltip in BUTTONS:
                    variant = "primary" if button_id == "save" else "default"
                    yield Button(label, variant, id=button_id, compact=True, tooltip=tooltip)
            yield Static("", id="debrief-status", markup=False)
            yield ProgressBar(total=100, show_eta=False, id="export-progress")
        yield Footer()

    def _cadence(self) -> list[str]:
        """Young's interval for this job beside the cadence it ran, with what the simulator
        measured against the formula (drill/season/advice.py)."""
        from drill.season.advice import cadence_lines

        session = getattr(self.driver, "session", None)
        job = session.drill.learner_job if session is not None else None
        every = job.policy.every if job is not None else self.incident.learner_job.checkpoint.every
        return cadence_lines(self.incident, every)

    def on_mount(self) -> None:
        chart = self.query_one("#debrief-chart", LossChart)
        replica = self.driver.spec.backend != "sim"
        chart.update_data(steps=self.incident.learner_job.steps, replica=replica)
        chart.set_class(not replica, "-no-replica")
        frame = self.driver.frame
        if frame is not None:  # the night as it stood, while the rest of it is scored
            mine = next((j for j in frame.snapshot.jobs if j.yours), None)
            chart.update_data(
                losses=frame.snapshot.losses,
                baseline=self.driver.baseline,
                step=mine.step if mine else 0,
                time=frame.snapshot.time,
            )
        for area in self.query(TextArea):
            area.cursor_blink = self.app.cursor_blink_enabled
        self.query_one("#export-progress", ProgressBar).display = False
        self._lay_out_buttons(self.size.width)
        # The opinion box has the keys: what the learner types first is kept. Without an opinion
        # question no box takes them at the start: the runbook's boxes are far below the score,
        # and typing into one out of sight is worse than Tab to reach it.
        if self.query("#opinion"):
            self.query_one("#opinion", TextArea).focus()
            self.call_after_refresh(self._keys_in_view)
        self.set_interval(0.5, self._tick)

    def on_resize(self, event) -> None:
        self._lay_out_buttons(event.size.width)

    def _lay_out_buttons(self, width: int) -> None:
        """One row when they fit; else rows that differ by one button at most, so none sits
        alone below the others."""
        grid = self.query_one("#debrief-buttons", Grid)
        widths = [len(label) + 2 for _, label, _ in BUTTONS]
        room = max(20, width - 8)
        count = len(BUTTONS)
        if sum(widths) + count <= room:
            grid.styles.grid_size_columns = count
            grid.styles.grid_columns = " ".join(str(w) for w in widths)
            return
        fit = max(1, room // (max(widths) + 1))
        rows = -(-count // fit)
        while True:
            columns = -(-count // rows)
            last = count - (rows - 1) * columns
            if columns <= fit and last >= columns - 1:
                break
            rows += 1
        grid.styles.grid_size_columns = columns
        grid.styles.grid_columns = "1fr"

    # -- scoring ----------------------------------------------------------------------------

    def show_progress(self, progress: Progress) -> None:
        if progress.task != "score" or self.result is not None:
            return
        self.progress = progress
        bar = self.query_one("#score-progress", ProgressBar)
        overall = progress.overall
        bar.update(total=None if overall is None else 100, progress=100 * (overall or 0.0))
        self._tick()

    def _tick(self) -> None:
        """The scoring line counts the seconds, so a long step is visibly still working."""
        if self.result is not None or self.progress is None:
            return
        elapsed = time.monotonic() - self._started
        step = f"step {self.progress.stage + 1} of {self.progress.stages}"
        self.query_one("#score-total", Static).update(
            Text(f"Scoring, {step}: {self.progress.text}... ({elapsed:.0f}s)", style="bold")
        )

    def _world(self):
        session = getattr(self.driver, "session", None)
        return session.drill.world if session is not None else None

    def _takeaways(self) -> str:
        """The author's takeaways true of this night, with `{fault.ID.FIELD}` as this night's
        faults chose. Before the night is known, only those true of every night."""
        from drill.engine import shown_text

        world = self._world()
        if world is not None:
            texts = shown_text.takeaways(world)
        else:
            texts = [t for t in self.incident.debrief.takeaways if isinstance(t, str)]
        return "\n".join(f"- {t}" for t in texts) or "No takeaways in this incident."

    def _opinion(self) -> str:
        from drill.engine import shown_text

        world = self._world()
        return shown_text.opinion(world) if world else self.incident.debrief.opinion

    def show(self, result: Debrief) -> None:
        self.result = result
        # The rest of the night has played out: faults that fired in it fill their names now.
        self.query_one("#takeaways", Static).update(self._takeaways())
        if self.incident.debrief.opinion:
            self.query_one("#question", Static).update(self._opinion())
        self.query_one("#score-progress", ProgressBar).display = False
        self.query_one("#score-total", Static).update(Text(score_line(result.score), style="bold"))
        self.query_one("#components", Static).update(components_text(result.score))
        chart = self.query_one("#debrief-chart", LossChart)
        chart.update_data(
            losses=result.losses, baseline=result.baseline, step=result.final_step, time=0.0
        )
        self._show_timeline()
        self.query_one("#show-reference", Button).disabled = False
        self.call_after_refresh(self._keys_in_view)

    def _keys_in_view(self) -> None:
        """An answer box with the keys is on screen, so nothing the learner types goes in
        unseen. It comes into view (the least scroll that shows it) rather than lose the keys."""
        area = self.focused
        if not isinstance(area, TextArea):
            return
        scroll = self.query_one("#debrief", VerticalScroll)
        if not scroll.region.contains_region(area.region):
            area.scroll_visible(animate=False, immediate=True)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        # Typing after PageUp/PageDown moved the box away: the page comes back to it.
        if event.text_area is self.focused:
            self._keys_in_view()

    def action_page(self, direction: int) -> None:
        scroll = self.query_one("#debrief", VerticalScroll)
        if direction < 0:
            scroll.scroll_page_up(animate=False)
        else:
            scroll.scroll_page_down(animate=False)

    def _show_timeline(self) -> None:
        result = self.result
        if result is None:
            return
        reference = result.reference if self.reference_shown else None
        self.query_one("#timeline", Static).update(timeline_table(result.mine, reference))
        title = "Your night beside the reference" if self.reference_shown else "Your night"
        self.query_one("#timeline-title", Static).update(Text(title, style="bold"))

    def action_show_reference(self) -> None:
        self.reference_shown = not self.reference_shown
        self.query_one("#show-reference", Button).label = (
            "Hide the reference solution"
            if self.reference_shown
            else "Show the reference solution beside it"
        )
        self._show_timeline()

    def engine_failed(self, text: str) -> None:
        last = text.strip().splitlines()[-1] if text.strip() else "unknown error"
        self.query_one("#score-progress", ProgressBar).display = False
        self.query_one("#score-total", Static).update(
            Text(visible(f"Scoring failed: {last}"), style="bold red")
        )

    # -- the learner's words ----------------------------------------------------------------

    def texts(self) -> dict[str, str]:
        texts = {}
        if self.query("#opinion"):
            texts["opinion"] = self.query_one("#opinion", TextArea).text
        for key in (s.save_key for s in RUNBOOK_SECTIONS):
            texts[key] = self.query_one(f"#{key.replace('.', '-')}", TextArea).text
        return {k: v for k, v in texts.items() if v.strip() or k in self.driver.saved_texts}

    def status(self, text: str) -> None:
        self.query_one("#debrief-status", Static).update(text)

    def finished(self, text: str, *, error: bool = False) -> None:
        """A save or an export is done: on the status line under the buttons, and as a
        notification, since ctrl+s is often pressed from an answer box far above them."""
        self.status(text)
        self.app.notify(text, severity="error" if error else "information", markup=False)

    def action_save_texts(self) -> None:
        if self.driver.closed:
            self.status("This save is closed; start a replay to write new answers.")
            return
        texts = self.texts()
        # Off the event loop: the engine lock may be held while the night is being scored.
        self.run_worker(lambda: self._save(texts), thread=True, group="texts")

    def _save(self, texts: dict[str, str]) -> int:
        count = self.driver.save_texts(texts)
        where = self.driver.save_path
        message = (
            f"Saved {count} answer{'s' if count != 1 else ''} to {where}."
            if count
            else f"Your answers are all in {where} already."
        )
        self.app.call_from_thread(self.finished, message)
        return count

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button = event.button.id
        if button == "save":
            self.action_save_texts()
        elif button == "export-runbook":
            self.export("runbook")
        elif button == "export-report":
            self.export("report")
        elif button == "show-reference":
            self.action_show_reference()
        elif button == "replay":
            self.app.replay()
        elif button == "next":
            self.app.next_incident()
        elif button == "incidents":
            self.app.action_picker()
        elif button == "quit":
            self.app.action_quit()

    # -- exports ----------------------------------------------------------------------------

    def export(self, what: str) -> None:
        if self.result is None:
            self.status(f"Wait for the score before exporting the {what}.")
            return
        path = self.driver.save_path
        if path is None:
            self.status("There is no save to export from.")
            return
        bar = self.query_one("#export-progress", ProgressBar)
        bar.display = True
        bar.update(total=None, progress=0)
        self._export_started = time.monotonic()
        self.status(f"Exporting the {what}: saving your answers first...")
        self._export(what, Path(path), self.texts())

    @work(thread=True, exclusive=True, group="export")
    def _export(self, what: str, path: Path, texts: dict[str, str]) -> None:
        """Off the event loop: both writers replay the save through the engine. Reports each
        step; stops between steps when the screen goes away."""
        worker = get_current_worker()
        steps = EXPORT_STEPS[what]

        def step(text: str) -> None:
            if worker.is_cancelled:
                raise Cancelled()
            index = steps.index(text) if text in steps else len(steps) - 1
            self.post_message(Progress(f"export-{what}", index, len(steps), text))

        try:
            if not self.driver.closed:
                self.driver.save_texts(texts)  # the page shows the answers as they are now
            if what == "runbook":
                from drill.runbook import write_runbook

                out = path.with_name(path.stem + "-runbook.md")
                step("replaying the night from the save")
                # The replica this process ran the night with (its own command line's).
                write_runbook([str(path)], str(out), replica=self._replica())
                step("written")
            else:
                from drill.report import write_report

                out = path.with_suffix(".html")
                write_report(str(path), str(out), progress=step, replica=self._replica())
        except Cancelled:
            return
        except Exception as exc:  # shown on screen: the learner can still save and quit
            self.post_message(ExportDone(f"Could not export the {what}: {exc}", error=True))
            return
        self.post_message(ExportDone(f"{what.capitalize()} written to {out}."))

    def _replica(self) -> str | None:
        return self.incident.learner_job.replica_factory

    def on_progress(self, progress: Progress) -> None:
        if not progress.task.startswith("export-"):
            return
        what = progress.task.removeprefix("export-")
        bar = self.query_one("#export-progress", ProgressBar)
        bar.update(total=progress.stages, progress=progress.stage)
        elapsed = time.monotonic() - self._export_started
        self.status(
            f"Exporting the {what}: {progress.text} (step {progress.stage + 1} of"
            f" {progress.stages}, {elapsed:.0f}s)..."
        )

    def on_export_done(self, message: ExportDone) -> None:
        self.query_one("#export-progress", ProgressBar).display = False
        self.finished(message.text, error=message.error)
