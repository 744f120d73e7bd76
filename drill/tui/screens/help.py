"""Help: every action from the engine's own catalog, plus the keys and the commands the screen
handles itself (pause, resume, speed, debrief, quit), which are not actions and are not saved."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from drill.engine.actions.catalog import VERBS, help_text

KEYS = """Keys
  Enter        run the line          Up / Down    earlier and later lines
  Tab          complete a verb or a name        ctrl+a / ctrl+e   start / end of line
  ctrl+u / ctrl+k / ctrl+w   delete to the start / to the end / a word
  F1 help   F2 pause or resume   F3 slower   F4 faster   F6 next panel (small screens)
  ctrl+p  command palette: every action and screen   ctrl+q  quit (y or Enter to confirm)
  PageUp / PageDown  scroll the log

Typed here, not actions, not saved:
  pause, resume      hold or release the clock
  speed N            1 to 600 seconds of night per second
  debrief            end the night and see the score
  quit               leave (every action is already in the save)

Pacing: the clock holds while the command line has text, and a new critical page holds it until you act. With --hard it never holds. Every action takes some of the night, as it would for a person: `wait 10m` lets the night run."""


def actions_text(notes: dict[str, str]) -> Text:
    """Every verb as the engine's `help VERB` prints it, looks first, then acts."""
    text = Text()
    for kind, title in (("look", "Look (changes nothing, costs a little time)"), ("act", "Act")):
        text.append(f"{title}\n", style="bold underline")
        for name, verb in VERBS.items():
            if verb.kind != kind:
                continue
            usage, _, rest = help_text(name, notes).partition("\n")
            text.append(usage + "\n", style="bold")
            text.append(rest + "\n", style="grey70")
    return text


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,f1,q", "close", "Close help"),
    ]

    def __init__(self, verb: str | None = None, notes: dict[str, str] | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.verb = verb
        self.notes = notes or {}

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            if self.verb:
                yield Static(
                    Text(help_text(self.verb, self.notes), style="bold"), classes="help-verb"
                )
            yield Static(KEYS, markup=False, id="help-keys")
            yield Static(actions_text(self.notes), id="help-actions")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#help").border_title = "Help (Escape closes)"
        self.query_one("#help").focus()

    def action_close(self) -> None:
        self.dismiss(None)
