"""When each fault of the incident fires, and what it picked.

Fire times (with seeded jitter) are fixed when the night is built, in whole seconds, so a
reference solution can name them; targets are drawn when the fault fires, from the placement of
that moment, with the fault's own seeded stream. A fault with a `trigger` (drill/faults/triggers.py)
has its clock started by what happens in the night instead: another fault firing, a job starting
again, a job starting a checkpoint write, or a page; its fire time is known only then, still in
whole seconds. What a fault then does is its kind's business
(drill/faults); what that does to jobs and nodes is drill/sim/failures.py.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from drill.faults import KINDS, Pick
from drill.faults.base import Target
from drill.faults.targets import select
from drill.sim import fault_fields
from drill.sim.events import FaultFired
from drill.sim.rng import substream
from drill.states import JobState

if TYPE_CHECKING:
    import simpy

    from drill.sim.world_view import SimWorld as World


class FaultSchedule:
    def __init__(self, world: World):
        self.world = world
        self.times: dict[str, float] = {}
        self.chosen: dict[str, list[Pick]] = {}
        self.fired: set[str] = set()
        self.fired_at: dict[str, float] = {}  # later than `times` when its job was not running
        self._placed: dict[str, list] = {}  # job -> events that wake faults waiting for it
        # Triggered faults waiting for what starts their clock: (event, subject) -> faults.
        self._armed: dict[tuple[str, str], list] = {}
        self._fired_events: dict[str, simpy.Event] = {}  # fault id -> event, for who waits on it
        self._jitter: dict[str, float] = {}
        jitter_rng = substream(world.seed, "fault-jitter")
        for fault in world.incident.faults:
            # Drawn for every fault in file order, so adding a trigger to one fault leaves the
            # others' times as they were.
            self._jitter[fault.id] = jitter_rng.uniform(0, fault.jitter)
            if fault.trigger is not None:
                continue
            base = world.moment(fault.at)
            # Whole seconds: a time a person can read on the clock and type back.
            self.times[fault.id] = float(round(base + self._jitter[fault.id]))

    def start(self) -> None:
        for fault in self.world.incident.faults:
            if fault.trigger is None:
                self.world.env.process(self._fire_at(fault))
            elif fault.trigger.fault is not None:
                # It watches only once the fault it follows has fired.
                self._arm(("fired", fault.trigger.fault), fault)
            else:
                self._arm(self._watch_key(fault), fault)
        for noise in self.world.incident.noise:
            self.world.env.process(self._noise_at(noise))

    def record_pick(self, fault_id: str, pick: Pick) -> None:
        """A fault that keeps striking (random_failures) adds what it hit as it goes."""
        self.chosen.setdefault(fault_id, []).append(pick)

    def _noise_at(self, noise):
        yield self.world.env.timeout(self.world.moment(noise.at))
        # A red herring may name what a fault chose, like the node it struck.
        text = fault_fields.fill_lenient(self.world, noise.text)
        self.world.alert(
            noise.severity, fault_fields.fill_lenient(self.world, noise.source), text, noise=True
        )

    def job_placed(self, job) -> None:
        """A job got GPUs: faults that were waiting for it to run strike now, and a start that
        is not the job's first of the night is a restart."""
        for event in self._placed.pop(job.name, []):
            event.succeed()
        if sum(1 for attempt in job.attempts if attempt.start is not None) > 1:
            self._happened(("restart", job.name))

    def checkpoint_starting(self, job) -> None:
        """The job is about to write a checkpoint: a fault triggered by it with no delay strikes
        before the write is planned, so it meets the write."""
        self._happened(("checkpoint", job.name), now=True)

    def paged(self, text: str) -> None:
        for key in [k for k in self._armed if k[0] == "page" and k[1] in text.lower()]:
            self._happened(key)

    def fired_event(self, fault_id: str):
        """A SimPy event that succeeds when the fault fires (already succeeded if it has)."""
        if fault_id not in self._fired_events:
            event = self.world.env.event()
            if fault_id in self.fired:
                event.succeed()
            self._fired_events[fault_id] = event
        return self._fired_events[fault_id]

    def run_until_fired(self, fault_id: str, limit: float) -> None:
        """Run the world until the fault fires, the learner's job completes or `limit`: how a
        reference line timed from a triggered fault waits for it."""
        world = self.world
        if fault_id in self.fired or world.now >= limit or world.finished.processed:
            return
        stop = world.env.timeout(limit - world.now)
        world.env.run(until=world.env.any_of([stop, world.finished, self.fired_event(fault_id)]))

    # -- triggers ---------------------------------------------------------------------------

    def _watch_key(self, fault) -> tuple[str, str]:
        trigger = fault.trigger
        if trigger.event == "page":
            return ("page", str(trigger.text).lower())
        if trigger.event == "fault":
            return ("fired", str(trigger.fault))
        return (trigger.event, trigger.job or self.world.incident.learner_job.name)

    def _arm(self, key: tuple[str, str], fault) -> None:
        self._armed.setdefault(key, []).append(fault)

    def _happened(self, key: tuple[str, str], now: bool = False) -> None:
        """What a trigger watches for happened: each fault armed on it starts its clock. A
        fault that only followed another to start watching is armed on its own event now."""
        for fault in self._armed.pop(key, []):
            if key[0] == "fired" and fault.trigger.event != "fault":
                self._arm(self._watch_key(fault), fault)
                continue
            delay = fault.at + self._jitter[fault.id]
            # Whole seconds, never before what started the clock; no delay is no delay.
            when = self.world.now if delay == 0 else float(math.ceil(self.world.now + delay))
            self.times[fault.id] = when
            if now and delay == 0 and not _aims_elsewhere(fault, key):
                self._strike(fault)
            else:
                self.world.env.process(self._fire_at(fault))

    def _fire_at(self, fault):
        world = self.world
        yield world.env.timeout(max(0.0, self.times[fault.id] - world.env.now))
        target = getattr(fault, "target", None)
        if isinstance(target, Target) and target.job:
            # A fault aimed at a job strikes it wherever it runs. If it is not running now, it
            # strikes when the job next runs: nobody dodges a fault by knowing its second.
            job = world.jobs[target.job]
            while not job.placement:
                if job.state == JobState.COMPLETED:
                    return  # it never runs again
                event = world.env.event()
                self._placed.setdefault(job.name, []).append(event)
                yield event
        self._strike(fault)

    def _strike(self, fault) -> None:
        world = self.world
        kind = KINDS[fault.kind]
        rng = substream(world.seed, f"target:{fault.id}")
        if kind.select is not None:
            picks = kind.select(world, fault, rng)
        elif kind.unit == "cluster":
            picks = []
        else:
            picks = select(world, fault.target, kind.unit, rng)
        self.chosen[fault.id] = picks
        self.fired.add(fault.id)
        self.fired_at[fault.id] = world.now
        world.emit(FaultFired(world.now, fault.id, f"fault {fault.id} ({fault.kind})"))
        kind.fire(world, fault, picks)
        if fault.id in self._fired_events:
            self._fired_events[fault.id].succeed()
        self._happened(("fired", fault.id))


def _aims_elsewhere(fault, key: tuple[str, str]) -> bool:
    """A fault aimed at another job than the one whose event started its clock must wait for
    that job to run, which only the SimPy process does."""
    target = getattr(fault, "target", None)
    return isinstance(target, Target) and target.job is not None and target.job != key[1]
