"""The TUI's hold on one Session: every engine call runs in a thread worker, one at a time,
under one lock, and reports back with a message. The event loop never waits on a replica step
or a checkpoint write.

Two steps before the night, so that nothing is written until the learner starts it:
- `warm_up` (after the briefing is on screen): import torch and train or load the baseline for
  the real replica, or rebuild a resumed night from its save. No new file is written.
- `open` (when the night starts): `Session.start`, which writes the save's header. Quitting at
  the briefing or the plan leaves no empty save behind.

Calls are queued on the event loop's side (`act`, `advance`, `score`) and started one after
another, so the engine sees them in the order the learner made them.

Par and floor (drill/engine/scoring/par.py) depend only on the incident, the seed and the
backend, so once warm-up is done they are measured in a thread of their own (PAR_GROUP, never
the engine's queue, so no action waits behind them) while the learner plays. The debrief then
reads them from the cache, or waits for the measurement still running and says so. That worker
takes no lock of the driver's and never reports an error: if it fails or is stopped, the
debrief measures par itself as it always could.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import traceback
from collections import deque
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from drill.tui.deferred_incident import is_deferred
from drill.tui.messages import (
    BaselineReady,
    Debrief,
    EngineFailed,
    Frame,
    FrameReady,
    IncidentLoaded,
    IncidentRefused,
    Progress,
    Scored,
    SessionFailed,
    SessionReady,
    WarmedUp,
)

if TYPE_CHECKING:
    from textual.app import App

    from drill.incident.loader import LoadedIncident
    from drill.saves import Save
    from drill.session import Session

ENGINE_GROUP = "engine"
PAR_GROUP = "par"
# Backends whose par is measured in the background. Not gloo: its par nights start their own
# worker processes, which on a small machine compete with the learner's for the CPU while the
# learner's ranks rendezvous and wait out real process-group timeouts (the texts a hung rank
# prints come from those), and each group picks a free port by binding and releasing it, so
# two groups starting together can be handed the same one. The debrief measures it there.
BACKGROUND_PAR = ("sim", "inprocess")


@dataclass(frozen=True)
class NightSpec:
    # A DeferredIncident until the warm-up has loaded it (drill/tui/deferred_incident.py).
    loaded: LoadedIncident
    seed: int
    backend: str = "inprocess"
    save_path: Path | None = None
    resume: Save | None = None
    ranks: int | None = None
    learner: str | None = None  # whose night, in a course's pack (written into the save)

    @property
    def incident(self):
        return self.loaded.incident


def open_session(spec: NightSpec) -> Session:
    """A new session, or one rebuilt from its save (the same way `drill run --resume` does)."""
    from drill.session import Session

    if spec.resume is None:
        return Session.start(
            spec.loaded, spec.seed, spec.backend, spec.save_path, spec.ranks, learner=spec.learner
        )
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
        self.failure = ""  # its traceback, for the screen and for tests
        self.closed = False
        self.stopping = False  # leaving: long work stops at its next step
        self.finished = False  # the score line is in the save
        self.busy = False
        self.warm = False  # torch and the baseline are loaded (or the resumed night rebuilt)
        # The incident is fully loaded (False while the briefing is drawn from its header).
        self.loaded = not is_deferred(spec.loaded)
        self.start_asked = False  # Enter came before the load: start once it is done
        self.opening = False  # `open` was called: the session is on its way
        self.pending: deque[tuple[str, object]] = deque()
        self.current: tuple[str, object] | None = None  # the call a worker is running now
        # The background par and floor: when it started (monotonic), and set once it is over
        # (measured, failed or stopped).
        self.par_started: float | None = None
        self.par_done = threading.Event()
        self.par_worker = None  # its textual Worker, to tell one that never started
        self.par_thread: threading.Thread | None = None
        self.par_measured = False  # the background worker has them (cached or in memory)
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

    def warm_up(self) -> None:
        """Off the event loop, while the learner reads: the slow imports and the baseline, or
        the resumed night. Writes nothing new."""
        self.app.run_worker(self._warm_up, thread=True, group=ENGINE_GROUP, exit_on_error=False)

    def open(self) -> None:
        """The night starts: the session and its save. A resumed night is already open."""
        if self.opening:
            return
        self.opening = True
        if self.spec.resume is None:
            self.app.run_worker(self._open, thread=True, group=ENGINE_GROUP, exit_on_error=False)

    def _load_incident(self) -> bool:
        """The full load of an incident the briefing drew from its header; False when it
        failed (the app then ends with the loader's line, exit 2)."""
        if self.loaded:
            return True
        from drill.incident.errors import IncidentError
        from drill.replica_choice import ReplicaChoiceError, with_replica

        try:
            loaded = with_replica(self.spec.loaded.load(), self.app.replica)
        except (IncidentError, ReplicaChoiceError) as exc:
            self._post(IncidentRefused(exc))
            return False
        self.spec = dataclasses.replace(self.spec, loaded=loaded)
        self.loaded = True
        self._post(IncidentLoaded())
        return True

    def _warm_up(self) -> None:
        worker = get_current_worker()
        if not self._load_incident():
            return
        if self.spec.resume is not None:
            self._open()
            self.warm = self.session is not None
            self._post(WarmedUp())
            return
        if self.spec.backend == "inprocess":
            # A throwaway engine: it imports torch and loads (or trains, the first time) the
            # undisturbed run the live curve is drawn against. The real one is built at the
            # start of the night, in milliseconds once this has run.
            from drill.engine.drill import Drill

            with self.lock:
                if self.closed or worker.is_cancelled:
                    return
                try:
                    from drill.saves_dir import cache_dir

                    spare = Drill.create(
                        self.spec.incident,
                        self.spec.seed,
                        self.spec.backend,
                        self.spec.ranks,
                        cache_dir=cache_dir(),
                    )
                    try:
                        self.baseline = tuple(spare.baseline_losses())
                    finally:
                        spare.close()
                except Exception as exc:  # the replica cannot run here: say so on screen
                    # Set here, not only on the event loop: an `open` waiting on the lock
                    # must not try the same replica again.
                    self.error = _one_line(exc)
                    self._post(SessionFailed(self.error))
                    return
            self._post(BaselineReady(self.baseline))
        elif self.spec.backend == "gloo":
            from drill.replica_choice import warm_up

            warm_up()  # the workers start later; torch's import is the slow part
        self.warm = True
        self._post(WarmedUp())  # the app starts measure_par when it hears this

    def measure_par(self) -> None:
        """On the event loop, once warm-up is done: par and floor in a worker of their own,
        while the learner reads and plays."""
        if self.spec.backend not in BACKGROUND_PAR or self.par_started is not None:
            return
        if self.closed or self.stopping or self.error:
            return
        self.par_started = time.monotonic()
        self.par_worker = self.app.run_worker(
            self._measure_par, thread=True, group=PAR_GROUP, exit_on_error=False
        )

    def par_running(self) -> bool:
        """The background par is measuring now (or about to start)."""
        if self.par_started is None or self.par_done.is_set():
            return False
        from textual.worker import WorkerState

        state = getattr(self.par_worker, "state", None)
        return state in (WorkerState.PENDING, WorkerState.RUNNING)

    def _measure_par(self) -> None:
        from drill.engine.scoring.par import Stopped, par_and_floor, step_clock
        from drill.saves_dir import cache_dir

        worker = get_current_worker()
        self.par_thread = threading.current_thread()
        try:
            incident, seed = self._par_night()
            stop = partial(self._stopping, worker)
            if stop():
                return
            step_clock(incident, seed)
            par_and_floor(incident, seed, self.spec.backend, cache_dir=cache_dir(), stop=stop)
            self.par_measured = True
        except Stopped:
            pass  # leaving the night: the debrief measures it if it ever comes
        except Exception:  # noqa: S110 - the debrief measures it itself and reports a failure
            pass
        finally:
            self.par_done.set()

    def _par_night(self):
        """The incident and seed the session plays (a resumed night's are the save's)."""
        session = self.session
        if session is not None:
            return session.drill.incident, session.drill.seed
        return self.spec.incident, self.spec.seed

    def _open(self) -> None:
        worker = get_current_worker()
        with self.lock:
            if self.closed or worker.is_cancelled or self.error:
                return
            try:
                session = open_session(self.spec)
            except Exception as exc:  # a bad save or incident: say so on screen
                self._post(SessionFailed(_one_line(exc)))
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
        if self.baseline or worker.is_cancelled:
            return
        # The gloo backend, or a resume: the baseline comes from the live session.
        with self.lock:
            if self.closed:
                return
            losses = tuple(session.drill.baseline_losses())
        self.baseline = losses
        self._post(BaselineReady(losses))

    def _post(self, message) -> None:
        message.origin = self  # the app ignores reports from a night it has moved on from
        self.app.post_message(message)

    # -- queued engine calls ----------------------------------------------------------------

    def act(self, text: str) -> None:
        self.pending.append(("act", text))
        self.pump()

    def act_first(self, lines: list[str]) -> None:
        """Lines that must run before anything typed while the session was opening (the
        plan's `set` lines belong at the night's start)."""
        self.pending.extendleft(("act", line) for line in reversed(lines))
        self.pump()

    def advance(self, seconds: float) -> bool:
        """Advance only when nothing else is waiting: the clock never jumps an action's queue."""
        if seconds <= 0 or not self.idle or not self.ready or self.failed:
            return False
        self.pending.append(("advance", seconds))
        self.pump()
        return True

    def acts(self) -> list[str]:
        """The lines on their way to the engine: the one running now, then those queued."""
        calls = [self.current, *self.pending] if self.current else list(self.pending)
        return [str(arg) for kind, arg in calls if kind == "act"]

    def score(self) -> None:
        self.pending.append(("score", None))
        self.pump()

    def pump(self) -> None:
        if self.busy or not self.pending or not self.ready or self.closed or self.failed:
            return
        kind, arg = self.pending.popleft()
        self.busy = True
        self.current = (kind, arg)
        self.app.run_worker(
            partial(self._run, kind, arg), thread=True, group=ENGINE_GROUP, exit_on_error=False
        )

    def done(self) -> None:
        """Called on the event loop when a queued call has reported."""
        self.busy = False
        self.current = None
        self.pump()

    def _run(self, kind: str, arg: object) -> None:
        worker = get_current_worker()
        with self.lock:
            if self.closed or self.session is None:
                return
            try:
                if kind == "score":
                    debrief = self._debrief(worker)
                    if debrief is None:
                        return  # cancelled: the learner left before the score
                    message = Scored(debrief)
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
        from drill.engine.actions.catalog import VERBS, Kind, On
        from drill.engine.storage_view import storage_view

        drill = self.session.drill  # type: ignore[union-attr]
        # After a look at the volumes (`df`) the panel shows the moment that look read, not the
        # one 10 s later when it finished: its "as of" and its numbers then match the log.
        verb = VERBS.get(result.verb) if result is not None and result.accepted else None
        reads_volumes = verb is not None and verb.kind == Kind.LOOK and verb.on == On.VOLUME
        at = result.time if result is not None and reads_volumes else None
        view = storage_view(drill, at)
        return Frame(drill.snapshot(), view, tuple(drill.events()), result, source)

    SCORING = (
        "Playing out the rest of the night",
        "Measuring par and floor: the reference solution and an empty night on the same seed",
        "Scoring your night and writing the score to the save",
    )
    # Stage 1's words when the background worker measured par and floor, or is measuring them.
    PAR_READY = "Reading par and floor, measured in the background while you played"
    PAR_WAITING = "Measuring par and floor: started in the background {ago:.0f} s ago"

    def _debrief(self, worker) -> Debrief | None:
        """The rest of the night plays out, par and floor are measured (or read from the
        cache), the save gets its score line, and the reference's actions come from the par
        cache the score just filled. Says how far it has got; stops between steps when the
        learner leaves (None)."""
        from drill.engine.scoring.par import par_and_floor, reference_actions

        drill = self.session.drill  # type: ignore[union-attr]
        stages = len(self.SCORING)
        if not self._play_out(drill, worker):
            return None
        if not self._wait_for_par(worker):
            return None
        par_and_floor(drill.incident, drill.seed, drill.backend, cache_dir=drill.cache_dir)
        if self._stopping(worker):
            return None
        self._progress(2, None)
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
            self.baseline = tuple(drill.baseline_losses())
        self._progress(stages - 1, 1.0)
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

    def _play_out(self, drill, worker) -> bool:
        """The rest of the night at full speed, with how far it got and about how long the
        rest takes (from the share done and the time it took). False: the learner left."""
        start, end = drill.now, drill.night_end
        began = time.monotonic()
        self._progress(0, 0.0)
        while not drill.over:
            if self._stopping(worker):
                return False
            drill.advance(300.0)  # the same chunks as Session.finish: the same night
            done = (drill.now - start) / (end - start) if end > start else 1.0
            text = f"{self.SCORING[0]}, {drill.clock()} of {drill.clock(end)}"
            if 0 < done < 1:
                left = (time.monotonic() - began) * (1 - done) / done
                text += f", about {_seconds(left)} left"
            self._progress(0, done, text)
        return not self._stopping(worker)

    def _wait_for_par(self, worker) -> bool:
        """If the background worker is still measuring par and floor, wait for it, saying
        so, rather than measure them a second time. False: the learner left."""
        if self.par_started is None:
            self._progress(1, None)
            return not self._stopping(worker)
        while self.par_running():
            if self._stopping(worker):
                return False
            ago = time.monotonic() - self.par_started
            self._progress(1, None, self.PAR_WAITING.format(ago=ago))
            self.par_done.wait(0.5)
        self._progress(1, None, self.PAR_READY if self.par_measured else None)
        return not self._stopping(worker)

    def _progress(self, stage: int, fraction: float | None, text: str | None = None) -> None:
        words = text or self.SCORING[stage]
        self._post(Progress("score", stage, len(self.SCORING), words, fraction))

    def _stopping(self, worker) -> bool:
        return self.stopping or worker.is_cancelled

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
        """Leaving a night: the learner's last words, then close the save. Scoring still in
        flight stops first (the night stays resumable, and the debrief can score it then)."""
        self.stopping = True
        if texts:
            self.save_texts(texts)
        self.close()

    def close(self) -> None:
        """Close the save writer and the replica. Long work in flight stops at its next step;
        a call in flight is waited for, and so is the background par (it stops at its next
        step), so no thread of this night outlives it."""
        self.stopping = True
        with self.lock:
            if not self.closed:
                self.closed = True
                if self.session is not None:
                    self.session.close()
        # The worker's thread belongs to the event loop's pool and stays for its next job:
        # what is waited for is the measurement returning.
        if self.par_running() and threading.current_thread() is not self.par_thread:
            self.par_done.wait(timeout=30)


def _seconds(seconds: float) -> str:
    """A time estimate in words: "4 s", "2 min 10 s"."""
    whole = max(1, round(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
