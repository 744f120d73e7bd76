"""When each fault of the incident fires, and what it picked.

Fire times (with seeded jitter) are fixed when the night is built, in whole seconds, so a
reference solution can name them; targets are drawn when the fault fires, from the placement of
that moment, with the fault's own seeded stream. What a fault then does is its kind's business
(drill/faults); what that does to jobs and nodes is drill/sim/failures.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drill.faults import KINDS, Pick
from drill.faults.base import Target
from drill.faults.targets import select
from drill.sim.rng import substream
from drill.states import JobState

if TYPE_CHECKING:
    from drill.sim.world import World


class FaultSchedule:
    def __init__(self, world: World):
        self.world = world
        self.times: dict[str, float] = {}
        self.chosen: dict[str, list[Pick]] = {}
        self.fired: set[str] = set()
        self.fired_at: dict[str, float] = {}  # later than `times` when its job was not running
        self._placed: dict[str, list] = {}  # job -> events that wake faults waiting for it
        jitter_rng = substream(world.seed, "fault-jitter")
        for fault in world.incident.faults:
            base = world.moment(fault.at)
            # Whole seconds: a time a person can read on the clock and type back.
            self.times[fault.id] = float(round(base + jitter_rng.uniform(0, fault.jitter)))

    def start(self) -> None:
        for fault in self.world.incident.faults:
            self.world.env.process(self._fire_at(fault))
        for noise in self.world.incident.noise:
            self.world.env.process(self._noise_at(noise))

    def record_pick(self, fault_id: str, pick: Pick) -> None:
        """A fault that keeps striking (random_failures) adds what it hit as it goes."""
        self.chosen.setdefault(fault_id, []).append(pick)

    def _noise_at(self, noise):
        yield self.world.env.timeout(self.world.moment(noise.at))
        self.world.alert(noise.severity, noise.source, noise.text, noise=True)

    def job_placed(self, job) -> None:
        """A job got GPUs: faults that were waiting for it to run strike now."""
        for event in self._placed.pop(job.name, []):
            event.succeed()

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
        world.emit("fault", fault.id, f"fault {fault.id} ({fault.kind})", hidden=True)
        kind.fire(world, fault, picks)
