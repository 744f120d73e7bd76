"""The debrief: the score with its figures against par and floor, the loss curve against the
baseline, the learner's night beside the reference's, the takeaways, the opinion question and
the learner's runbook. Texts go into the save before the final score line."""

from __future__ import annotations

import importlib.util
from itertools import zip_longest
from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Label, Static, TextArea

from drill.course import RUNBOOK_SECTIONS
from drill.incident.units import format_duration
from drill.tui.bindings import bindings
from drill.tui.messages import Debrief
from drill.tui.widgets.loss_chart import LossChart

NAMES = {
    "recovered": "Recovered",
    "time_to_recovery": "Time to recovery",
    "work_lost": "Work lost",
    "integrity": "Integrity",
    "collateral": "Collateral",
    "discipline": "Discipline",
}


def figure(name: str, value) -> str:
    """A component's raw figure in words a person reads."""
    if value is None:
        return "never" if name == "time_to_recovery" else "-"
    if name == "recovered":
        return "yes" if value else "no"
    if name == "time_to_recovery":
        return "no stop" if value == 0 else format_duration(float(value))
    if name == "work_lost" and isinstance(value, dict):
        return f"{value.get('steps_recomputed', 0)} redone, {value.get('steps_behind', 0)} owed, {value.get('gpu_hours', 0)} GPU h"
    if name == "integrity" and isinstance(value, dict):
        match = value.get("match") or "not measured"
        extra = []
        if value.get("corrupt_loaded"):
            extra.append(f"{value['corrupt_loaded']} bad loaded")
        if value.get("corrupt_caught"):
            extra.append(f"{value['corrupt_caught']} caught")
        return match + (f" ({', '.join(extra)})" if extra else "")
    if name == "collateral":
        return f"{value} harm{'s' if value != 1 else ''}"
    if name == "discipline":
        return f"{float(value):.0%}"
    return str(value)


def score_line(score) -> str:
    return f"Score {score.total}/100, grade {score.grade}"


def components_text(score) -> Text:
    text = Text()
    for part in score.components:
        name = NAMES.get(part.name, part.name)
        text.append(f"{name:<17}", style="bold")
        text.append(
            f"{part.points:>5.1f}/{part.weight:<3.0f}",
            style="bold green"
            if part.points >= part.weight
            else "bold yellow"
            if part.points
            else "bold red",
        )
        text.append(
            f"  yours {figure(part.name, part.value)}  |  par {figure(part.name, part.par)}  |  floor {figure(part.name, part.floor)}\n"
        )
        text.append(f"  {part.why}\n", style="grey70")
    text.append(
        "Par is what the incident's reference solution got on this same night and seed; floor is what"
        " the night did with nobody acting. Points scale between them.",
        style="grey50",
    )
    return text


def timeline_table(mine: list[dict], reference: list[dict]) -> Table:
    table = Table(expand=True, box=None, pad_edge=False, header_style="bold")
    table.add_column("Your night", ratio=1, overflow="fold")
    table.add_column("The reference solution", ratio=1, overflow="fold")
    for left, right in zip_longest(mine, reference):
        cells = []
        for entry in (left, right):
            if entry is None:
                cells.append(Text(""))
                continue
            cell = Text(f"{entry['clock']} ", style="grey62")
            cell.append(entry["text"], style="" if entry.get("accepted", True) else "strike grey50")
            if not entry.get("accepted", True):
                cell.append(" (not done)", style="grey50")
            cells.append(cell)
        table.add_row(*cells)
    if not mine and not reference:
        table.add_row(Text("no actions", style="grey62"), Text("no actions", style="grey62"))
    return table


class DebriefScreen(Screen):
    BINDINGS = bindings("debrief")

    def __init__(self, driver) -> None:
        super().__init__()
        self.driver = driver
        self.incident = driver.spec.incident
        self.result: Debrief | None = None

    def compose(self) -> ComposeResult:
        incident = self.incident
        saved = self.driver.saved_texts
        with VerticalScroll(id="debrief"):
            yield Static(Text(f"Debrief: {incident.title}", style="bold"), id="debrief-title")
            yield Static(
                "Scoring the night: the engine plays the reference solution and an empty night on the"
                " same seed for par and floor...",
                id="score-total",
                markup=False,
            )
            yield Static("", id="components")
            yield Static(Text("Loss against the undisturbed run", style="bold"), classes="section")
            yield LossChart(id="debrief-chart")
            yield Static(Text("Your night beside the reference", style="bold"), classes="section")
            yield Static("", id="timeline")
            yield Static(Text("Takeaways", style="bold"), classes="section")
            takeaways = (
                "\n".join(f"- {t}" for t in incident.debrief.takeaways)
                or "No takeaways in this incident."
            )
            yield Static(takeaways, id="takeaways", markup=False)
            if incident.debrief.opinion:
                yield Static(Text("Opinion checkpoint", style="bold"), classes="section")
                yield Static(incident.debrief.opinion, markup=False, classes="question")
                yield TextArea(
                    saved.get("opinion", ""), id="opinion", classes="answer", soft_wrap=True
                )
            yield Static(Text("Your runbook", style="bold"), classes="section")
            yield Static(
                "Write it in your own words: what you would do next time. It goes into your save.",
                classes="question",
                markup=False,
            )
            for key, title, prompt in RUNBOOK_SECTIONS:
                yield Label(f"{title}: {prompt}", classes="runbook-label")
                yield TextArea(
                    saved.get(key, ""), id=key.replace(".", "-"), classes="answer", soft_wrap=True
                )
            with Horizontal(id="debrief-buttons"):
                yield Button("Save answers", id="save", variant="primary")
                yield Button("Export runbook", id="export-runbook")
                yield Button("Export report", id="export-report")
                yield Button("Replay this night", id="replay")
                yield Button("Incidents", id="picker")
                yield Button("Quit", id="quit")
            yield Static("", id="debrief-status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        chart = self.query_one("#debrief-chart", LossChart)
        replica = self.driver.spec.backend != "sim"
        chart.update_data(steps=self.incident.learner_job.steps, replica=replica)
        chart.set_class(not replica, "-no-replica")
        for area in self.query(TextArea):
            area.cursor_blink = self.app.cursor_blink_enabled
        self.query_one("#debrief", VerticalScroll).focus()

    def show(self, result: Debrief) -> None:
        self.result = result
        self.query_one("#score-total", Static).update(Text(score_line(result.score), style="bold"))
        self.query_one("#components", Static).update(components_text(result.score))
        chart = self.query_one("#debrief-chart", LossChart)
        chart.update_data(
            losses=result.losses, baseline=result.baseline, step=result.final_step, time=0.0
        )
        self.query_one("#timeline", Static).update(timeline_table(result.mine, result.reference))

    def engine_failed(self, text: str) -> None:
        last = text.strip().splitlines()[-1] if text.strip() else "unknown error"
        self.query_one("#score-total", Static).update(
            Text(f"Scoring failed: {last}", style="bold red")
        )

    # -- the learner's words ----------------------------------------------------------------

    def texts(self) -> dict[str, str]:
        texts = {}
        if self.query("#opinion"):
            texts["opinion"] = self.query_one("#opinion", TextArea).text
        for key, _, _ in RUNBOOK_SECTIONS:
            texts[key] = self.query_one(f"#{key.replace('.', '-')}", TextArea).text
        return {k: v for k, v in texts.items() if v.strip() or k in self.driver.saved_texts}

    def status(self, text: str) -> None:
        self.query_one("#debrief-status", Static).update(text)

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
            else "Nothing new to save."
        )
        self.app.call_from_thread(self.status, message)
        return count

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button = event.button.id
        if button == "save":
            self.action_save_texts()
        elif button == "export-runbook":
            self.export_runbook()
        elif button == "export-report":
            self.export_report()
        elif button == "replay":
            self.app.replay()
        elif button == "picker":
            self.app.action_picker()
        elif button == "quit":
            self.app.action_quit()

    def export_runbook(self) -> None:
        self._export("drill.runbook", "runbook")

    def export_report(self) -> None:
        self._export("drill.report", "report")

    def _export(self, module: str, what: str) -> None:
        if importlib.util.find_spec(module) is None:
            self.status(
                f"Export is not available yet: this version of drill has no {what} writer. Your night is in the save."
            )
            return
        if self.result is None:
            self.status(f"Wait for the score before exporting the {what}.")
            return
        self.action_save_texts()
        path = self.driver.save_path
        if path is None:
            self.status("There is no save to export from.")
            return
        self.status(f"Writing the {what}...")
        self.run_worker(
            lambda: self._write(what, Path(path)), thread=True, group="export", exclusive=True
        )

    def _write(self, what: str, path: Path) -> None:
        """Off the event loop: both writers replay the save through the engine."""
        try:
            if what == "runbook":
                from drill.runbook import write_runbook

                out = path.with_name(path.stem + "-runbook.md")
                write_runbook([str(path)], str(out))
            else:
                from drill.report import write_report

                out = path.with_suffix(".html")
                write_report(str(path), str(out))
        except Exception as exc:
            self.app.call_from_thread(self.status, f"Could not export the {what}: {exc}")
            return
        self.app.call_from_thread(self.status, f"{what.capitalize()} written to {out}.")
