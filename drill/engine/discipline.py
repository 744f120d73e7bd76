"""Discipline, read off the night's actions and pages: look before you act, acknowledge each
page in time, use hints sparingly, write down what you did.

- A change (an act on a node, a job, a volume or the cluster) counts as looked-at when an earlier
  look named the same thing (a look at the cluster only covers a cluster-wide act) and came after
  the first signal of the problem: a look at 03:00 tells nothing about a fault at 03:20. The
  pre-shift plan (`set` before the night starts) is not a change at 3am.
- Each page is measured from its own arrival: acknowledged within the paging target, or not. A
  page that arrives less than the paging target before the night ends, and is not acknowledged,
  is not held against anyone.
- Hints cost a bounded amount: each of the first three costs a quarter of the hints share, and
  more cost nothing more.

Looks weigh half of discipline, pages a quarter, a note and hints an eighth each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from drill.engine.actions.catalog import VERBS
from drill.engine.actions.effects import CLUSTER, effect_of

if TYPE_CHECKING:
    from drill.engine.drill import Drill

HINT_COST = 0.25
HINTS_CHARGED = 3
PARTS = {"looks": 0.5, "pages": 0.25, "notes": 0.125, "hints": 0.125}


@dataclass(frozen=True)
class Discipline:
    changes: int
    changes_after_look: int
    pages_due: int
    pages_acked_in_time: int
    hints_used: int
    notes: int
    first_signal: float | None
    looks_after_signal: int = 0

    @property
    def value(self) -> float:
        return discipline_value(
            self.changes,
            self.changes_after_look,
            self.pages_due,
            self.pages_acked_in_time,
            self.hints_used,
            self.notes,
            self.looks_after_signal,
        )


def discipline_value(
    changes: int,
    after_look: int,
    due: int,
    in_time: int,
    hints: int,
    notes: int,
    looks_after_signal: int | None = None,
) -> float:
    """Four parts, each from 0 to 1, weighted by what they say about the night: looking before
    acting is half of it, pages a quarter, a note and sparing hints an eighth each.

    A night with pages due and no change at all earns the looks part only if it looked after
    the first signal: no response to a real page is not discipline. (`None`: not counted,
    as for a caller that only has the other figures.)"""
    looks = _looks_part(changes, after_look, due, looks_after_signal)
    acks = in_time / due if due else 1.0
    noted = 1.0 if notes else 0.0
    hinted = 1.0 - HINT_COST * min(hints, HINTS_CHARGED)
    parts = (looks, acks, noted, hinted)
    return round(sum(PARTS[name] * value for name, value in zip(PARTS, parts, strict=True)), 4)


def _looks_part(changes: int, after_look: int, due: int, looks_after_signal: int | None) -> float:
    if changes:
        return after_look / changes
    if due and looks_after_signal is not None and looks_after_signal == 0:
        return 0.0  # pages came, and nobody looked or acted
    return 1.0


def first_signal(drill: Drill) -> float | None:
    """When the problem first showed: a fault striking, or a page that is not noise."""
    world = drill.world
    moments = list(world.faults.fired_at.values())
    moments += [a.time for a in world.pager.alerts if not a.noise and a.severity != "info"]
    return min(moments) if moments else None


def measure_discipline(drill: Drill, paging_target: float, end_time: float) -> Discipline:
    signal = first_signal(drill)
    looked: set = set()
    changes = after_look = looks_after_signal = 0
    for action in drill.actions:
        if not action.accepted:
            continue
        done = effect_of(action.text)
        if done.is_look:
            if signal is not None and action.time >= signal:
                looked.add(done.touches)
                looks_after_signal += 1
            continue
        if not done.is_change:
            continue
        if VERBS[done.verb].plan and action.time == 0.0 and action.end == action.time:
            continue  # the pre-shift plan
        changes += 1
        covered = done.touches in looked or (done.touches == CLUSTER and CLUSTER in looked)
        after_look += covered
    due = in_time = 0
    for alert in drill.world.pager.alerts:
        if alert.noise or alert.severity == "info":
            continue
        acked = alert.acked_at is not None and alert.acked_at - alert.time <= paging_target
        if not acked and alert.time + paging_target > end_time:
            continue  # it arrived too late in the night to be held against anyone
        due += 1
        in_time += acked
    return Discipline(
        changes=changes,
        changes_after_look=after_look,
        pages_due=due,
        pages_acked_in_time=in_time,
        hints_used=len(drill.ctx.hints_shown),
        notes=len(drill.ctx.notes),
        first_signal=signal,
        looks_after_signal=looks_after_signal,
    )
