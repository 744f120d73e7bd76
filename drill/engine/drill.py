"""The one engine: the TUI, `drill run`, `drill replay` and the tests all drive this object.

The night does not judge itself: its Score is `score_drill(drill)` in drill/engine/scoring/par.py,
a layer above this one (scoring plays par, floor and the ensemble's nights through this engine).

Time rules: an action applies at the moment it starts and then keeps the operator busy for its
cost while the world moves on. `advance` runs the world forward and returns only when every event
and every training step up to that time has happened. Nothing here reads a wall clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from drill.engine import signals
from drill.engine.actions import dispatch
from drill.engine.actions.context import Context
from drill.engine.actions.errors import Reject
from drill.engine.actions.parser import parse
from drill.engine.gloo_training import GlooTraining
from drill.engine.replica_training import ReplicaTraining
from drill.engine.snapshot import Snapshot, build_snapshot
from drill.incident.models import Incident
from drill.sim import collector
from drill.sim.events import ActionTaken, Event
from drill.sim.jobs import COMPLETED
from drill.sim.training import TrainingBackend
from drill.sim.world import World


@dataclass(frozen=True)
class ActionResult:
    time: float  # when it started
    end: float  # when the operator is free again
    text: str
    accepted: bool
    output: str
    verb: str = ""

    def to_json(self) -> dict:
        return {
            "time": round(self.time, 3),
            "end": round(self.end, 3),
            "text": self.text,
            "accepted": self.accepted,
            "result": self.output,
        }


BACKENDS = ("inprocess", "gloo", "sim")


def make_training(
    incident: Incident, backend: str, ranks: int | None = None, *, cache_dir: Path | None = None
) -> TrainingBackend | None:
    """`inprocess` trains the real replica in this process; `gloo` as `ranks` real processes;
    `sim` only counts steps (fast, no torch). `cache_dir` keeps the replica's baseline between
    runs; without it the baseline lives only as long as this run."""
    if backend == "sim":
        return None
    if backend == "inprocess":
        return ReplicaTraining(incident, ranks=ranks, cache_dir=cache_dir)
    if backend == "gloo":
        return GlooTraining(incident, ranks=ranks or 2, cache_dir=cache_dir)
    raise ValueError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")


@dataclass
class Drill:
    incident: Incident
    seed: int
    training: TrainingBackend | None = None
    backend: str = "sim"
    # Where par, floor and the replica's baseline are cached; the session layer passes
    # saves/cache. None keeps them for this process only. The engine never picks a folder itself.
    cache_dir: Path | None = None
    # A seeded variant of the night (drill/engine/scoring/ensemble.py): other teams and random failures
    # redrawn, everything the learner could see kept. None is the night itself.
    variant: int | None = None
    world: World = field(init=False)
    ctx: Context = field(init=False)
    actions: list[ActionResult] = field(default_factory=list, init=False)
    _cursor: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.world = World(self.incident, self.seed, self.training, variant=self.variant)
        self.ctx = Context(self.world, parse=parse)

    @classmethod
    def create(
        cls,
        incident: Incident,
        seed: int,
        backend: str = "inprocess",
        ranks: int | None = None,
        *,
        cache_dir: Path | None = None,
    ) -> Drill:
        training = make_training(incident, backend, ranks, cache_dir=cache_dir)
        return cls(incident, seed, training, backend, cache_dir)

    # -- time -------------------------------------------------------------------------------

    @property
    def now(self) -> float:
        return self.world.now

    @property
    def night_end(self) -> float:
        return self.incident.night.length

    @property
    def learner_job(self):
        return self.world.jobs[self.incident.learner_job.name]

    @property
    def over(self) -> bool:
        return self.now >= self.night_end or self.learner_job.state == COMPLETED

    @property
    def end_time(self) -> float:
        """When the night ended: the learner's job completing, or the end of the night."""
        job = self.learner_job
        if job.state == COMPLETED and job.attempts and job.attempts[-1].end is not None:
            return job.attempts[-1].end
        return min(self.now, self.night_end)

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time only moves forward")
        self.world.run_until(min(self.now + seconds, self.night_end))

    def advance_to(self, time: float) -> None:
        if time > self.now:
            self.advance(time - self.now)

    def play_out(self, chunk: float = 300.0) -> None:
        """Run the rest of the night, stopping early once the learner's job has completed.
        The collector stays off from chunk to chunk too (drill/sim/collector.py)."""
        with collector.paused():
            while not self.over:
                self.advance(chunk)

    # -- acting -----------------------------------------------------------------------------

    def act(self, text: str) -> ActionResult:
        start = self.now
        verb = ""
        try:
            if self.over:
                raise Reject("the night is over; start the debrief")
            command = parse(text)
            verb = command.verb
            output, cost, until_signal = dispatch.run(self.ctx, command)
        except Reject as rejection:
            result = ActionResult(start, start, text.strip(), False, str(rejection), verb)
            self.actions.append(result)
            self.world.emit(
                ActionTaken(self.now, "you", text.strip(), accepted=False, result=str(rejection))
            )
            return result
        self.world.emit(ActionTaken(self.now, "you", text.strip(), accepted=True))
        self.ctx.done.append((command.verb, tuple(word.lower() for word in command.args)))
        if until_signal:
            output = self._fast_forward(cost, start)
        else:
            self.advance(cost)
        result = ActionResult(start, self.now, text.strip(), True, output, verb)
        self.actions.append(result)
        return result

    def _fast_forward(self, limit: float, start: float) -> str:
        """Run the night until the learner would notice something (signals.py), for at most
        `limit`; the action costs the time that ran. Says how long and what stopped it."""
        mine = self.incident.learner_job.name
        seen: list[Event] = []

        def stop_at(event: Event) -> bool:
            if signals.noticed(event, mine):
                seen.append(event)  # a page and the job stopping can come in the same moment
                return True
            return False

        self.world.run_until(min(self.now + limit, self.night_end), stop_at=stop_at)
        return signals.waited(self.world, start, seen, mine)

    # -- reading ----------------------------------------------------------------------------

    def events(self) -> list[Event]:
        """What happened since the last call, as a screen may show it: the world's own records
        of which fault fired, or whose work an action harmed, stay out."""
        new = self.world.timeline[self._cursor :]
        self._cursor = len(self.world.timeline)
        return [event for event in new if not event.hidden]

    def snapshot(self) -> Snapshot:
        return build_snapshot(
            self.world, self.learner_job, self.night_end, self.over, self.ctx.inspected
        )

    def replica_report(self):
        """The replica's measured outcome, or None when only the simulation ran."""
        report = getattr(self.training, "report", None)
        return report(self.learner_job.step) if report else None

    def baseline_losses(self) -> list[float]:
        """The undisturbed run's loss curve, for drawing behind the live one; empty without
        the replica. Slow the first time (it may train the baseline): call it off the UI thread."""
        losses = getattr(self.training, "baseline_losses", None)
        return losses() if losses else []

    def close(self) -> None:
        closer = getattr(self.training, "close", None)
        if closer:
            closer()

    def clock(self, seconds: float | None = None) -> str:
        return self.world.clock.label(self.now if seconds is None else seconds)
