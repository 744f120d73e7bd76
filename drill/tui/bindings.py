"""Every key binding of the game, each with an id, in one table.

The screens take their BINDINGS from here, the help screen lists the ids beside the keys, and
config.toml's [keymap] rebinds any of them by id (Textual's keymap does the rebinding):

    [keymap]
    "night.log-search" = "ctrl+f,f8"
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType

GROUPS = {"speed": Binding.Group("Speed")}


@dataclass(frozen=True)
class Key:
    id: str
    keys: str
    action: str
    description: str
    tooltip: str = ""
    show: bool = True
    priority: bool = False
    # Keys of one group show once in the footer ("f3 f4 Speed"), so 80 columns hold them all.
    group: str | None = None

    @property
    def scope(self) -> str:
        return self.id.split(".", 1)[0]

    def binding(self) -> Binding:
        return Binding(
            self.keys,
            self.action,
            self.description,
            show=self.show,
            priority=self.priority,
            tooltip=self.tooltip,
            id=self.id,
            group=GROUPS.get(self.group) if self.group else None,
        )


KEYS: tuple[Key, ...] = (
    Key(
        "app.quit",
        "ctrl+q",
        "quit",
        "Quit",
        "Quit; asks first. Every action is already saved.",
        priority=True,
    ),
    Key("picker.play", "enter", "play", "Play", "Play the incident under the cursor"),
    Key("picker.help", "f1", "app.help", "Help"),
    Key("picker.season", "s", "season", "Season", "Four weeks of this fleet under your policies"),
    Key("season.drain", "d", "toggle('auto_drain')", "Drain", "Drain on hardware Xids, or not"),
    Key("season.check", "h", "toggle('health_check')", "Check", "Health check before restarts"),
    Key("season.restart", "r", "toggle('auto_restart')", "Restarts", "Automatic restarts"),
    Key(
        "season.more",
        "left_square_bracket",
        "cadence(0.5)",
        "More often",
        "Checkpoint twice as often",
    ),
    Key(
        "season.less",
        "right_square_bracket",
        "cadence(2.0)",
        "Less often",
        "Checkpoint half as often",
    ),
    Key("season.keep-less", "minus", "keep(-1)", "Keep fewer", show=False),
    Key("season.keep-more", "plus,equals_sign", "keep(1)", "Keep more", show=False),
    Key("season.back", "escape,q", "back", "Back"),
    Key("briefing.start", "enter", "start", "Start the shift", "Start the night"),
    Key("briefing.help", "f1", "app.help", "Help"),
    # The briefing outgrows 80x24 and its Start button has the keys: these scroll it anyway.
    Key(
        "briefing.page-down",
        "pagedown",
        "page(1)",
        "Read on",
        "Scroll the briefing down a page",
        priority=True,
    ),
    Key(
        "briefing.page-up",
        "pageup",
        "page(-1)",
        "Page up",
        "Scroll the briefing up a page",
        show=False,
        priority=True,
    ),
    Key("plan.start", "ctrl+s", "start", "Start the night", "Start with these settings"),
    Key("plan.help", "f1", "app.help", "Help"),
    Key("night.help", "f1", "help", "Help", "Every action, the keys and the pacing rules"),
    Key("night.pause", "f2", "toggle_pause", "Pause", "Hold or release the clock (not saved)"),
    Key("night.slower", "f3", "slower", "Slower", "Less night per second", group="speed"),
    Key("night.faster", "f4", "faster", "Faster", "More night per second", group="speed"),
    Key("night.log-expand", "f5", "toggle_log", "Log", "The log over the whole screen, or back"),
    Key("night.panels", "f6", "next_panel", "Panels", "The next panel (small screens)"),
    Key(
        "night.fast-forward",
        "f7",
        "fast_forward",
        "Fast-forward",
        "Run the night to the next page or your job stopping (an action: saved, costs the time)",
    ),
    Key("night.log-search", "ctrl+f", "search_log", "Search", "Show only log lines with a word"),
    Key("night.scroll-up", "pageup", "scroll_log(-1)", "Scroll up", show=False),
    Key("night.scroll-down", "pagedown", "scroll_log(1)", "Scroll down", show=False),
    Key("prompt.previous", "up", "history(-1)", "Previous command", show=False),
    Key("prompt.next", "down", "history(1)", "Next command", show=False),
    Key(
        "prompt.complete",
        "tab",
        "complete(1)",
        "Complete",
        "Complete; again for the next one",
        show=False,
    ),
    Key("prompt.complete-back", "shift+tab", "complete(-1)", "Previous completion", show=False),
    Key("search.close", "escape", "close_search", "Close search", show=False),
    Key("debrief.save", "ctrl+s", "save_texts", "Save answers", "Write your answers to the save"),
    Key("debrief.help", "f1", "app.help", "Help"),
    # Over the answer boxes too (priority): the answers are short, the page is long.
    Key(
        "debrief.page-up",
        "pageup",
        "page(-1)",
        "Page up",
        "Scroll the debrief up a page, also from an answer box",
        show=False,
        priority=True,
    ),
    Key(
        "debrief.page-down",
        "pagedown",
        "page(1)",
        "Page down",
        "Scroll the debrief down a page, also from an answer box",
        show=False,
        priority=True,
    ),
    # `drill course report --tui`: the class, learners by night, and one learner's night.
    # Over the table's own Enter (priority), so the footer shows what Enter does here.
    Key(
        "class.open",
        "enter",
        "open",
        "Open",
        "This learner's night: timeline, points, refusal",
        priority=True,
    ),
    Key("class.quit", "escape,q", "leave", "Quit", "Leave the class report"),
    # Over the scrolling page (priority): left and right move between nights, not sideways.
    Key(
        "learner.previous",
        "left",
        "night(-1)",
        "Night before",
        "The same learner's night before",
        priority=True,
    ),
    Key(
        "learner.next",
        "right",
        "night(1)",
        "Night after",
        "The same learner's night after",
        priority=True,
    ),
    Key("learner.back", "escape,q", "back", "Back", "Back to the class"),
    Key("help.close", "escape,f1,q", "close", "Close help"),
    Key("confirm.yes", "y,enter", "answer(True)", "Yes", priority=True),
    Key("confirm.no", "n,escape", "answer(False)", "No", priority=True),
)
BY_ID = {key.id: key for key in KEYS}


# BindingType: the type Textual declares BINDINGS with, so `BINDINGS = bindings(...)` type-checks.
def bindings(scope: str) -> list[BindingType]:
    return [key.binding() for key in KEYS if key.scope == scope]


def keys_for(binding_id: str, keymap: dict[str, str] | None = None) -> str:
    """The keys that run a binding now: the learner's keymap, else the default."""
    return (keymap or {}).get(binding_id) or BY_ID[binding_id].keys
