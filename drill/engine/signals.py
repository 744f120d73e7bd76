"""Fast-forward: what stops a night run at top speed, and what the learner is told it waited for.

The rule, in one place: fast-forward runs the night until the first thing the learner would
notice on a real night, which is

- a new page, of any severity. The pager shows every page, and telling noise from a real
  problem is the learner's call: stopping only at pages that matter would tell them which.
- the learner's own job stopping: failed, requeued by its retry policy (a restart they did not
  ask for), preempted, lost with its node, cancelled, completed. The queue and the log show it
  at once, and it is what an on-call watches for.

Not a stop: the job being scheduled or starting to train (the night going as planned, and what a
restart the learner made is waiting for), a routine checkpoint (a failed write ends in a page or
the job stopping), and anything another team's job does. Events the screens never show (the
world's own record of which fault fired) never count: the learner cannot see them.

It is refused while a page is open and not acknowledged (drill/engine/actions/act.py): running
past a page nobody has answered is the habit the pager exists to break.
"""

from __future__ import annotations

from drill.sim.events import AlertFired, Event, JobStateChanged
from drill.sim.jobs import CANCELLED, COMPLETED, FAILED, NODE_FAIL, PREEMPTED, REQUEUED
from drill.sim.world import World
from drill.values.units import format_duration

STOPPED = (FAILED, REQUEUED, PREEMPTED, NODE_FAIL, CANCELLED, COMPLETED)


def noticed(event: Event, learner_job: str) -> bool:
    """Whether the learner would notice this event: the one test fast-forward stops at."""
    if event.hidden:
        return False
    if isinstance(event, AlertFired):
        return True
    return (
        isinstance(event, JobStateChanged)
        and event.subject == learner_job
        and event.state in STOPPED
    )


def waited(world: World, start: float, seen: list[Event], learner_job: str) -> str:
    """What the action says once the night has run: how long, and what it stopped at (each
    thing noticed at that moment, pages first: a page and its job's failure come together)."""
    spent = f"waited {format_duration(world.now - start)}"
    pages = [e for e in seen if isinstance(e, AlertFired)]
    jobs = [e for e in seen if isinstance(e, JobStateChanged)]
    found = [f"page {e.id} ({e.severity})" for e in pages]
    found += [f"{learner_job} {e.state}" for e in jobs[-1:]]  # where the job ended up
    if found:
        return f"{spent}: {', '.join(found)} at {world.clock.label(seen[0].time)}"
    if world.now >= world.incident.night.length or world.finished.processed:
        return f"{spent}: the night ended with no new page"
    return f"{spent}: no new page, and {learner_job} did not stop"
