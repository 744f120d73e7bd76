"""The briefing: the lesson in a few lines, then tonight's situation. Drawn first; then torch
and the baseline (for the real replica) load in a worker while the learner reads. The session
and its save start with the night, so leaving from here writes nothing."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Static

from drill.course import COURSE, KEY_CONCEPTS, LESSON, PHASE, PRINCIPLE
from drill.text_safety import visible
from drill.tui.bindings import bindings


def lesson_text() -> Text:
    text = Text()
    text.append(f"{COURSE}, {PHASE}, {LESSON}\n", style="bold")
    text.append("Principle: ", style="bold")
    text.append(PRINCIPLE + "\n")
    text.append("Key concepts:\n", style="bold")
    text.append("\n".join(f"  - {concept}" for concept in KEY_CONCEPTS))
    return text


def reflow(text: str) -> str:
    """Incident files wrap their prose by hand; let the screen wrap it. Blank lines and list
    items keep their breaks."""
    out: list[str] = []
    for line in text.strip().splitlines():
        stripped = line.strip()
        if out and stripped and out[-1] and not stripped.startswith(("-", "*")):
            out[-1] += " " + stripped
        else:
            out.append(stripped)
    return "\n".join(out)


def meta_line(incident, seed: int) -> str:
    """`dead-rank, easy, about 10 minutes, seed 1`; the tutorial's level is its name, said once."""
    words = [incident.id]
    if incident.difficulty != incident.id:
        words.append(incident.difficulty)
    words += [f"about {incident.estimated_minutes} minutes", f"seed {seed}"]
    return ", ".join(words)


class BriefingScreen(Screen):
    BINDINGS = bindings("briefing")

    def __init__(self, spec, *, resumed: bool = False) -> None:
        super().__init__()
        self.spec = spec
        self.resumed = resumed

    def compose(self) -> ComposeResult:
        incident = self.spec.incident
        with VerticalScroll(id="briefing"):
            yield Static(lesson_text(), id="lesson")
            title = Text()
            title.append(f"Tonight: {incident.title}\n", style="bold")
            title.append(meta_line(incident, self.spec.seed) + "\n", style="grey62")
            title.append("\n" + reflow(incident.briefing))
            yield Static(title, id="situation")
            if self.resumed:
                yield Static(
                    "You are carrying on a saved night: it replays up to where you left it.",
                    id="resumed",
                )
        yield Static("Getting the cluster ready...", id="status")
        with Horizontal(id="briefing-buttons"):
            yield Button("Start the shift (Enter)", id="start", variant="primary")
            yield Button("Quit", id="quit")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#start", Button).focus()
        self.refresh_status()
        self.call_after_refresh(self.app.drawn, self)

    def action_page(self, direction: int) -> None:
        scroll = self.query_one("#briefing", VerticalScroll)
        if direction < 0:
            scroll.scroll_page_up(animate=False)
        else:
            scroll.scroll_page_down(animate=False)

    def refresh_status(self) -> None:
        driver = self.app.driver
        status = self.query_one("#status", Static)
        if driver is None:
            return
        if driver.error:
            # The error can quote the save being resumed. Start cannot start anything now, so
            # it becomes the way back; Quit stays beside it.
            why = visible(f"Could not start the night: {driver.error}")
            status.update(Text(why, style="bold red"))
            self.query_one("#start", Button).label = "Back to the incidents (Enter)"
        elif driver.warm:
            status.update(Text("Ready. Press Enter to start your shift.", style="green"))
        else:
            status.update("Getting the cluster ready...")

    def action_start(self) -> None:
        if self.app.driver is not None and self.app.driver.error:
            self.app.action_picker()
            return
        self.app.after_briefing()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "start":
            self.action_start()
        else:
            self.app.action_quit()
