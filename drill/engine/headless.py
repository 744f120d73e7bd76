"""Play a list of timed actions through the engine, as `drill run` and the tests do."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from drill.engine.actions.errors import Reject
from drill.engine.drill import ActionResult, Drill
from drill.engine.shown_text import fill_action
from drill.engine.timed import TEMPLATE, TimedAction
from drill.values import units


@dataclass(frozen=True)
class Skipped:
    line: int
    text: str
    why: str


def resolve_time(drill: Drill, action: TimedAction, previous_end: float) -> float:
    base_text, plus, extra = action.when.partition("+")
    if not base_text:
        base = previous_end
    elif base_text.startswith("{"):
        fault_id = TEMPLATE.match(base_text).group(1)  # type: ignore[union-attr]
        base = fault_time(drill, fault_id)
    else:
        base = drill.world.clock.from_clock(base_text)
    return base + (units.parse_duration(extra) if plus else 0.0)


def fault_time(drill: Drill, fault_id: str) -> float:
    """When the fault fired, or will: a triggered fault's time is known only once what starts
    its clock has happened, so the night runs on until it fires (or ends: then a line timed
    from it does not play)."""
    faults = drill.world.faults
    if fault_id not in faults.fired_at and fault_id not in faults.times:
        faults.run_until_fired(fault_id, drill.night_end)
    return faults.fired_at.get(fault_id, faults.times.get(fault_id, drill.night_end))


def resolve_text(drill: Drill, text: str) -> str:
    return fill_action(drill.world, text)


def act_line(drill: Drill, text: str) -> ActionResult:
    """Fill in `{fault.ID.FIELD}` names, then act. A name that cannot be filled in yet is a
    rejection like any other: recorded, no time spent."""
    try:
        resolved = resolve_text(drill, text)
    except Reject as rejection:
        result = ActionResult(drill.now, drill.now, text.strip(), False, str(rejection))
        drill.actions.append(result)
        return result
    return drill.act(resolved)


def play(
    drill: Drill,
    actions: list[TimedAction],
    on_result: Callable[[ActionResult], None] | None = None,
    finish_night: bool = True,
    previous_end: float = 0.0,
) -> list[Skipped]:
    """Each action starts at its stated time, or when the previous one ends if that is later.
    `on_result` sees every action's result as it happens (a save writer, a pacing sleep).
    `previous_end` is where a first relative line counts from: a resumed night passes the end
    of its last saved action."""
    record = on_result or (lambda result: None)
    skipped: list[Skipped] = []
    for action in actions:
        start = max(resolve_time(drill, action, previous_end), drill.now)
        if start >= drill.night_end or drill.over:
            # Time only moves forward: nothing after a line past the end can play either.
            drill.advance_to(drill.night_end)
            skipped.append(Skipped(action.line, action.text, "the night was over"))
            continue
        drill.advance_to(start)
        if drill.over:
            skipped.append(Skipped(action.line, action.text, "the night was over"))
            continue
        result = act_line(drill, action.text)
        record(result)
        previous_end = result.end
    if finish_night:
        drill.play_out()
    return skipped
