"""The undisturbed run: the learner's job alone on a healthy, empty cluster, with the incident's
own settings and nothing going wrong. Its step at a moment of the night is where the job would
be had there been no incident, which is what "steps behind" is measured against.

It is a sim-only night (no torch), so it costs a fraction of a second.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from drill.engine.drill import Drill
from drill.incident.models import Background, Incident
from drill.sim.events import StepTaken


def undisturbed_incident(incident: Incident) -> Incident:
    """The same night minus everything that could disturb the job: no faults, no noise, no other
    jobs or background load, no other tenants on its storage, the incident's default settings."""
    quiet = Background(utilization=0.0, arrivals_per_hour=0.0, teams=incident.background.teams)
    return incident.model_copy(
        update={
            "jobs": [incident.learner_job],
            "faults": [],
            "noise": [],
            "background": quiet,
            "storage": [volume.model_copy(update={"tenants": []}) for volume in incident.storage],
        }
    )


@dataclass(frozen=True)
class StepClock:
    """When the undisturbed run finished each step: step_at(t) is its step at time t."""

    times: tuple[float, ...]  # times[k - 1] is when step k finished
    steps: int

    def step_at(self, time: float) -> int:
        return min(self.steps, bisect.bisect_right(self.times, time))

    @property
    def pace(self) -> float:
        """Seconds per step, checkpoints included, over the run."""
        if len(self.times) < 2:
            return 1.0
        return max(1e-9, (self.times[-1] - self.times[0]) / (len(self.times) - 1))

    def steps_by(self, time: float) -> float:
        """Where the undisturbed run would be at `time`, counting on at its own pace past its
        last step, so a job that finishes late is behind by the time it lost."""
        done = bisect.bisect_right(self.times, time)
        if done < len(self.times) or not self.times:
            return float(done)
        return len(self.times) + (time - self.times[-1]) / self.pace

    def to_json(self) -> dict:
        return {"times": list(self.times), "steps": self.steps}

    @classmethod
    def from_json(cls, data: dict) -> StepClock:
        return cls(tuple(float(t) for t in data["times"]), int(data["steps"]))


def undisturbed_clock(incident: Incident, seed: int) -> StepClock:
    drill = Drill(undisturbed_incident(incident), seed)
    drill.play_out()
    name = incident.learner_job.name
    times = tuple(
        e.time for e in drill.world.timeline if isinstance(e, StepTaken) and e.subject == name
    )
    return StepClock(times, incident.learner_job.steps)
