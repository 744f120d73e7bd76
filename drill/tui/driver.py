"""The TUI's hold on one Session: every engine call runs in a thread worker, one at a time,
under one lock, and reports back with a message. The event loop never waits on a replica step
or a checkpoint write.

Calls are queued on the event loop's side (`act`, `advance`, `score`) and started one after
another, so the engine sees them in the order the learner made them.
"""

from __future__ import annotations

import threading
import traceback
from collections import deque
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from drill.tui.messages import (
    BaselineReady,
    Debrief,
    EngineFailed,
    Frame,
    FrameReady,
    Scored,
    SessionFailed,
    SessionReady,
)

if TYPE_CHECKING:
    from textual.app import App

    from drill.incident.loader import LoadedIncident
    from drill.saves import Save
    from drill.session import Session

ENGINE_GROUP = "engine"


@dataclass(frozen=True)
class NightSpec:
    loaded: LoadedIncident
    seed: int
    backend: str = "inprocess"
    save_path: Path | None = None
    resume: Save | None = None
    ranks: int | None = None

    @property
    def incident(self):
        return self.loaded.incident


def open_session(spec: NightSpec) -> Session:
    """A new session, or one rebuilt from its save (the same way `drill run --resume` does)."""
    from drill.session import Session

    if spec.resume is None:
        return Session.start(spec.loaded, spec.seed, spec.backend, spec.save_path, spec.ranks)
    return Session.resume(spec.loaded, spec.resume)


class NightDriver:
    def __init__(self, app: App, spec: NightSpec):
        self.app = app
        self.spec = spec
        self.lock = threading.Lock()
        self.session: Session | None = None
        self.frame: Frame | None = None
        self.notes: dict[str, str] = {}
        self.baseline: tuple[float, ...] = ()
        self.error: str | None = None
        self.failed = False  # an engine call raised: stop driving the night
        self.closed = False
        self.finished = False  # the score line is in the save
        self.busy = False
        self.pending: deque[tuple[str, object]] = deque()
        self._saved_texts: dict[str, str] = dict(spec.resume.texts) if spec.resume else {}

    # -- state the screens read -------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return self.session is not None

    @property
    def idle(self) -> bool:
        return not self.busy and not self.pending

    @property
    def save_path(self) -> Path | None:
        return self.session.save_path if self.session else None

    @property
    def saved_texts(self) -> dict[str, str]:
        return dict(self._saved_texts)

    # -- building ---------------------------------------------------------------------------

    def build(self) -> None:
        """Load torch (for the inprocess backend) and build the session off the event loop."""
        self.app.run_worker(self._build, thread=True, group=ENGINE_GROUP, exit_on_error=False)

    def _build(self) -> None:
        worker = get_current_worker()
        with self.lock:
            try:
                session = open_session(self.spec)
            except Exception as exc:  # a bad save or incident: say so on screen
                self._post(SessionFailed(str(exc)))
                return
            if worker.is_cancelled or self.closed:
                session.close()
                return
            self.session = session
            from drill.engine.actions.storage import incident_notes

            self.notes = incident_notes(session.drill.ctx)
            frame = self._read(None, "start")
        self.frame = frame
        self._post(SessionReady(frame, self.notes))
        if worker.is_cancelled:
            return
        # The undisturbed run, drawn behind the live curve. It may train the baseline the first
        # time, so it runs here, while the learner reads the briefing.
        with self.lock:
            if self.closed:
                return
            try:
                losses = tuple(session.drill.baseline_losses())
            except Exception:
                losses = ()
        self.baseline = losses
        self._post(BaselineReady(losses))

    def _post(self, message) -> None:
        message.origin = self  # the app ignores reports from a night it has moved on from
        self.app.post_message(message)

    # -- queued engine calls ----------------------------------------------------------------

    def act(self, text: str) -> None:
        self.pending.append(("act", text))
        self.pump()

    def advance(self, seconds: float) -> bool:
        """Advance only when nothing else is waiting: the clock never jumps an action's queue."""
        if seconds <= 0 or not self.idle or not self.ready or self.failed:
            return False
        self.pending.append(("advance", seconds))
        self.pump()
        return True

    def score(self) -> None:
        self.pending.append(("score", None))
        self.pump()

    def pump(self) -> None:
        if self.busy or not self.pending or not self.ready or self.closed or self.failed:
            return
        kind, arg = self.pending.popleft()
        self.busy = True
        self.app.run_worker(
            partial(self._run, kind, arg), thread=True, group=ENGINE_GROUP, exit_on_error=False
        )

    def done(self) -> None:
        """Called on the event loop when a queued call has reported."""
        self.busy = False
        self.pump()

    def _run(self, kind: str, arg: object) -> None:
        with self.lock:
            if self.closed or self.session is None:
                return
            try:
                if kind == "score":
                    message = Scored(self._debrief())
                else:
                    result = None
                    if kind == "act":
                        result = self.session.act(str(arg))
                    else:
                        self.session.drill.advance(float(arg))  # type: ignore[arg-type]
                    frame = self._read(result, kind)
                    message = FrameReady(frame)
            except Exception:
                self._post(EngineFailed(kind, traceback.format_exc(limit=6)))
                return
        self._post(message)

    def _read(self, result, source: str) -> Frame:
        from drill.engine.storage_view import storage_view

        drill = self.session.drill  # type: ignore[union-attr]
        return Frame(drill.snapshot(), storage_view(drill), tuple(drill.events()), result, source)

    def _debrief(self) -> Debrief:
        """The rest of the night plays out, the save gets its score line, and the reference's
        actions come from the par cache the score just filled."""
        from drill.engine.par import reference_actions

        drill = self.session.drill  # type: ignore[union-attr]
        score = self.session.finish()  # type: ignore[union-attr]
        self.finished = True
        reference = reference_actions(
            drill.incident, drill.seed, drill.backend, cache_dir=drill.cache_dir
        )
        mine = [
            {"time": a.time, "clock": drill.clock(a.time), "text": a.text, "accepted": a.accepted}
            for a in drill.actions
        ]
        snapshot = drill.snapshot()
        if not self.baseline:
            try:
                self.baseline = tuple(drill.baseline_losses())
            except Exception:
                self.baseline = ()
        return Debrief(
            score=score,
            reference=reference,
            mine=mine,
            losses=snapshot.losses,
            baseline=self.baseline,
            steps=drill.incident.learner_job.steps,
            final_step=drill.learner_job.step,
            backend=drill.backend,
            end_clock=drill.clock(drill.end_time),
        )

    # -- the learner's words and the end ----------------------------------------------------

    def save_texts(self, texts: dict[str, str]) -> int:
        """Append the texts that changed to the save (a save may carry texts after its score:
        the debrief is where the learner writes them)."""
        changed = {k: v for k, v in texts.items() if self._saved_texts.get(k, "") != v}
        if not changed or self.session is None or self.session.writer is None:
            return 0
        with self.lock:
            if self.closed:
                return 0
            for key, value in changed.items():
                self.session.writer.text(key, value)
                self._saved_texts[key] = value
        return len(changed)

    def finalize(self, texts: dict[str, str] | None = None) -> None:
        """Leaving a night: the learner's last words, then close the save."""
        if texts:
            self.save_texts(texts)
        self.close()

    def close(self) -> None:
        """Close the save writer and the replica. Waits for a call in flight to finish."""
        with self.lock:
            if self.closed:
                return
            self.closed = True
            if self.session is not None:
                self.session.close()
