"""Discipline, read off the night's actions and pages: look before you act, acknowledge each
page in time, use hints sparingly, write down what you did.

- Each change (an act on a node, a job, a volume, a leaf or the cluster) is judged by the looks
  that inform it, as its verb declares them (`informed_by` in drill/engine/actions/catalog.py):
  `restart --from 100` by `ckpt list` or `ckpt verify` of that job, `ckpt rm` by `ckpt list` of
  that job or `df`, `drain` by `health`, `gpus` or `fabric` of that node, and so on. A change is
  informed when every need its line has is met by one such look made earlier in the night and
  after the first signal the learner could see. The pre-shift plan (`set` before the night
  starts) is not a change at 3am.
- The first signal the learner could see is the earliest of: a page that is not noise or info
  arriving; and the end of a look whose output showed a fault (each look's `shows` in the
  catalog: `logs` of a job once it has trained on a bad stretch of data, `ckpt verify` of the
  checkpoint that rotted, `health`, `gpus`, `dmesg` or `systemctl` of a node a fault struck,
  `fabric` of a flapping leaf, `perf` or `stack` of a hung job, `stack` or `trace` of
  mismatched collectives). A fault no look shows (a full /dev/shm, a quota cut,
  a filling volume) is seen through its pages. Never the moment a fault strikes unseen: a `status` at 03:00 tells nothing about
  data that went bad at 0s and shows in the loss at 03:25. A look that showed a fault counts as
  informing by itself.
- Each page is measured from its own arrival: acknowledged within the paging target, or not. A
  page that arrives less than the paging target before the night ends, and is not acknowledged,
  is not held against anyone.
- Hints cost a bounded amount: each of the first three costs a quarter of the hints share, and
  more cost nothing more.

Looks weigh half of discipline, pages a quarter, a note and hints an eighth each. An uninformed
change also caps the night's total below an A (drill/engine/scoring/score.py, `_judgement_caps`): an
act that happened to be right is not a diagnosis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from drill.engine.actions.catalog import VERBS, By, Need, Of, When
from drill.engine.actions.effects import Effect, Target, effect_of
from drill.sim.events import StepTaken

if TYPE_CHECKING:
    from drill.engine.drill import ActionResult, Drill

HINT_COST = 0.25
HINTS_CHARGED = 3
PARTS = {"looks": 0.5, "pages": 0.25, "notes": 0.125, "hints": 0.125}


@dataclass(frozen=True)
class Discipline:
    changes: int
    changes_after_look: int  # informed: every need met by a look after the first signal
    pages_due: int
    pages_acked_in_time: int
    hints_used: int
    notes: int
    first_signal: float | None
    # Each uninformed change, when it came and the look that would have counted, for the debrief.
    uninformed: list[str] = field(default_factory=list)
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


# -- the first signal the learner could see ----------------------------------------------------


def first_signal(drill: Drill) -> float | None:
    """When the problem first showed to the learner: a real page arriving, or the end of a look
    whose output showed a fault. Never a hidden fault time."""
    world = drill.world
    moments = [a.time for a in world.pager.alerts if not a.noise and a.severity != "info"]
    moments += [a.end for a, done in _accepted(drill) if _showed_a_fault(drill, a, done)]
    return min(moments) if moments else None


def _accepted(drill: Drill) -> list[tuple[ActionResult, Effect]]:
    return [(a, effect_of(a.text)) for a in drill.actions if a.accepted]


def _showed_a_fault(drill: Drill, action: ActionResult, done: Effect) -> bool:
    """Whether this look's output showed a fault that had struck: a look whose verb declares
    it shows that kind (`shows` in the catalog), at what the fault struck, once there was
    something to see."""
    if not done.is_look:
        return False
    world = drill.world
    shows = VERBS[done.verb].shows
    for fault in world.incident.faults:
        fired = world.faults.fired_at.get(fault.id)
        if fired is None or fault.kind not in shows:
            continue
        for pick in world.faults.chosen.get(fault.id, []):
            if not _names_the_pick(done, pick):
                continue
            visible = _visible_from(drill, fault.kind, fired, pick)
            if visible is not None and action.time >= visible:
                return True
    return False


def _names_the_pick(done: Effect, pick) -> bool:
    """The look names what the fault struck (its job, node or leaf, and its checkpoint's step
    when the look reads one), or shows every one of them (`fabric` with no leaf)."""
    step = done.values.get("step")
    if step is not None and pick.step is not None and step != pick.step:
        return False
    if any(pick.field(kind) == name for kind, name in done.names):
        return True
    if done.names:
        return False
    kinds = {a.type.names for a in VERBS[done.verb].args if a.optional}
    return any(pick.field(str(kind)) is not None for kind in kinds)


def _visible_from(drill: Drill, kind: str, fired: float, pick) -> float | None:
    """When a look could first see the fault: when it struck, or for bad data, when the job
    first trained a step that read it (the loss jumps in its log from then)."""
    if kind != "bad_shard":
        return fired
    first = pick.step or 0
    for event in drill.world.timeline:
        if (
            isinstance(event, StepTaken)
            and event.subject == pick.job
            and event.time >= fired
            and event.step >= first
        ):
            return event.time
    return None


# -- judging each change -----------------------------------------------------------------------


def measure_discipline(drill: Drill, paging_target: float, end_time: float) -> Discipline:
    signal = first_signal(drill)
    seen: list[Effect] = []  # the looks that count, in order
    changes = informed = looks_after_signal = 0
    uninformed: list[str] = []
    for action, done in _accepted(drill):
        if done.is_look:
            after = signal is not None and action.time >= signal
            if after or _showed_a_fault(drill, action, done):
                seen.append(done)
                looks_after_signal += 1
            continue
        if not done.is_change:
            continue
        if VERBS[done.verb].plan and action.time == 0.0 and action.end == action.time:
            continue  # the pre-shift plan
        changes += 1
        lacking = missing_look(drill, action, done, seen)
        if lacking is None:
            informed += 1
        else:
            uninformed.append(_uninformed_line(drill, action, signal, lacking))
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
        changes_after_look=informed,
        pages_due=due,
        pages_acked_in_time=in_time,
        hints_used=len(drill.ctx.hints_shown),
        notes=len(drill.ctx.notes),
        first_signal=signal,
        uninformed=uninformed,
        looks_after_signal=looks_after_signal,
    )


@dataclass(frozen=True)
class Lacking:
    """The look a change lacked: what it was about and the looks that would have counted."""

    subject: str | None  # the job, node, volume or leaf; None for the cluster
    looks: str  # "`health` or `gpus` of gpu-a-2, or `fabric` of its leaf or of every leaf"


def looks_that_count(by: tuple[By, ...], subject: str | None) -> str:
    """The looks of one need in words, each naming what it must be of: the verbs as the catalog
    shows them (never spelt here), the subject once for those that must name it."""
    that = [b.shown for b in by if b.of == Of.THAT]
    groups = []
    if that:
        named = that[0] if len(that) == 1 else f"{', '.join(that[:-1])} or {that[-1]}"
        groups.append(named + (f" of {subject}" if subject else ""))
    for b in by:
        if b.of == Of.LEAF:
            groups.append(f"{b.shown} of its leaf or of every leaf")
        elif b.of == Of.OR_ALL:
            groups.append(f"{b.shown} of {subject} or of everything" if subject else b.shown)
        elif b.of == Of.ANY:
            groups.append(f"any {b.shown}")
    # "`health` or `gpus` of n1, or `fabric` of its leaf": a comma where a group has its own "or".
    joint = ", or " if len(that) > 1 else " or "
    return joint.join(groups)


def missing_look(
    drill: Drill, action: ActionResult, done: Effect, seen: list[Effect]
) -> Lacking | None:
    """None when every need of this change's line is met by a look in `seen`; otherwise what
    the first unmet one asked for: its subject and the looks that would have met it."""
    for need in VERBS[done.verb].informed_by or ():
        if not _applies(drill, need, action, done):
            continue
        subjects = done.names_in(need.about) if need.about else (done.touches,)
        for subject in subjects:
            if subject is None or not any(_informs(drill, need, subject, s) for s in seen):
                name = str(subject[1]) if subject and subject[1] else None
                return Lacking(name, looks_that_count(need.by, name))
    return None


def _uninformed_line(
    drill: Drill, action: ActionResult, signal: float | None, lacking: Lacking
) -> str:
    """One change that came without its look, for the debrief: the line and when, what it
    lacked, and the look that would have counted. Looks before the first sign of trouble the
    learner could see do not count (a healthy node's `health` says nothing about 03:25), so the
    line says when that was."""
    at = f"{action.text} at {drill.clock(action.time)}"
    if signal is None or action.time < signal:
        return (
            f"{at} came before any sign of trouble you could see (a page, or a look that showed"
            f" the fault); after one, {lacking.looks} would have counted"
        )
    about = f" at {lacking.subject}" if lacking.subject else ""
    return (
        f"{at} came without a look{about} after the first sign of trouble at"
        f" {drill.clock(signal)}: {lacking.looks} would have counted"
    )


def _applies(drill: Drill, need: Need, action: ActionResult, done: Effect) -> bool:
    start = done.values.get("--from")
    if need.when == When.FROM_STEP:
        return start is not None and start != "latest"
    if need.when == When.FROM_LATEST:
        return start is None or start == "latest"
    if need.when == When.SKIP:
        return done.values.get("--skip") is not None
    if need.when == When.HUNG:
        return _stops_a_hang(drill, done, action.time)
    return True


def _stops_a_hang(drill: Drill, done: Effect, time: float) -> bool:
    """The line stops an attempt with a rank alive but stuck: hung in a collective, blocked in
    a read, in a collective other ranks did not issue, or in start-up, not lost with its GPU or
    node (a node look explains those)."""
    if done.touches is None or done.touches[0] != "job":
        return False
    job = drill.world.jobs.get(str(done.touches[1]))
    for attempt in job.attempts if job else ():
        if attempt.start is None or attempt.start > time:
            continue
        if attempt.end is not None and attempt.end < time:
            continue
        hung = "hang" in attempt.hung_ranks.values() or attempt.blocked_in
        if hung or attempt.mismatched or attempt.startup_hung_on:
            return True
    return False


def _informs(drill: Drill, need: Need, subject: Target, look: Effect) -> bool:
    """Whether one look meets a need about one subject (a job, node, volume or leaf)."""
    for by in need.by:
        if look.verb != by.verb:
            continue
        if by.of == Of.ANY or subject in look.names:
            return True
        kind = subject[0]
        names_of_kind = [n for k, n in look.names if k == kind]
        if by.of == Of.OR_ALL and not names_of_kind:
            return True
        if by.of == Of.LEAF and kind == "node":
            node = drill.world.cluster.nodes.get(str(subject[1]))
            leaves = [n for k, n in look.names if k == "leaf"]
            if not leaves or (node is not None and node.leaf in leaves):
                return True
    return False
