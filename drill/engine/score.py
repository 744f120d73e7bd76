"""The score: every point traces to a measured figure, compared with real runs of the same night.

`par` is what the engine measures when it plays the incident's reference solution; `floor` is
what it measures when nobody acts. A component scores by where the learner's figure falls
between the two, with up to 20 percent more for beating par. When par and floor are equal (both
runs did equally well on that axis), a natural scale per component decides how far below par
costs the points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from drill.engine.outcome import Outcome
from drill.incident.units import format_duration

DEFAULT_WEIGHTS = {
    "recovered": 30.0,
    "time_to_recovery": 15.0,
    "work_lost": 15.0,
    "integrity": 15.0,
    "collateral": 10.0,
    "discipline": 15.0,
}
BONUS_CAP = 1.2
MATCH_VALUE = {"bitexact": 1.0, "close": 0.8, "diverged": 0.0}
GRADES = ((90, "A"), (80, "B"), (65, "C"), (50, "D"))


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


@dataclass(frozen=True)
class Axis:
    """How one component reads an Outcome: a display figure, a goodness (higher is better), a
    scale for when par equals floor, and a sentence."""

    figure: Callable[[Outcome], Any]
    goodness: Callable[[Outcome, float], float]
    scale: float
    explain: Callable[[Outcome, Outcome, Outcome, Callable[[float], str]], str]


def build_score(
    mine: Outcome,
    par: Outcome,
    floor: Outcome,
    *,
    weights: dict[str, float],
    night_length: float,
    job_gpus: int,
    clock: Callable[[float], str],
) -> Score:
    axes = _axes(job_gpus)
    weights = {**DEFAULT_WEIGHTS, **weights}
    if mine.match is None and par.match is None:
        weights["integrity"] = 0.0  # no replica ran: nothing measured, nothing scored
    components = []
    for name, axis in axes.items():
        weight = weights.get(name, 0.0)
        g_mine = axis.goodness(mine, night_length)
        g_par = axis.goodness(par, night_length)
        g_floor = axis.goodness(floor, night_length)
        share = _share(g_mine, g_par, g_floor, axis.scale)
        components.append(
            Component(
                name=name,
                value=axis.figure(mine),
                par=axis.figure(par),
                floor=axis.figure(floor),
                points=round(weight * share, 2),
                weight=weight,
                why=axis.explain(mine, par, floor, clock),
            )
        )
    possible = sum(c.weight for c in components) or 1.0
    total = round(min(100.0, 100.0 * sum(c.points for c in components) / possible), 1)
    grade = next((letter for cutoff, letter in GRADES if total >= cutoff), "F")
    return Score(total, grade, tuple(components))


def _share(mine: float, par: float, floor: float, scale: float) -> float:
    if par > floor:
        return max(0.0, min(BONUS_CAP, (mine - floor) / (par - floor)))
    if mine >= par:
        return 1.0
    return max(0.0, 1.0 - (par - mine) / scale)


# -- the six axes ---------------------------------------------------------------------------


def _recovery_seconds(o: Outcome, night: float) -> float:
    if o.onset is None:
        return 0.0
    if o.recovered_at is None:
        return night
    return max(0.0, o.recovered_at - o.onset)


def _discipline(o: Outcome) -> float:
    looks = o.surgery_after_look / o.surgery if o.surgery else 1.0
    acks = o.pages_acked_in_time / o.pages if o.pages else 1.0
    notes = 1.0 if o.notes else 0.0
    hints = max(0.0, 1.0 - 0.25 * o.hints_used)
    return round((looks + acks + notes + hints) / 4.0, 4)


def _integrity(o: Outcome) -> float:
    base = MATCH_VALUE.get(o.match or "", 0.5)
    return base - 0.5 * o.corrupt_loaded


def _axes(job_gpus: int) -> dict[str, Axis]:
    def ttr_figure(o: Outcome):
        if o.onset is None:
            return 0
        return None if o.recovered_at is None else round(o.recovered_at - o.onset, 1)

    return {
        "recovered": Axis(
            figure=lambda o: o.recovered,
            goodness=lambda o, n: 1.0 if o.recovered else 0.0,
            scale=1.0,
            explain=_why_recovered,
        ),
        "time_to_recovery": Axis(
            figure=ttr_figure,
            goodness=lambda o, n: -_recovery_seconds(o, n),
            scale=1800.0,
            explain=_why_time,
        ),
        "work_lost": Axis(
            figure=lambda o: {
                "steps_recomputed": o.steps_recomputed,
                "steps_behind": o.steps_behind,
                "gpu_hours": round(o.gpu_hours_wasted + o.gpu_hours_behind, 3),
            },
            goodness=lambda o, n: -(o.gpu_hours_wasted + o.gpu_hours_behind),
            scale=max(1.0, job_gpus * 0.25),
            explain=_why_work,
        ),
        "integrity": Axis(
            figure=lambda o: {
                "match": o.match,
                "corrupt_loaded": o.corrupt_loaded,
                "corrupt_caught": o.corrupt_detected,
            },
            goodness=lambda o, n: _integrity(o),
            scale=0.5,
            explain=_why_integrity,
        ),
        "collateral": Axis(
            figure=lambda o: len(o.harms),
            goodness=lambda o, n: -float(len(o.harms)),
            scale=3.0,
            explain=_why_collateral,
        ),
        "discipline": Axis(
            figure=_discipline,
            goodness=lambda o, n: _discipline(o),
            scale=0.5,
            explain=_why_discipline,
        ),
    }


def _why_recovered(mine: Outcome, par: Outcome, floor: Outcome, clock) -> str:
    if mine.recovered and mine.final_step >= mine.target_steps:
        return f"The job finished all {mine.target_steps} steps."
    if mine.recovered:
        return f"The job was training again at the end of the night, at step {mine.final_step}."
    nothing = "recovered anyway" if floor.recovered else "did not recover"
    return f"The job was not training at the end of the night (step {mine.final_step}). Doing nothing {nothing}."


def _why_time(mine: Outcome, par: Outcome, floor: Outcome, clock) -> str:
    if mine.onset is None:
        return "The job never stopped making progress."
    if mine.recovered_at is None:
        return f"Progress stopped at {clock(mine.onset)} and never came back."
    took = format_duration(mine.recovered_at - mine.onset)
    ref = (
        ""
        if par.recovered_at is None or par.onset is None
        else f" The reference took {format_duration(par.recovered_at - par.onset)}."
    )
    return f"Progress stopped at {clock(mine.onset)} and real steps resumed at {clock(mine.recovered_at)}, {took} later.{ref}"


def _why_work(mine: Outcome, par: Outcome, floor: Outcome, clock) -> str:
    lost = mine.gpu_hours_wasted + mine.gpu_hours_behind
    ref = par.gpu_hours_wasted + par.gpu_hours_behind
    text = (
        f"{mine.steps_recomputed} steps were trained twice and {mine.gpu_hours_wasted:.1f} GPU hours went to"
        " hung gangs, failed start-ups and repeated work."
    )
    if mine.steps_behind:
        text += f" The job still owed {mine.steps_behind} steps ({mine.gpu_hours_behind:.1f} GPU hours) at the end."
    return text + f" In all {lost:.1f} GPU hours lost; the reference lost {ref:.1f}."


def _why_integrity(mine: Outcome, par: Outcome, floor: Outcome, clock) -> str:
    if mine.match is None:
        return "No replica ran, so the weights were not compared."
    parts = {
        "bitexact": "The final weights match the undisturbed run bit for bit.",
        "close": f"The final weights are close to the undisturbed run (relative distance {mine.rel_l2:.2e}), not bit for bit.",
        "diverged": "The final weights diverged from the undisturbed run: the resume lost state or loaded bad bytes.",
    }
    text = parts.get(mine.match, "")
    if mine.corrupt_loaded:
        text += f" {mine.corrupt_loaded} corrupted checkpoint(s) were loaded without a check."
    if mine.corrupt_detected:
        text += f" {mine.corrupt_detected} bad checkpoint(s) were caught before loading."
    return text.strip()


def _why_collateral(mine: Outcome, par: Outcome, floor: Outcome, clock) -> str:
    if not mine.harms:
        return "No other team's work, no healthy node and no needed checkpoint was harmed."
    shown = "; ".join(mine.harms[:3]) + (
        f"; and {len(mine.harms) - 3} more" if len(mine.harms) > 3 else ""
    )
    return f"Harm to others: {shown}."


def _why_discipline(mine: Outcome, par: Outcome, floor: Outcome, clock) -> str:
    bits = []
    if mine.surgery:
        bits.append(
            f"{mine.surgery_after_look} of {mine.surgery} node or job changes came after a look at that target"
        )
    if mine.pages:
        bits.append(
            f"{mine.pages_acked_in_time} of {mine.pages} pages acknowledged within the paging target"
        )
    bits.append(f"{mine.notes} note(s) written" if mine.notes else "no notes written")
    if mine.hints_used:
        bits.append(f"{mine.hints_used} hint(s) used")
    return "; ".join(bits).capitalize() + "."
