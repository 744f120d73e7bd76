"""A yes-or-no question in a box: y or Enter says yes, n or Escape says no."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from drill.tui.bindings import bindings


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = bindings("confirm")

    def __init__(self, question: str, detail: str = "", yes: str = "Yes", no: str = "No") -> None:
        super().__init__(classes="dialog-screen")
        self.question, self.detail, self.yes, self.no = question, detail, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.question, id="dialog-question", markup=False)
            if self.detail:
                yield Static(self.detail, id="dialog-detail", markup=False)
            with Horizontal(id="dialog-buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="primary")
                yield Button(f"{self.no} (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
