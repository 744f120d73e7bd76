"""The score: every point traces to a measured figure, compared with real runs of the same night.

`par` is what the engine measures when it plays the incident's reference solution; `floor` is
what it measures when nobody acts. A component scores by where the learner's figure falls
between the two (never more than its weight). When par and floor are equal on a component, a
natural scale per component says how far below par costs all its points. Collateral has no
lower bound: harm to others keeps costing, in proportion to its size.

The seven components and what they read (docs in the authoring guide, "How a night is scored"):
progress (effective steps behind the undisturbed run), recovered (training again, scaled by
progress), time to recovery (each outage summed), integrity (the weights, or nothing for a dead
job), collateral (GPU hours of harm), plan (the fallback step over many nights), discipline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from drill.engine.collateral import Collateral, against_floor
from drill.engine.outcome import Outcome
from drill.incident.units import format_duration

DEFAULT_WEIGHTS = {
    "progress": 25.0,
    "recovered": 15.0,
    "time_to_recovery": 15.0,
    "integrity": 10.0,
    "collateral": 10.0,
    "plan": 10.0,
    "discipline": 15.0,
}
COMPONENTS = tuple(DEFAULT_WEIGHTS)
BEYOND_PAR = 1.2  # how far past par a figure counts when runbooks are compared, not shown
MATCH_VALUE = {"bitexact": 1.0, "close": 0.8, "diverged": 0.0}
CORRUPT_LOAD_COST = 0.5
# Harm beyond the reference's worth ten minutes of the learner's own job's GPUs costs the
# whole collateral weight; more keeps costing.
COLLATERAL_SCALE_HOURS = 1 / 6
GRADES = ((90, "A"), (80, "B"), (65, "C"), (50, "D"))
# A change made with no look that informs it keeps the night below an A, however it turned
# out: the band for an uninformed lucky act is no better than B.
UNINFORMED_CAP = 89.0


@dataclass(frozen=True)
class Component:
    name: str
    value: Any  # the learner's raw figure
    par: Any
    floor: Any
    points: float
    weight: float
    why: str


@dataclass(frozen=True)
class Score:
    total: float
    grade: str
    components: tuple[Component, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "grade": self.grade,
            "components": [asdict(c) for c in self.components],
        }

    def component(self, name: str) -> Component:
        return next(c for c in self.components if c.name == name)


@dataclass(frozen=True)
class Night:
    """One measured night with its collateral worked out against the floor."""

    outcome: Outcome
    harm: Collateral


@dataclass(frozen=True)
class Axis:
    figure: Callable[[Night], Any]
    goodness: Callable[[Night], float]  # higher is better
    scale: float  # how far below par costs everything, when par equals floor
    explain: Callable[[Night, Night, Night, Callable[[float], str]], str]
    uncapped: bool = False  # may cost more than its weight


def build_score(
    mine: Outcome,
    par: Outcome,
    floor: Outcome,
    *,
    weights: dict[str, float],
    night_length: float,
    job_gpus: int,
    clock: Callable[[float], str],
    capped: bool = True,
) -> Score:
    """The score. `capped=False` lets a figure better than par earn up to a fifth more than its
    weight, and the total pass 100: not a score to show anyone, but how `drill test` tells
    whether a runbook did better than the reference where the capped score calls them even."""
    nights = [
        Night(o, against_floor(o.others, floor.others, o.harms, o.healthy_gpu_seconds))
        for o in (mine, par, floor)
    ]
    weights = {**DEFAULT_WEIGHTS, **weights}
    if mine.plan_fallback is None or par.plan_fallback is None or floor.plan_fallback is None:
        weights["plan"] = 0.0  # no pre-shift plan in this incident: nothing to judge
    components = []
    for name, axis in _axes(job_gpus, mine.target_steps).items():
        weight = weights.get(name, 0.0)
        g_mine, g_par, g_floor = (axis.goodness(n) for n in nights)
        share = _share(g_mine, g_par, g_floor, axis.scale, axis.uncapped, capped)
        components.append(
            Component(
                name=name,
                value=axis.figure(nights[0]),
                par=axis.figure(nights[1]),
                floor=axis.figure(nights[2]),
                points=round(weight * share, 2),
                weight=weight,
                why=axis.explain(*nights, clock),
            )
        )
    possible = sum(c.weight for c in components) or 1.0
    total = round(100.0 * sum(c.points for c in components) / possible, 1)
    total = min(total, _judgement_caps(mine))
    if capped:
        total = max(0.0, min(100.0, total))
    grade = next((letter for cutoff, letter in GRADES if total >= cutoff), "F")
    return Score(total, grade, tuple(components))


def _judgement_caps(outcome: Outcome) -> float:
    """The most a night may total, whatever its figures: an act made without the look that
    informs it was a guess, and a guess that came off is not an A."""
    return UNINFORMED_CAP if outcome.uninformed_changes > 0 else float("inf")


def _share(
    mine: float, par: float, floor: float, scale: float, uncapped: bool, capped: bool = True
) -> float:
    if uncapped:
        # Measured against the reference alone: anything worse than it costs, without end.
        share = 1.0 - (par - mine) / scale
        return min(1.0 if capped else BEYOND_PAR, share)
    if par > floor:
        share = (mine - floor) / (par - floor)
    elif mine >= par:
        share = 1.0 + ((mine - par) / scale if not capped else 0.0)
    else:
        share = 1.0 - (par - mine) / scale
    return max(0.0, min(1.0 if capped else BEYOND_PAR, share))


# -- what each component reads -----------------------------------------------------------------


def integrity_value(o: Outcome) -> float:
    """A dead job keeps no integrity; a live one is judged by its weights (or, without the
    replica, by whether it loaded bytes that were not what was written)."""
    if not o.alive:
        return 0.0
    base = MATCH_VALUE.get(o.match or "", 0.0) if o.match is not None else 1.0
    return max(0.0, base - CORRUPT_LOAD_COST * o.corrupt_loaded)


def _weights(o: Outcome) -> str:
    if not o.alive:
        return "dead job"
    return o.match or "not compared"


def recovered_value(o: Outcome) -> float:
    return o.progress_share if o.recovered else 0.0


def _axes(job_gpus: int, steps: int) -> dict[str, Axis]:
    return {
        "progress": Axis(
            figure=lambda n: {"steps_behind": n.outcome.steps_behind},
            goodness=lambda n: -float(n.outcome.steps_behind),
            scale=max(10.0, steps * 0.1),
            explain=_why_progress,
        ),
        "recovered": Axis(
            figure=lambda n: round(recovered_value(n.outcome), 3),
            goodness=lambda n: recovered_value(n.outcome),
            scale=0.5,
            explain=_why_recovered,
        ),
        "time_to_recovery": Axis(
            figure=lambda n: n.outcome.downtime,
            goodness=lambda n: -n.outcome.downtime,
            scale=1800.0,
            explain=_why_time,
        ),
        "integrity": Axis(
            figure=lambda n: {
                "weights": _weights(n.outcome),
                "corrupt_loaded": n.outcome.corrupt_loaded,
                "corrupt_caught": n.outcome.corrupt_caught,
            },
            goodness=lambda n: integrity_value(n.outcome),
            scale=0.5,
            explain=_why_integrity,
        ),
        "collateral": Axis(
            figure=lambda n: n.harm.gpu_hours,
            goodness=lambda n: -n.harm.gpu_hours,
            scale=max(0.5, job_gpus * COLLATERAL_SCALE_HOURS),
            explain=_why_collateral,
            uncapped=True,
        ),
        "plan": Axis(
            figure=lambda n: n.outcome.plan_fallback,
            goodness=lambda n: n.outcome.plan_fallback or 0.0,
            scale=max(1.0, steps / 3.0),
            explain=_why_plan,
        ),
        "discipline": Axis(
            figure=lambda n: n.outcome.discipline,
            goodness=lambda n: n.outcome.discipline,
            scale=0.5,
            explain=_why_discipline,
        ),
    }


def _why_progress(mine: Night, par: Night, floor: Night, clock) -> str:
    o = mine.outcome
    behind = f"{o.steps_behind} steps ({format_duration(o.steps_behind * o.pace)} of training)"
    if o.completed:
        text = (
            f"The job finished all {o.target_steps} steps at {clock(o.end_time)}, {behind}"
            " behind the undisturbed run by the end of the night."
        )
    else:
        text = (
            f"The model ended {behind} behind the undisturbed run: its effective step is"
            f" {o.effective_step}, from {o.progress_how}."
        )
    others = (
        f" The reference ended {par.outcome.steps_behind} steps behind;"
        f" doing nothing, {floor.outcome.steps_behind}."
    )
    return text + others


def _why_recovered(mine: Night, par: Night, floor: Night, clock) -> str:
    o = mine.outcome
    if o.completed:
        return (
            f"The job finished all {o.target_steps} steps, keeping {o.progress_share:.0%} of the"
            " undisturbed run's progress by the end of the night."
        )
    if o.recovered:
        return (
            f"The job was training again for the last part of the night, at step {o.final_step};"
            f" it kept {o.progress_share:.0%} of the undisturbed run's progress."
        )
    if o.alive:
        return "The job was training at the end, but only just: a recovery needs it training for the last part of the night."
    nothing = "recovered anyway" if floor.outcome.recovered else "did not recover"
    return f"The job was not training at the end of the night (step {o.final_step}). Doing nothing {nothing}."


def _why_time(mine: Night, par: Night, floor: Night, clock) -> str:
    o = mine.outcome
    if not o.outages:
        return "The job never stopped making progress."
    parts = []
    for start, end in o.outages:
        if end is None:
            parts.append(f"stopped at {clock(start)} and was still out at the end")
        else:
            parts.append(
                f"stopped at {clock(start)}, resumed at {clock(end)} ({format_duration(end - start)})"
            )
    ref = format_duration(par.outcome.downtime) if par.outcome.outages else "no time"
    return (
        f"Out of action {format_duration(o.downtime)} in all: "
        + "; ".join(parts)
        + f". The reference lost {ref}."
    )


def _why_integrity(mine: Night, par: Night, floor: Night, clock) -> str:
    o = mine.outcome
    if not o.alive:
        text = "The job was not running at the end, so its weights were not worth comparing: no integrity points."
    elif o.match is None:
        text = "Without the replica (sim backend) the weights are not compared; only what was loaded counts."
    elif o.match == "bitexact":
        text = "The final weights match the undisturbed run bit for bit."
    elif o.match == "close":
        distance = f" (relative distance {o.rel_l2:.2e})" if o.rel_l2 is not None else ""
        text = f"The final weights are close to the undisturbed run{distance}, not bit for bit."
    else:
        text = "The final weights diverged from the undisturbed run: the resume lost state or loaded bad bytes."
    if o.corrupt_loaded:
        text += f" {o.corrupt_loaded} checkpoint(s) were loaded whose bytes did not match their manifest."
    if o.corrupt_caught:
        text += f" {o.corrupt_caught} bad checkpoint(s) were caught before they were loaded."
    return text.strip()


def _why_collateral(mine: Night, par: Night, floor: Night, clock) -> str:
    harm = mine.harm
    ref = par.harm.gpu_hours
    against = f" The reference caused {ref:.1f}."
    if not harm.lines:
        return (
            "No other team lost more than on the night with nobody acting, and no healthy node or"
            " needed checkpoint was taken." + against
        )
    shown = "; ".join(harm.lines[:4]) + (
        f"; and {len(harm.lines) - 4} more" if len(harm.lines) > 4 else ""
    )
    return f"{harm.gpu_hours:.1f} GPU hours of harm: {shown}." + against


def _why_plan(mine: Night, par: Night, floor: Night, clock) -> str:
    o = mine.outcome
    if o.plan_fallback is None:
        return "This incident has no pre-shift plan."
    nights = len(o.plan_nights)
    return (
        f"If the newest checkpoint turned out bad, your plan left the job able to fall back to"
        f" step {o.plan_fallback:.0f} on average, over this night and {nights - 1} more seeded"
        f" nights with failures at other moments. The reference's plan: {par.outcome.plan_fallback:.0f};"
        f" the incident's defaults: {floor.outcome.plan_fallback:.0f}."
    )


def _why_discipline(mine: Night, par: Night, floor: Night, clock) -> str:
    o = mine.outcome
    bits = []
    if o.changes:
        bits.append(
            f"{o.changes_after_look} of {o.changes} changes came after the look that informs"
            " them, made after the first sign of trouble"
        )
    if o.uninformed_lines:
        shown = "; ".join(o.uninformed_lines[:3])
        more = len(o.uninformed_lines) - 3
        bits.append(
            f"uninformed: {shown} after the first sign"
            + (f", and {more} more" if more > 0 else "")
            + ", and a change made without its look keeps the night from an A"
        )
    if o.pages_due:
        bits.append(
            f"{o.pages_acked_in_time} of {o.pages_due} pages acknowledged within the paging target"
        )
    bits.append(f"{o.notes} note(s) written" if o.notes else "no notes written")
    if o.hints_used:
        bits.append(f"{o.hints_used} hint(s) used")
    text = "; ".join(bits)
    return text[:1].upper() + text[1:] + "."
