"""The 3am Drill app: picker, briefing, plan, night, debrief.

The app owns the flow between screens and routes the engine worker's messages to them. It does
not import torch: the picker or the briefing is drawn first, then the inprocess backend loads
torch in a worker while the learner reads. No save is written until the night starts.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand

from drill.tui.bindings import bindings
from drill.tui.messages import (
    BaselineReady,
    EngineFailed,
    FrameReady,
    IncidentLoaded,
    IncidentRefused,
    Progress,
    Scored,
    SessionFailed,
    SessionReady,
    WarmedUp,
)
from drill.tui.pacing import DEFAULT_SPEED, Pacing

if TYPE_CHECKING:  # the driver brings the engine, which the picker does not need
    from drill.tui.driver import NightDriver
    from drill.tui.palette import AppCommands


def app_commands() -> type[AppCommands]:
    """The palette's provider, imported when the palette first opens: its module brings the
    engine's action catalog, which no first frame draws."""
    from drill.tui.palette import AppCommands

    return AppCommands


class DrillApp(App[int]):
    CSS_PATH = Path(__file__).with_name("drill.tcss")  # absolute: subclasses may live anywhere
    TITLE = "3am Drill"
    COMMANDS = App.COMMANDS | {app_commands}
    BINDINGS = bindings("app")

    def __init__(
        self,
        *,
        loaded=None,
        seed: int | None = None,
        backend: str = "inprocess",
        save_path: str | Path | None = None,
        resume=None,
        ranks: int | None = None,
        hard: bool = False,
        saves_dir: Path | None = None,
        speed: int = DEFAULT_SPEED,
        paused: bool = False,
        cursor_blink: bool = True,
        config_dir: Path | None = None,
        replica: str | None = None,
        course=None,
    ) -> None:
        super().__init__()
        from drill.tui.config import config_dir as default_config_dir
        from drill.tui.config import load_config

        self.config_folder = Path(config_dir) if config_dir else default_config_dir()
        self.config = load_config(self.config_folder)
        self.loaded = loaded
        # The replica a new night trains (--replica or the project's); a resumed night keeps
        # the one its save ran.
        self.replica = replica
        # A course's pack (drill.classroom.pack_play.CoursePlay): its nights, in its order, for
        # the picker; whose nights they are (asked first); the learner's seed for each.
        self.course = course
        self.seed = seed
        self.backend = backend
        self.ranks = ranks
        self.save_path = Path(save_path) if save_path else None
        self.resume = resume
        self.hard = hard
        self.saves_dir = saves_dir
        self.start_speed = speed
        self.start_paused = paused
        self.cursor_blink_enabled = cursor_blink
        self.driver: NightDriver | None = None
        self.pacing = Pacing(speed=speed, hard=hard, paused=paused)
        self._quitting = False
        # (screen, torch imported?) when the first screen was drawn, before any slow work.
        self.first_frame: tuple[str, bool] | None = None
        # Bad input the incident's full load found after the first frame: `drill play`
        # raises it once the terminal is restored, so it is one line and exit 2.
        self.refused: Exception | None = None

    # -- the flow ---------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._apply_config()
        if self.resume is None and self.course is not None and self.course.learner is None:
            from drill.tui.screens.learner import LearnerScreen

            self.push_screen(LearnerScreen(self.course, self._first_screen))
            return
        self._first_screen()

    def _first_screen(self) -> None:
        if self.resume is not None:
            self.begin(
                self.loaded, seed=self.resume.seed, backend=self.resume.backend, resume=self.resume
            )
        elif self.loaded is not None:
            self.begin(self.loaded, seed=self.seed, backend=self.backend, save_path=self.save_path)
        else:
            self._show(self._picker())

    def _picker(self):
        from drill.tui.screens.picker import PickerScreen

        if self.course is not None:
            return PickerScreen(
                self.saves_dir, self.course.files, course_title=self.course.course.title
            )
        return PickerScreen(self.saves_dir)

    def _apply_config(self) -> None:
        """The learner's theme and keys from config.toml; what is wrong in it is a notice,
        never a crash."""
        from drill.tui.bindings import BY_ID
        from drill.tui.config import unknown_ids

        config = self.config
        problems = list(config.problems)
        if config.theme:
            if config.theme in self.available_themes:
                self.theme = config.theme
            else:
                known = ", ".join(sorted(self.available_themes))
                problems.append(f"{config.path}: no theme {config.theme!r}; try one of: {known}")
        unknown = unknown_ids(config.keymap, set(BY_ID))
        for binding_id in unknown:
            problems.append(
                f"{config.path}: no key binding with id {binding_id!r}; F1 lists the ids"
            )
        self.set_keymap({k: v for k, v in config.keymap.items() if k not in unknown})
        for problem in problems:
            self.notify(problem, title="config.toml", severity="warning", timeout=12)
        self._theme_loaded = True

    def watch_theme(self, theme: str) -> None:
        """A theme picked from the palette is kept for next time, in config.toml."""
        if not getattr(self, "_theme_loaded", False) or theme == self.config.theme:
            return
        from drill.tui.config import save_theme

        self.config.theme = theme
        try:
            save_theme(theme, self.config_folder)
        except OSError as exc:
            self.notify(f"Could not keep the theme in config.toml: {exc}", severity="warning")

    def _show(self, screen) -> None:
        """Replace the current step of the flow (modal screens stay out of it)."""
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def drawn(self, screen) -> None:
        """A flow screen has been drawn for the first time. The slow work waits for this, so
        the learner sees the picker or the briefing before torch loads."""
        if self.first_frame is None:
            self.first_frame = (type(screen).__name__, "torch" in sys.modules)
        if (
            type(screen).__name__ == "BriefingScreen"
            and self.driver is not None
            and self.driver.spec is screen.spec
            and not self.driver.error  # back from a night that could not start: no retry
        ):
            self.driver.warm_up()

    def begin(self, loaded, *, seed=None, backend=None, save_path=None, resume=None) -> None:
        """Show a night's briefing; it warms up once it is on screen. Nothing is written yet."""
        from drill.tui.deferred_incident import is_deferred
        from drill.tui.driver import NightDriver, NightSpec
        from drill.tui.screens.briefing import BriefingScreen

        if resume is None and not is_deferred(loaded):  # a deferred one chooses as it loads
            from drill.replica_choice import with_replica

            loaded = with_replica(loaded, self.replica)
        incident = loaded.incident
        if seed is None and self.course is not None:
            seed = self.course.seed_for(incident.id)  # the learner's own seed of the night
        spec = NightSpec(
            loaded=loaded,
            seed=incident.seeds[0] if seed is None else seed,
            backend=backend or self.backend,
            save_path=save_path,
            resume=resume,
            ranks=self.ranks,
            learner=self.course.learner if self.course is not None and resume is None else None,
        )
        self.driver = NightDriver(self, spec)
        self.pacing = Pacing(speed=self.start_speed, hard=self.hard, paused=self.start_paused)
        self._show(BriefingScreen(spec, resumed=resume is not None))

    def after_briefing(self) -> None:
        if not self.driver.loaded:  # drawn from the header, still loading: go on once it is
            self.driver.start_asked = True
            return
        spec = self.driver.spec
        if spec.incident.plan is not None and spec.resume is None:
            from drill.tui.screens.plan import PlanScreen

            self._show(PlanScreen(spec.incident))
        else:
            self.start_night([])

    def start_night(self, plan: list[str]) -> None:
        """The night starts here: the session, and with it the save."""
        from drill.tui.screens.night import NightScreen

        if self.driver.error:  # it failed while the plan was on screen: the briefing says why
            self._back_to_briefing()
            return
        self.driver.open()
        self._show(NightScreen(self.driver, self.pacing, plan))

    def _back_to_briefing(self) -> None:
        from drill.tui.screens.briefing import BriefingScreen

        spec = self.driver.spec
        self._show(BriefingScreen(spec, resumed=spec.resume is not None))

    def open_debrief(self) -> None:
        from drill.tui.screens.debrief import DebriefScreen

        self._show(DebriefScreen(self.driver))
        self.driver.score()

    async def _finish_driver(self) -> None:
        """Close the night that is on screen: the debrief's answers and score, or just the save."""
        driver = self.driver
        if driver is None:
            return
        screen = self._screen("DebriefScreen")
        if screen is not None:
            await asyncio.to_thread(driver.finalize, screen.texts())
        else:
            await asyncio.to_thread(driver.close)

    def replay(self) -> None:
        """A new night of the same incident and seed, in a new save."""

        async def go() -> None:
            driver = self.driver
            await self._finish_driver()
            spec = driver.spec
            self.begin(spec.loaded, seed=spec.seed, backend=spec.backend)

        self.run_worker(go(), exclusive=True, group="flow")

    def next_incident(self) -> None:
        """The incident after this one in the suggested order (the first again after the
        last), on the same backend."""
        from drill.tui.screens.picker import next_entry

        async def go() -> None:
            driver = self.driver
            await self._finish_driver()
            if self.course is not None:
                from drill.incident.loader import load_incident

                night = self.course.next_night(driver.spec.incident.id)
                loaded = await asyncio.to_thread(load_incident, night.incident)
                self.begin(loaded, backend=driver.spec.backend)
                return
            following = next_entry(driver.spec.incident.id, self.saves_dir)
            if following is None:  # nothing else can be listed: the picker says why
                self.driver = None
                self._show(self._picker())
                return
            self.begin(following.loaded, backend=driver.spec.backend)

        self.run_worker(go(), exclusive=True, group="flow")

    def action_picker(self) -> None:
        from drill.tui.screens.confirm import ConfirmScreen

        async def go() -> None:
            await self._finish_driver()
            self.driver = None
            self._show(self._picker())

        if self._screen("NightScreen") is not None:

            def answer(yes: bool | None) -> None:
                if yes:
                    self.run_worker(go(), exclusive=True, group="flow")

            self.push_screen(
                ConfirmScreen(
                    "Leave this night for the list of incidents?",
                    f"Everything you did is saved in {self._save_name()}; carry it on later with"
                    " `drill play --resume SAVE`.",
                ),
                answer,
            )
        else:
            self.run_worker(go(), exclusive=True, group="flow")

    def _save_name(self) -> str:
        path = self.driver.save_path if self.driver else None
        return str(path) if path else "the save"

    def _screen(self, name: str):
        return next((s for s in self.screen_stack if type(s).__name__ == name), None)

    # -- quitting ---------------------------------------------------------------------------

    def action_quit(self) -> None:
        from drill.tui.screens.confirm import ConfirmScreen

        if self._quitting or isinstance(self.screen, ConfirmScreen):
            return
        # Say only what is true: before the night starts (a briefing, a replay's briefing)
        # there is no save yet, and on the picker there is no night at all.
        path = self.driver.save_path if self.driver is not None else None
        if path is not None:
            detail = f"Every action you took is already in {path}."
        elif self.driver is not None:
            detail = "Nothing of this night is saved yet, so there is nothing to lose."
        else:
            detail = "No night is running, so there is nothing to lose."

        def answer(yes: bool | None) -> None:
            if yes:
                self._quitting = True
                self.run_worker(self._quit(), exclusive=True, group="flow")

        self.push_screen(ConfirmScreen("Quit 3am Drill?", detail, yes="Quit", no="Stay"), answer)

    async def _quit(self) -> None:
        await self._finish_driver()
        self.exit(0)

    def action_help(self) -> None:
        night = self._screen("NightScreen")
        if night is not None and self.screen is night:
            night.action_help()
            return
        from drill.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen(None, self.driver.notes if self.driver else None))

    def get_system_commands(self, screen):
        """Textual's own, less its Quit: the game's Quit says what leaving does (the night's
        palette has it; elsewhere it is here). Help is AppCommands', on every screen."""
        for command in super().get_system_commands(screen):
            if command.title != "Quit":
                yield command
            elif type(screen).__name__ != "NightScreen":
                yield SystemCommand("Quit", "Leave 3am Drill", self.action_quit)

    # -- the engine worker's reports --------------------------------------------------------

    def on_session_ready(self, message: SessionReady) -> None:
        if getattr(message, "origin", None) is not self.driver:
            return
        for screen in self.screen_stack:
            if type(screen).__name__ == "BriefingScreen":
                screen.refresh_status()
            elif type(screen).__name__ == "NightScreen":
                screen.session_ready()
        if self.driver is not None:
            self.driver.pump()

    def on_incident_loaded(self, message: IncidentLoaded) -> None:
        if getattr(message, "origin", None) is not self.driver or self.driver is None:
            return
        briefing = self._screen("BriefingScreen")
        if briefing is not None:
            briefing.spec = self.driver.spec
        if self.driver.start_asked:
            self.driver.start_asked = False
            self.after_briefing()

    def on_incident_refused(self, message: IncidentRefused) -> None:
        if getattr(message, "origin", None) is not self.driver:
            return
        self.refused = message.error
        self.exit(return_code=2)

    def on_warmed_up(self, message: WarmedUp) -> None:
        if getattr(message, "origin", None) is not self.driver:
            return
        briefing = self._screen("BriefingScreen")
        if briefing is not None:
            briefing.refresh_status()
        if self.driver is not None:
            self.driver.measure_par()  # torch is in and the baseline cached: par next

    def on_progress(self, message: Progress) -> None:
        if getattr(message, "origin", None) is not self.driver:
            return
        debrief = self._screen("DebriefScreen")
        if debrief is not None:
            debrief.show_progress(message)

    def on_session_failed(self, message: SessionFailed) -> None:
        if getattr(message, "origin", None) is not self.driver:
            return
        if self.driver is not None:
            self.driver.error = message.text
            if not self.driver.ready and (
                self._screen("NightScreen") is not None or self._screen("PlanScreen") is not None
            ):
                # Enter came while the cluster was getting ready, and it never got there: a
                # night screen would wait forever. The briefing shows the line and the way out.
                self._back_to_briefing()
                return
        for screen in self.screen_stack:
            if type(screen).__name__ == "BriefingScreen":
                screen.refresh_status()
            elif type(screen).__name__ == "NightScreen":
                screen.engine_failed(message.text)

    def on_frame_ready(self, message: FrameReady) -> None:
        if getattr(message, "origin", None) is not self.driver:
            return
        if self.driver is None:
            return
        self.driver.frame = message.frame
        self.driver.done()
        night = self._screen("NightScreen")
        if night is not None:
            night.show_frame(message.frame)

    def on_baseline_ready(self, message: BaselineReady) -> None:
        if getattr(message, "origin", None) is not self.driver:
            return
        night = self._screen("NightScreen")
        # Before its on_mount the night screen has no chart yet; on_mount reads driver.baseline.
        if night is not None and night.widgets_ready:
            from drill.tui.widgets.loss_chart import LossChart

            night.query_one(LossChart).update_data(baseline=message.losses)

    def on_scored(self, message: Scored) -> None:
        if getattr(message, "origin", None) is not self.driver:
            return
        if self.driver is not None:
            self.driver.done()
        debrief = self._screen("DebriefScreen")
        if debrief is not None:
            debrief.show(message.debrief)

    def on_engine_failed(self, message: EngineFailed) -> None:
        if getattr(message, "origin", None) is not self.driver:
            return
        if self.driver is not None:
            self.driver.failed = True
            self.driver.failure = message.text
            self.driver.done()
        for screen in self.screen_stack:
            if hasattr(screen, "engine_failed"):
                screen.engine_failed(message.text)
