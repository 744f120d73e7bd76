"""The live night: header, cluster map, queue, training, storage, pager, log and the prompt.

The prompt has focus, like a shell. Lines the screen handles itself (pause, resume, speed, help,
debrief, quit) never reach the engine; every other line goes to the Session, in a worker. On a
small terminal the panels fold into tabs. The log can take the whole screen (F5) and be searched
(ctrl+f); a click on a node on the map or a job in the queue puts it on the prompt.
"""

from __future__ import annotations

import dataclasses
import time

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Container, Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Tab, Tabs

from drill.engine.actions.catalog import (
    FAST_FORWARD,
    GROUPS,
    HELP,
    VERBS,
    On,
    fast_forwards,
    first_look,
)
from drill.incident.clock import NightClock
from drill.sim.events import (
    AlertFired,
    CheckpointEvent,
    Event,
    JobStateChanged,
    NodeStateChanged,
)
from drill.tui.bindings import bindings
from drill.tui.completion import Names, candidates, usage_line
from drill.tui.messages import Frame
from drill.tui.pacing import Pacing, parse_speed
from drill.tui.palette import NightCommands
from drill.tui.panels import PANELS
from drill.tui.screens.confirm import ConfirmScreen
from drill.tui.screens.help import HelpScreen
from drill.tui.suggest import suggest
from drill.tui.widgets.cluster_map import ClusterMap
from drill.tui.widgets.command_line import CommandLine
from drill.tui.widgets.log_panel import LogPanel
from drill.tui.widgets.log_search import LogSearch
from drill.tui.widgets.loss_chart import LossChart
from drill.tui.widgets.night_header import NightHeader
from drill.tui.widgets.pager import PagerPanel, open_pages
from drill.tui.widgets.queue import QueuePanel
from drill.tui.widgets.storage import StoragePanel
from drill.tui.widgets.text_line import TextLine
from drill.tui.words import DEBRIEF, PAUSE, QUIT, RESUME, SPEED, tui_word

TICK = 0.1  # wall seconds between clock ticks
NARROW_WIDTH, NARROW_HEIGHT = 120, 34
LOGGED_EVENTS = (AlertFired, JobStateChanged, NodeStateChanged, CheckpointEvent)
IDLE_HELP = "Enter runs it. Tab completes. Up/Down: history. F1: help. ctrl+p: everything."
FAST_FORWARDING = "Fast-forwarding to the next signal..."


class NightScreen(Screen):
    COMMANDS = {NightCommands}
    BINDINGS = bindings("night")

    def __init__(self, driver, pacing: Pacing, plan: list[str] | None = None) -> None:
        super().__init__()
        self.driver = driver
        self.pacing = pacing
        self.plan = list(plan or [])
        self.incident = driver.spec.incident
        self.clock = NightClock(self.incident.night.start).label
        self.frame: Frame | None = None
        self.active = "log"
        self.ending = False
        self.started = False
        # A frame can reach the app between push_screen and this screen's on_mount, before its
        # widgets exist; until then the driver keeps the latest frame and session_ready shows it.
        self.widgets_ready = False
        self._last_tick = time.monotonic()
        self._alert_ids: set[str] = set()

    # -- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield NightHeader(id="night-header")
        yield Tabs(*[Tab(label, id=f"tab-{key}") for key, label in PANELS], id="panel-tabs")
        yield LogSearch(id="log-search")
        with Container(id="panels"):
            yield ClusterMap(id="map", classes="panel")
            yield PagerPanel(id="pager")
            yield QueuePanel(id="queue")
            yield StoragePanel(id="storage")
            yield LogPanel(id="log", classes="panel -active")
            yield LossChart(id="training", classes="panel")
        with Horizontal(id="prompt"):
            yield Label(">", id="prompt-mark")
            yield CommandLine(id="command", history_dir=self.app.config_folder)
        yield TextLine(IDLE_HELP, id="inline-help")
        yield Footer()

    def on_mount(self) -> None:
        self.widgets_ready = True
        titles = {"map": "Cluster", "log": "Log", "training": "Training"}
        for key, title in titles.items():
            self.query_one(f"#{key}").border_title = title
        for widget in self.query(".panel"):
            widget.can_focus = False
        self.query_one(Tabs).can_focus = False
        self.query_one(StoragePanel).clock = self.clock
        self.query_one(PagerPanel).clock = self.clock
        command = self.query_one(CommandLine)
        command.cursor_blink = self.app.cursor_blink_enabled
        command.focus()
        self._set_narrow(self.app.size.width, self.app.size.height)
        self.query_one(LossChart).update_data(
            steps=self.incident.learner_job.steps, replica=self.driver.spec.backend != "sim"
        )
        self.log_line(
            Text(
                f"Night of {self.incident.id}, seed {self.driver.spec.seed}. {IDLE_HELP}",
                style="grey62",
            )
        )
        if self.driver.baseline:
            self.query_one(LossChart).update_data(baseline=self.driver.baseline)
        if self.driver.ready:
            self.session_ready()
        else:
            self.query_one(NightHeader).show(
                clock=self.clock(0),
                pace="getting ready",
                incident=self._title(),
                pages=0,
                critical=False,
            )
        self.set_interval(TICK, self._tick)

    def _title(self) -> str:
        return f"{self.incident.id}: {self.incident.title}"

    def on_resize(self, event) -> None:
        self._set_narrow(event.size.width, event.size.height)

    def _set_narrow(self, width: int, height: int) -> None:
        self.set_class(width < NARROW_WIDTH or height < NARROW_HEIGHT, "-narrow")
        # Less space between the keys, so every one fits at 80 columns ("^f Sear" did not).
        # The palette's own "^p palette" gives way there: ctrl+p still opens it, and F1 says so.
        for footer in self.query(Footer):
            footer.compact = width < NARROW_WIDTH
            footer.show_command_palette = width >= NARROW_WIDTH

    # -- the engine's side ------------------------------------------------------------------

    def session_ready(self) -> None:
        """The session exists: queue the plan's `set` lines first, at the night's start."""
        if self.started:
            return
        self.started = True
        frame = self.driver.frame
        if self.driver.spec.resume is not None and frame is not None:
            frame = self._replay_log(frame)
        if frame is not None:
            self.show_frame(frame)
        self.driver.act_first(self.plan)
        self.plan = []
        self._last_tick = time.monotonic()

    def show_frame(self, frame: Frame) -> None:
        if not self.widgets_ready:
            return
        about = self._about_yours(frame)
        self.frame = frame
        snapshot = frame.snapshot
        if frame.result is not None and frame.result.accepted:
            # The action answers the pages shown before it, not those that fired while it ran
            # (they are in this same frame): release first, then let this frame's pages hold.
            self.pacing.acted()
        before, after = _around(frame)
        for event in before:
            self._log_event(event)
        if frame.result is not None:
            self._log_result(frame.result)
        for event in after:
            self._log_event(event)
        for event in frame.events:
            if isinstance(event, AlertFired):
                self.pacing.page(event.severity, event.subject in about)
        self.query_one(ClusterMap).show(snapshot)
        self.query_one(QueuePanel).show(snapshot)
        self.query_one(StoragePanel).show(frame.storage)
        self.query_one(PagerPanel).show(snapshot.alerts)
        mine = next((j for j in snapshot.jobs if j.yours), None)
        self.query_one(LossChart).update_data(
            losses=snapshot.losses,
            step=mine.step if mine else 0,
            time=snapshot.time,
            state=str(mine.state) if mine else None,
        )
        self.query_one(CommandLine).names = Names(
            nodes=tuple(n.name for n in snapshot.nodes if n.state not in ("spare", "joining")),
            jobs=tuple(j.name for j in sorted(snapshot.jobs, key=lambda j: (not j.yours, j.name))),
            own_jobs=tuple(j.name for j in snapshot.jobs if j.yours),
            volumes=tuple(v.name for v in frame.storage.volumes),
            leaves=tuple(sorted({n.leaf for n in snapshot.nodes if n.leaf})),
            alerts=tuple(a.id for a in snapshot.alerts if not a.acked),
            steps=tuple(str(c.step) for c in reversed(frame.storage.checkpoints)),
        )
        self._show_header()
        self._show_busy()
        if snapshot.over and not self.ending:
            self.ending = True
            self.log_line(Text("The night is over. Scoring it...", style="bold"))
            self.app.open_debrief()

    def _replay_log(self, frame: Frame) -> Frame:
        """A resumed night starts with its log and its history: the saved actions and what
        they printed, among what the night did meanwhile, in time order. Old pages do not
        hold the clock again."""
        save = self.driver.spec.resume
        command = self.query_one(CommandLine)
        self.log_line(Text(f"Carrying on {save.path}: the night so far.", style="bold"))
        # At the same second an action comes before the events: they are what it caused,
        # as the live log shows them (`_around`).
        entries: list[tuple[float, int, object]] = [(a.time, 0, a) for a in save.actions]
        entries += [(e.time, 1, e) for e in frame.events]
        for _, kind, item in sorted(entries, key=lambda entry: (entry[0], entry[1])):
            if kind == 1:
                self._log_event(item)
            else:
                self._log_saved(item)
                command.remember(item.text, keep=False)
        self.log_line(Text("You are back where you left it.", style="bold"))
        return dataclasses.replace(frame, events=())

    def _log_saved(self, action) -> None:
        line = Text(f"{self.clock(action.time)} > ", style="bold")
        line.append(action.text, style="bold")
        self.log_line(line)
        if action.accepted:
            if action.result:
                self.log_line(Text(action.result))
        else:
            self.log_line(Text(f"Not done: {action.result}", style="bold red"))

    def _about_yours(self, frame: Frame) -> set[str]:
        """What a page about the learner's job names: the job, the nodes it runs on (now or
        in the frame before), its checkpoint volume."""
        mine = self.incident.learner_job
        names = {mine.name}
        if mine.checkpoint.volume:
            names.add(mine.checkpoint.volume)
        for snapshot in (frame.snapshot, self.frame.snapshot if self.frame else None):
            if snapshot is None:
                continue
            names.update(n.name for n in snapshot.nodes if mine.name in n.jobs)
        return names

    def engine_failed(self, text: str) -> None:
        path = self.driver.save_path  # None when the night failed before its save was made
        kept = f"Your actions so far are in {path}." if path else "Nothing was saved."
        self.log_line(
            Text(f"The engine hit an error, so the night stops here. {kept}", style="bold red")
        )
        self.log_line(Text(text.strip().splitlines()[-1], style="red"))
        self._show_busy()

    def _show_header(self) -> None:
        snapshot = self.frame.snapshot if self.frame else None
        alerts = snapshot.alerts if snapshot else ()
        waiting = open_pages(alerts)
        running = any(fast_forwards(line) for line in self.driver.acts())
        self.query_one(NightHeader).show(
            clock=snapshot.clock if snapshot else self.clock(0),
            pace="fast-forward" if running else self.pacing.label(),
            incident=self._title(),
            pages=len(waiting),
            critical=any(a.severity == "critical" for a in waiting),
        )
        label = f"Pager ({len(waiting)})" if waiting else "Pager"
        tab = self.query_one("#tab-pager", Tab)
        if str(tab.label) != label:
            tab.label = label

    def _log_event(self, event: Event) -> None:
        if not isinstance(event, LOGGED_EVENTS):
            return
        mine = self.incident.learner_job.name
        if isinstance(event, (JobStateChanged, CheckpointEvent)) and event.subject != mine:
            return
        style = "grey62"
        if isinstance(event, AlertFired):
            severity = event.severity
            style = {"critical": "bold red", "warning": "yellow"}.get(severity, "grey62")
            text = f"{self.clock(event.time)} PAGE {event.id} {severity}: {event.text}"
        else:
            text = f"{self.clock(event.time)} {event.text}"
        self.log_line(Text(text, style=style))

    def _log_result(self, result) -> None:
        line = Text(f"{self.clock(result.time)} > ", style="bold")
        line.append(result.text, style="bold")
        self.log_line(line)
        if result.accepted:
            if result.output:
                self.log_line(Text(result.output))
        else:
            self.log_line(Text(f"Not done: {result.output}", style="bold red"))
            self._suggest(result.text, result.output)

    def _suggest(self, line: str, why: str) -> None:
        """A rejected line that is one misspelling away from a good one says which."""
        if "did you mean" in why.lower():
            return  # the engine said it already
        better = suggest(line, self.query_one(CommandLine).names)
        if better:
            self.log_line(
                Text(f"Did you mean `{better}`? Up brings the line back to edit.", style="yellow")
            )
            self._help(f"Did you mean: {better}")

    def log_line(self, text: Text) -> None:
        self.query_one(LogPanel).add(text)

    # -- the clock --------------------------------------------------------------------------

    def _tick(self) -> None:
        now = time.monotonic()
        wall = min(now - self._last_tick, 0.5)
        self._last_tick = now
        if self.ending or not self.started or not self.driver.ready:
            return
        if self.app.screen is not self and not self.pacing.hard:
            return  # help, the palette or a question is over the night: reading is not the test
        seconds = self.pacing.sim_seconds(wall)
        if seconds > 0:
            self.driver.advance(seconds)

    def _show_busy(self) -> None:
        """The line under the prompt: what is typed, what is running, or how to start."""
        typed = self.query_one(CommandLine).value
        if typed.strip():
            self._help(usage_line(typed) or IDLE_HELP)
        elif self.driver.failed:
            kept = "your save is on disk" if self.driver.save_path else "nothing was saved"
            self._help(f"The night has stopped after an engine error. ctrl+q quits; {kept}.")
        elif any(fast_forwards(line) for line in self.driver.acts()):
            # The night runs at top speed in the worker: the clock jumps when it stops.
            self._help(FAST_FORWARDING)
        elif waiting := [str(arg) for kind, arg in self.driver.pending if kind == "act"]:
            more = f" (+{len(waiting) - 1} more)" if len(waiting) > 1 else ""
            self._help(f"Running: {waiting[0]}{more}")
        else:
            self._help(IDLE_HELP)

    # -- the prompt -------------------------------------------------------------------------

    def _help(self, text: str | Text) -> None:
        # A str as plain text: a usage's optional argument, `status [JOB]`, is not markup.
        if isinstance(text, str):
            text = Text(text)
        self.query_one("#inline-help", TextLine).set(text, key=text.markup)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "log-search":
            event.stop()
            self.query_one(LogPanel).search(event.value)
            self.pacing.typing = bool(event.value.strip())
            self._show_header()
            return
        self.pacing.typing = bool(event.value.strip())
        self._show_busy()
        self._show_header()

    def on_command_line_choices(self, event: CommandLine.Choices) -> None:
        if not event.choices:
            return
        shown = Text()
        start = 0 if event.current is None else max(0, event.current - 12)
        window = event.choices[start : start + 24]
        if start:
            shown.append("...  ")
        for index, choice in enumerate(window, start=start):
            shown.append(choice, style="reverse bold" if index == event.current else "")
            shown.append("  ")
        if start + 24 < len(event.choices):
            shown.append("...")
        if event.current is None:
            shown.append("(Tab again cycles)", style="grey50")
        self._help(shown)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "log-search":
            self.pacing.typing = False  # the search stays; the prompt gets the keys back
            self.query_one(CommandLine).focus()
            self._show_header()
            return
        command = self.query_one(CommandLine)
        line = event.value.strip()
        command.value = ""
        self.pacing.typing = False
        if not line:
            return
        command.remember(line)
        if self.active != "log" and self.has_class("-narrow"):
            self.show_panel("log")
        self.run_line(line)
        self._show_header()

    def run_line(self, line: str) -> None:
        word, _, rest = line.partition(" ")
        word, rest = word.lower(), rest.strip()
        said = tui_word(word)  # a word the TUI handles itself (drill/tui/words.py), or None
        if said is PAUSE:
            self.action_pause(True)
        elif said is RESUME:
            self.action_pause(False)
        elif said is SPEED:
            try:
                self.pacing.set_speed(parse_speed(rest))
            except ValueError as exc:
                self.log_line(Text(f"Not done: {exc}", style="bold red"))
            else:
                self.log_line(Text(f"Speed {self.pacing.speed}x.", style="grey62"))
        elif said is QUIT:
            self.app.action_quit()
        elif said is DEBRIEF:
            self.action_debrief()
        elif word == HELP.name:
            self.action_help(rest or None)
        elif self.ending:
            self.log_line(Text("The night is over; the debrief is on its way.", style="grey62"))
        elif self.driver.failed:
            self.log_line(
                Text("Not done: the night stopped after an engine error.", style="bold red")
            )
        elif not self.driver.ready and self.driver.error is None:
            # Typed while the session opens (a second or two): kept, not thrown away, and run
            # in order as soon as the night starts.
            self.log_line(
                Text(
                    "The cluster is still getting ready: this runs as soon as the night starts.",
                    style="yellow",
                )
            )
            self.driver.act(line)
        elif not self.driver.ready:
            self.log_line(Text("Not done: the night could not start.", style="bold red"))
        else:
            self.driver.act(line)
        self._show_busy()

    def fill(self, text: str) -> None:
        """Put a line on the prompt for the learner to check and run (palette, pager clicks)."""
        command = self.query_one(CommandLine)
        command.value = text
        command.cursor_position = len(text)
        command.focus()

    # -- actions (keys, palette, clicks) ----------------------------------------------------

    def action_fill(self, text: str) -> None:
        self.fill(text)

    def action_pick(self, kind: str, name: str) -> None:
        """A node or a job was clicked: it goes where the prompt wants one (`drain ` becomes
        `drain gpu-a-2 `), or, on an empty prompt, after the first look a person takes."""
        command = self.query_one(CommandLine)
        typed = command.value[: command.cursor_position]
        stem = typed if not typed or typed.endswith(" ") else typed[: typed.rfind(" ") + 1]
        if typed.strip() and name in candidates(stem, command.names):
            self.fill(stem + name + " ")
        else:
            # what a click puts on an empty prompt: the first look a person takes at it
            self.fill(f"{first_look(On(kind)).name} {name}")
        self._help(f"{name} is on the prompt: Enter runs it, or edit it first.")

    def action_fast_forward(self) -> None:
        """F7: the night at top speed until the next page or the learner's job stopping. It is
        an action like any typed line (saved, replayed, refused while a page is open), written
        as the catalog declares it; the page hold still applies when the page arrives."""
        self.run_line(FAST_FORWARD)
        self._show_header()

    def action_toggle_log(self) -> None:
        """The log over the whole panel area, or back to its place."""
        self.set_class(not self.has_class("-log-expanded"), "-log-expanded")
        if self.has_class("-log-expanded") and self.has_class("-narrow"):
            self.show_panel("log")
        self.query_one(LogPanel).scroll_end(animate=False)

    def action_search_log(self) -> None:
        search = self.query_one("#log-search", LogSearch)
        search.add_class("-open")
        if self.has_class("-narrow"):
            self.show_panel("log")
        search.focus()

    def close_search(self) -> None:
        search = self.query_one("#log-search", LogSearch)
        search.value = ""
        search.remove_class("-open")
        self.query_one(LogPanel).search("")
        self.pacing.typing = bool(self.query_one(CommandLine).value.strip())
        self.query_one(CommandLine).focus()
        self._show_header()

    def action_help(self, verb: str | None = None) -> None:
        if verb:
            name = " ".join(verb.lower().split())
            if name not in VERBS and name not in GROUPS:  # `help ckpt`: the ckpt actions
                heads = sorted({v.split()[0] for v in VERBS})
                self.log_line(
                    Text(
                        f"Not done: no action `{name}`; try one of: {', '.join(heads)}",
                        style="bold red",
                    )
                )
                return
            verb = name
        self.app.push_screen(HelpScreen(verb, self.driver.notes))

    def action_pause(self, paused: bool) -> None:
        self.pacing.paused = paused
        if not paused:
            self.pacing.acted()
        self.log_line(
            Text(
                "Paused. `resume` or F2 carries on." if paused else "Clock running.", style="grey62"
            )
        )
        self._show_header()

    def action_toggle_pause(self) -> None:
        self.action_pause(not self.pacing.paused)

    def action_slower(self) -> None:
        self.pacing.slower()
        self._show_header()

    def action_faster(self) -> None:
        self.pacing.faster()
        self._show_header()

    def action_set_speed(self, speed: int) -> None:
        self.pacing.set_speed(speed)
        self._show_header()

    def action_debrief(self) -> None:
        if self.ending:
            return
        if self.frame is not None and self.frame.snapshot.over:
            self.ending = True
            self.app.open_debrief()
            return

        def answer(yes: bool | None) -> None:
            if yes and not self.ending:
                self.ending = True
                self.log_line(
                    Text(
                        "Ending the night. The rest plays out without you, then the score.",
                        style="bold",
                    )
                )
                self.app.open_debrief()

        self.app.push_screen(
            ConfirmScreen(
                "End the night now and see the debrief?",
                "The rest of the night plays out with no more actions from you, then it is scored.",
                yes="End the night",
                no="Keep going",
            ),
            answer,
        )

    def action_next_panel(self) -> None:
        keys = [key for key, _ in PANELS]
        self.show_panel(keys[(keys.index(self.active) + 1) % len(keys)])

    def show_panel(self, key: str) -> None:
        self.active = key
        for widget in self.query(".panel"):
            widget.set_class(widget.id == key, "-active")
        tabs = self.query_one(Tabs)
        if tabs.active != f"tab-{key}":
            tabs.active = f"tab-{key}"

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        key = (event.tab.id or "tab-log").removeprefix("tab-")
        if key != self.active:
            self.show_panel(key)
        self.query_one(CommandLine).focus()

    def action_scroll_log(self, direction: int) -> None:
        target = (
            self.query_one(f"#{self.active}")
            if self.has_class("-narrow")
            else self.query_one("#log")
        )
        if direction < 0:
            target.scroll_page_up()
        else:
            target.scroll_page_down()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "next_panel":
            return self.has_class("-narrow")
        return True


def _around(frame: Frame) -> tuple[tuple[Event, ...], tuple[Event, ...]]:
    """A frame's events split around its action: what happened before the line was typed, and
    what happened from then on. The engine runs an action's first effects (a node starts
    draining) before it records the line, and an action takes night time, so every event from
    the action's start on is read as something it caused and is logged after the command and
    its answer, in time order."""
    result = frame.result
    if result is None:
        return frame.events, ()
    before = tuple(e for e in frame.events if e.time < result.time)
    after = tuple(e for e in frame.events if e.time >= result.time)
    return before, after
