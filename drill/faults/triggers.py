"""Faults whose clock starts at something that happens in the night, not at its start.

    trigger: {event: fault, fault: gpu-dies}        at: 5m   five minutes after gpu-dies fired
    trigger: {event: restart}                       at: 0s   as the learner's job starts again
    trigger: {event: checkpoint, job: llm}          at: 0s   as llm starts its next checkpoint write
    trigger: {event: page, text: file write failed} at: 5m five minutes after that page
    trigger: {event: restart, fault: gpu-dies}      at: 1m   a minute into the first restart after
                                                          gpu-dies fired

With a trigger, `at` is the delay after it, and `jitter` adds a seeded delay as for any fault. A
trigger fires its fault once, the first time it happens (drill/sim/fault_schedule.py); one that
never happens leaves its fault unfired. The loader's checks for triggers live here, next to the
model (drill/faults/base.py), so the rules are in one place.
"""

from __future__ import annotations

from collections.abc import Sequence

from drill.faults.base import FaultBase, Loc, Names
from drill.faults.targets import suggest

JOB_EVENTS = ("restart", "checkpoint")


def check_triggers(faults: Sequence[FaultBase], names: Names) -> list[tuple[Loc, str]]:
    """Each trigger names what exists, takes only the fields its `event` reads, and no chain of
    `event: fault` triggers comes back to where it started."""
    ids = {fault.id for fault in faults}
    problems: list[tuple[Loc, str]] = []
    for f, fault in enumerate(faults):
        trigger = fault.trigger
        if trigger is None:
            continue
        at: Loc = ("faults", f, "trigger")
        if isinstance(fault.at, str):
            problems.append(
                (
                    ("faults", f, "at"),
                    f"with a trigger, `at` is the delay after it, like 5m or 0s; {fault.at!r} is"
                    " a clock time",
                )
            )
        if trigger.event == "fault" and trigger.fault is None:
            problems.append((at, "event: fault needs `fault: ID`, the fault this one follows"))
        if trigger.fault is not None:
            if trigger.fault == fault.id:
                problems.append(((*at, "fault"), "a fault cannot follow itself; name another"))
            elif trigger.fault not in ids:
                problems.append(
                    (
                        (*at, "fault"),
                        f"no fault with id {trigger.fault!r}; {suggest(trigger.fault, ids)}",
                    )
                )
        if trigger.event == "page" and trigger.text is None:
            problems.append((at, "event: page needs `text:`, words the page contains"))
        if trigger.event != "page" and trigger.text is not None:
            problems.append(((*at, "text"), "`text` is for event: page; remove it"))
        if trigger.job is not None:
            if trigger.event not in JOB_EVENTS:
                problems.append(
                    ((*at, "job"), "`job` is for event: restart or event: checkpoint; remove it")
                )
            elif trigger.job not in names.jobs:
                problems.append(
                    (
                        (*at, "job"),
                        f"no job named {trigger.job!r}; {suggest(trigger.job, set(names.jobs))}",
                    )
                )
    problems += _cycles(faults)
    return problems


def _cycles(faults: Sequence[FaultBase]) -> list[tuple[Loc, str]]:
    follows = {
        f.id: f.trigger.fault
        for f in faults
        if f.trigger and f.trigger.fault and f.trigger.fault != f.id
    }
    index = {f.id: i for i, f in enumerate(faults)}
    problems: list[tuple[Loc, str]] = []
    for start in follows:
        seen = [start]
        current = follows.get(start)
        while current is not None and current in follows and current not in seen:
            seen.append(current)
            current = follows.get(current)
        if current == start and start == min(seen):  # report each loop once
            loop = " -> ".join([*seen, start])
            problems.append(
                (
                    ("faults", index[start], "trigger", "fault"),
                    f"these faults wait for each other and none would fire: {loop}",
                )
            )
    return problems


def triggered(fault: FaultBase) -> bool:
    return fault.trigger is not None
