"""What a takeaway's `when` asks of the night (drill/incident/models.py, NightFact), decided
from the night's own record: the learner's job's moves in the world's timeline. A takeaway that
tells the night's story ("the automatic restart landed on the same broken GPU and
crash-looped") is shown only on a night that had that story.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, get_args

from drill.incident.models import NightFact
from drill.sim.events import JobStateChanged
from drill.states import JobState

if TYPE_CHECKING:
    from collections.abc import Callable

    from drill.sim.world import World

# How an attempt ends when it failed; a person's restart (cancelled) or a preemption is not
# a crash.
_FAILED = (JobState.REQUEUED, JobState.FAILED, JobState.NODE_FAIL)


def start_up_failures(world: World) -> int:
    """How many times the learner's job started and failed before it trained a step."""
    mine = world.incident.learner_job.name
    failures = 0
    started = trained = False
    for event in world.timeline:
        if not isinstance(event, JobStateChanged) or event.subject != mine:
            continue
        if event.state == JobState.RUNNING:
            started, trained = True, False
        elif event.started_training:
            trained = True
        elif event.state in _FAILED:
            if started and not trained:
                failures += 1
            started = False
    return failures


def crash_looped(world: World) -> bool:
    """The job failed at start-up twice or more: the restarts met the cause again."""
    return start_up_failures(world) >= 2


FACTS: dict[str, Callable[[World], bool]] = {
    "crash_looped": crash_looped,
    "no_crash_loop": lambda world: not crash_looped(world),
}
assert set(FACTS) == set(get_args(NightFact)), "every NightFact needs its test here"


def holds(world: World, fact: str | None) -> bool:
    """Whether a takeaway with this `when` is shown; one without a `when` always is."""
    return fact is None or FACTS[fact](world)
