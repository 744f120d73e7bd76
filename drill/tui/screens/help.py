"""Help: every action from the engine's own catalog, plus the keys and the commands the screen
handles itself (pause, resume, speed, debrief, quit), which are not actions and are not saved."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.keys import format_key
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from drill.engine.actions.catalog import FAST_FORWARD, VERBS, help_text
from drill.tui.bindings import KEYS, bindings, keys_for
from drill.tui.config import CONFIG_NAME

PROMPT_KEYS = "\n".join(
    (
        "Line editing on the prompt: ctrl+a / ctrl+e start and end of line, ctrl+u / ctrl+k delete"
        " to the start / to the end, ctrl+w a word. ctrl+p opens the command palette (every action,"
        " every screen, Textual's themes). A click on a node on the map or a job in the queue puts"
        " it on the prompt.",
        "",
        "Typed here, not actions, not saved:",
        "  pause, resume      hold or release the clock",
        "  speed N            1 to 600 seconds of night per second",
        "  debrief            end the night and see the score",
        "  quit               leave (once the night starts, every action is in its save)",
        "",
        "Pacing: the clock holds while the command line has text, and a new page that matters holds"
        " it until you act: every critical page, and a warning about your own job (its nodes, its"
        " checkpoint volume). It also holds while this help, the palette or a question is open."
        " With --hard it never holds. Every action takes some of the night, as"
        " it would for a person: `wait 10m` lets the night run.",
        "",
        f"Fast-forward (night.fast-forward above, or `{FAST_FORWARD}`): the night runs at top"
        " speed until a new page"
        " arrives or your job stops, and costs the time it ran, like any wait. It is an action,"
        " saved like the others, and refused while a page is open: acknowledge it first. The"
        " page that stops it holds the clock as any page does.",
    )
)

SCOPES = (
    ("night", "The night"),
    ("prompt", "The prompt"),
    ("search", "The log search"),
    ("app", "Everywhere"),
    ("picker", "The list of incidents"),
    ("briefing", "The briefing"),
    ("plan", "The pre-shift plan"),
    ("debrief", "The debrief"),
    ("season", "The season"),
    ("help", "This help"),
    ("confirm", "Yes-or-no questions"),
)


def key_label(key: str) -> str:
    """A key as it is printed on the keyboard where it is one character (`[` for Textual's
    `left_square_bracket`), so the columns line up; names like `f1` and `enter` stay."""
    *mods, last = key.split("+")
    shown = format_key(last)
    if len(shown) == 1 and shown.isascii() and shown.isprintable():  # enter, up: their names
        last = shown
    return "+".join([*mods, last])


def keys_text(keymap: dict[str, str]) -> Text:
    """Every key binding with the id that config.toml's [keymap] rebinds it by."""
    text = Text()
    text.append("Keys", style="bold underline")
    text.append(f"  (rebind any in {CONFIG_NAME} under [keymap], by the id on the right)\n")
    for scope, title in SCOPES:
        text.append(f"{title}\n", style="bold")
        for key in KEYS:
            if key.scope != scope:
                continue
            keys = " / ".join(key_label(k) for k in keys_for(key.id, keymap).split(","))
            text.append(f"  {keys:<16}", style="bold")
            text.append(f" {key.tooltip or key.description:<50}")
            text.append(f" {key.id}\n", style="grey50")
    text.append("\n" + PROMPT_KEYS)
    return text


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
    BINDINGS = bindings("help")

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
            yield Static(keys_text(self.app.config.keymap), id="help-keys")
            yield Static(actions_text(self.notes), id="help-actions")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#help").border_title = "Help (Escape closes)"
        self.query_one("#help").focus()

    def action_close(self) -> None:
        self.dismiss(None)
