"""The score: every point traces to a measured figure, compared with real runs of the same night.

`par` is what the engine measures when it plays the incident's reference solution; `floor` is
what it measures when nobody acts. A component scores by where the learner's figure falls
between the two (never more than its weight). When par and floor are equal on a component, a
natural scale per component says how far below par costs all its points. Collateral has no
lower bound: harm to others keeps costing, in proportion to its size.

Where the floor-to-par span compresses big mistakes near the top (doing nothing is so bad that
anything which finishes lands high), fixed costs measured against par alone set a ceiling on a
component: work thrown away beyond the reference's (progress), outages beyond the reference's
(time to recovery), GPUs held beyond the job's need while others queued (collateral). Two
judgement classes cap the total whatever the figures say (`_judgement_caps`).

The seven components and what they read (docs in the authoring guide, "How a night is scored"):
progress (effective steps behind the undisturbed run), recovered (training again, scaled by
progress), time to recovery (each outage summed), integrity (the weights, or nothing for a dead
job), collateral (GPU hours of harm), plan (the fallback step over many nights), discipline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, cast

from drill.engine.scoring.collateral import Collateral, against_floor
from drill.engine.scoring.outcome import Outcome
from drill.values.share import percent
from drill.values.units import format_duration, plural

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
# Fixed costs, against par alone (see "How a night is scored" in drill/incidents/README.md).
# Work thrown away beyond the reference's: this share of the job's steps costs all of progress.
THROWN_AWAY_SPAN = 0.2
# Each outage beyond the reference's costs this share of time to recovery, as six more minutes
# out of action would on its 30-minute scale: a restart is a rendezvous, a checkpoint load and
# a chance to fail, however short.
EXTRA_OUTAGE_COST = 0.2
# Judgement classes: the highest total each can reach.
UNINFORMED_CEILING = 89.9  # an act with no look that informed it: no better than B
STOPPED_OTHERS_CEILING = 64.9  # stopping another team's running job: D or lower
LEFT_BEHIND_CEILING = 89.9  # a known-broken node left schedulable at the end: no better than B


@dataclass(frozen=True)
class Component:
    name: str
    value: Any  # the learner's raw figure
    par: Any
    floor: Any
    points: float
    weight: float
    why: str
    # "tonight", or "expected over N nights" for a figure averaged over the ensemble
    # (drill/engine/scoring/ensemble.py) or the plan's nights.
    basis: str = "tonight"


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
    # A fixed cost against par, as a share of the weight: the component earns at most 1 - cost.
    cost: Callable[[Outcome, Outcome], float] | None = None
    alive_only: bool = False  # a job that is dead at the end earns nothing here
    # Scored against par alone on `scale`, never against the floor: for a figure whose value
    # for doing nothing says nothing (how a person conducted the night).
    against_par: bool = False


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
    nights = [Night(o, night_harm(o, floor)) for o in (mine, par, floor)]
    weights = {**DEFAULT_WEIGHTS, **weights}
    if mine.plan_fallback is None or par.plan_fallback is None or floor.plan_fallback is None:
        weights["plan"] = 0.0  # no pre-shift plan in this incident: nothing to judge
    components = []
    for name, axis in _axes(job_gpus, mine.target_steps).items():
        weight = weights.get(name, 0.0)
        g_mine, g_par, g_floor = (axis.goodness(n) for n in nights)
        if axis.against_par:
            g_floor = g_par  # the floor plays no part: falling short of par costs on the scale
        share = _share(g_mine, g_par, g_floor, axis.scale, axis.uncapped, capped)
        cost = axis.cost(mine, par) if axis.cost is not None else 0.0
        if cost > 0:
            share = min(share, max(0.0, 1.0 - cost))
        if axis.alive_only and not mine.alive:
            share = 0.0  # whatever par and floor are: a dead job keeps none of this
        components.append(
            Component(
                name=name,
                value=axis.figure(nights[0]),
                par=axis.figure(nights[1]),
                floor=axis.figure(nights[2]),
                points=round(weight * share, 2),
                weight=weight,
                why=axis.explain(nights[0], nights[1], nights[2], clock),
                basis=basis_of(name, mine),
            )
        )
    possible = sum(c.weight for c in components) or 1.0
    total = round(100.0 * sum(c.points for c in components) / possible, 1)
    ceiling = _judgement_caps(mine, par)
    if ceiling < 100.0:
        total = min(total, ceiling)
    if capped:
        total = max(0.0, min(100.0, total))
    return Score(total, grade_of(total), tuple(components))


def grade_of(total: float) -> str:
    return next((letter for cutoff, letter in GRADES if total >= cutoff), "F")


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


# -- fixed costs against par, and the judgement caps ------------------------------------------


def thrown_away_cost(mine: Outcome, par: Outcome) -> float:
    """Work thrown away beyond the reference's (steps trained and then lost, and good data
    skipped), as a share of the progress weight: a fifth of the job's steps costs all of it."""
    extra = max(0, mine.thrown_away - par.thrown_away)
    return extra / max(1.0, THROWN_AWAY_SPAN * mine.target_steps)


def extra_outage_cost(mine: Outcome, par: Outcome) -> float:
    """A needless extra outage: each beyond the reference's costs a fifth of time to recovery,
    however short (every restart is a rendezvous, a checkpoint load and a chance to fail)."""
    return EXTRA_OUTAGE_COST * max(0, len(mine.outages) - len(par.outages))


def held_gpu_hours(o: Outcome) -> float:
    """GPU hours held beyond the job's need while other teams' jobs were queued for them."""
    return o.extra_gpu_seconds / 3600.0


def _judgement_caps(outcome: Outcome, par: Outcome) -> float:
    """The highest total a night can reach, by the judgement it showed: a change with no look
    that informed it is no better than B, and so is a broken node the learner could see left
    schedulable for other teams at the end of the night; stopping another team's running job
    (cancel, requeue, restart of their job) is D or lower. Each only beyond what the reference
    itself did."""
    ceiling = 100.0
    if outcome.uninformed_changes > par.uninformed_changes:
        ceiling = min(ceiling, UNINFORMED_CEILING)
    if len(outcome.stopped_others) > len(par.stopped_others):
        ceiling = min(ceiling, STOPPED_OTHERS_CEILING)
    if len(outcome.left_schedulable) > len(par.left_schedulable):
        ceiling = min(ceiling, LEFT_BEHIND_CEILING)
    return ceiling


# -- expectations over the ensemble (drill/engine/scoring/ensemble.py) ---------------------------------


def night_harm(o: Outcome, floor: Outcome) -> Collateral:
    """One night's harm to others, against the floor of the same night (tonight's or a
    variant's). The ensemble reads every night's collateral through this, so what counts as
    harm is the same tonight and on average."""
    return against_floor(o.others, floor.others, o.harms, o.healthy_gpu_seconds)


def night_collateral(o: Outcome, floor: Outcome) -> float:
    return night_harm(o, floor).gpu_hours


def expected_collateral(n: Night) -> float:
    """Collateral as scored: the ensemble's mean when the night has one, else tonight's."""
    expected = n.outcome.expected.get("collateral")
    return float(expected["mean"]) if expected else n.harm.gpu_hours


def expected_steps_behind(n: Night) -> float:
    """Steps behind as scored: the ensemble's mean for an incident with a plan, else tonight's."""
    expected = n.outcome.expected.get("progress")
    return float(expected["mean"]) if expected else n.outcome.steps_behind


def collateral_figure(n: Night) -> float:
    """Collateral as scored: harm to others plus GPUs held beyond the job's need while others
    queued, as the ensemble's mean (which counts both on every night) or tonight's."""
    if n.outcome.expected.get("collateral"):
        return expected_collateral(n)
    return n.harm.gpu_hours + held_gpu_hours(n.outcome)


def basis_of(name: str, mine: Outcome) -> str:
    """Whether a component's figure is tonight's or an expectation, and over how many nights."""
    if name in mine.expected:
        return f"expected over {mine.expected[name]['nights']} nights"
    if name == "plan" and mine.plan_fallback is not None and len(mine.plan_nights) > 1:
        return f"expected over {len(mine.plan_nights)} nights"
    return "tonight"


def _why_expected_collateral(mine: Night) -> str:
    expected = mine.outcome.expected.get("collateral")
    if not expected:
        return ""
    text = (
        f" Scored as the mean over {expected['nights']} nights (tonight and seeded variants with"
        f" other teams' jobs and random failures redrawn): {expected['mean']:.1f} GPU hours,"
        f" tonight {mine.harm.gpu_hours + held_gpu_hours(mine.outcome):.1f}."
    )
    if expected.get("dropped"):
        text += (
            f" {plural(expected['dropped'], 'variant night')} "
            + ("was not used: it" if expected["dropped"] == 1 else "were not used: they")
            + " would have shown you a different night."
        )
    return text


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


def recovered_figure(o: Outcome) -> float:
    """The recovered share as the save keeps it and the table prints it. The text quotes this
    same rounded number through `percent`, so the table and the words never disagree by a point."""
    return round(recovered_value(o), 3)


def _axes(job_gpus: int, steps: int) -> dict[str, Axis]:
    return {
        "progress": Axis(
            figure=lambda n: {"steps_behind": expected_steps_behind(n)},
            goodness=lambda n: -float(expected_steps_behind(n)),
            scale=max(10.0, steps * 0.1),
            explain=_why_progress,
            cost=thrown_away_cost,
        ),
        "recovered": Axis(
            figure=lambda n: recovered_figure(n.outcome),
            goodness=lambda n: recovered_value(n.outcome),
            scale=0.5,
            explain=_why_recovered,
        ),
        "time_to_recovery": Axis(
            figure=lambda n: n.outcome.downtime,
            goodness=lambda n: -n.outcome.downtime,
            scale=1800.0,
            explain=_why_time,
            cost=extra_outage_cost,
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
            alive_only=True,
        ),
        "collateral": Axis(
            figure=lambda n: round(collateral_figure(n), 3),
            goodness=lambda n: -collateral_figure(n),
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
            against_par=True,
        ),
    }


def _why_progress(mine: Night, par: Night, floor: Night, clock) -> str:
    """Where the job got to, where the undisturbed run would be, and the gap in training time.

    The undisturbed run is counted on at its pace past the job's last step to the end of the
    night (StepClock.steps_by), so a finished job that finished late is behind by the time it
    lost, and "steps behind" can exceed the job's steps. The sentence says so in time, which a
    learner can picture, with the steps after it."""
    o = mine.outcome
    if o.completed:
        text = f"The job finished all {o.target_steps} steps at {clock(o.end_time)}."
    elif o.alive:
        text = f"The job reached step {o.final_step} of {o.target_steps} by the end of the night."
    else:
        text = (
            f"The job reached step {o.final_step} of {o.target_steps} and was not running at"
            " the end of the night."
        )
    quiet = "The undisturbed run (the same job alone on a quiet cluster)"
    if o.baseline_step > o.target_steps:
        text += (
            f" {quiet} would have finished its {o.target_steps} steps and, counted on at its pace"
            f" to the end of the night, reached step {o.baseline_step}."
        )
    else:
        text += f" {quiet} would have reached step {o.baseline_step} by the end of the night."
    if o.steps_behind:
        text += f" Your model ended {_behind(o.steps_behind, o.pace)} behind that"
    else:
        text += " Your model ended level with it"
    text += f": its effective step is {o.effective_step}, from {o.progress_how}."
    others = (
        f" The reference ended {_behind(par.outcome.steps_behind, o.pace)} behind;"
        f" doing nothing, {_behind(floor.outcome.steps_behind, o.pace)}."
    )
    expected = o.expected.get("progress")
    if expected:
        others += (
            f" Scored as the mean over {expected['nights']} nights (tonight and seeded variants"
            f" where failures strike at other moments, since a checkpoint plan is judged by what"
            f" it costs on average): {_behind(expected['mean'], o.pace)} behind, against the"
            f" reference's {_behind(expected_steps_behind(par), o.pace)}."
        )
    return text + others + _why_thrown_away(o, par.outcome)


def _behind(steps: float, pace: float) -> str:
    """A gap as training time first, then steps: "11m54s of training (56 steps)"."""
    if not steps:
        return "nothing"
    count = f"{steps:.0f} step" + ("" if round(steps) == 1 else "s")
    return f"{format_duration(steps * pace)} of training ({count})"


def _why_thrown_away(o: Outcome, par: Outcome) -> str:
    extra = max(0, o.thrown_away - par.thrown_away)
    if not extra:
        return ""
    parts = []
    redone = max(0, o.steps_trained - o.final_step)
    if redone:
        parts.append(f"{redone} steps trained and then lost")
    if o.skipped_steps:
        parts.append(f"{o.skipped_steps} steps of good data skipped")
    share = min(1.0, thrown_away_cost(o, par))
    return (
        f" The night threw away {' and '.join(parts)}, {extra} steps more than the reference"
        f" ({extra / max(1, o.target_steps):.0%} of the run): that caps progress at"
        f" {1 - share:.0%} of its points, as a fifth of the run thrown away costs all of them."
    )


def _why_recovered(mine: Night, par: Night, floor: Night, clock) -> str:
    o = mine.outcome
    if o.completed:
        return (
            f"The job finished all {o.target_steps} steps, keeping {percent(recovered_figure(o))} of the"
            " undisturbed run's progress by the end of the night."
        )
    if o.recovered:
        return (
            f"The job was training again for the last part of the night, at step {o.final_step};"
            f" it kept {percent(recovered_figure(o))} of the undisturbed run's progress."
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
                f"stopped at {clock(start)}, resumed at {clock(end)} ({format_duration(end - cast(float, start))})"
            )
    ref = format_duration(par.outcome.downtime) if par.outcome.outages else "no time"
    text = (
        f"Out of action {format_duration(o.downtime)} in all: "
        + "; ".join(parts)
        + f". The reference lost {ref}."
    )
    extra = len(o.outages) - len(par.outcome.outages)
    if extra > 0:
        text += (
            f" {len(o.outages)} outages where the reference had {len(par.outcome.outages)}:"
            f" each needless one costs a fifth of these points, however short."
        )
    return text


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
    elif o.skips:
        ranges = ", ".join(f"{a}-{b}" for a, b in o.skips)
        text = (
            f"The final weights differ from the undisturbed run's: the job skipped the data of"
            f" steps {ranges}, as recorded, so it trained on other batches than that run did."
        )
    else:
        text = "The final weights diverged from the undisturbed run: the resume lost state or loaded bad bytes."
    return (text + _why_bad_checkpoints(o)).strip()


def _why_bad_checkpoints(o: Outcome) -> str:
    """What happened with damaged checkpoints, in the order a night meets them: restarts that
    stopped on one, checks that found one, loads that took bad bytes in. "Caught before they
    were loaded" was wrong for a torn checkpoint two restarts had already failed to load."""
    text = ""
    if o.failed_loads:
        plural = "" if o.failed_loads == 1 else "s"
        text += f" {o.failed_loads} restart{plural} failed on a damaged checkpoint."
    if o.corrupt_caught:
        text += f" Verifying found {_count(o.corrupt_caught, 'bad checkpoint', 'bad checkpoints')}."
    if o.corrupt_loaded:
        loads = _count(o.corrupt_loaded, "resume", "resumes")
        text += f" {loads} loaded a checkpoint whose bytes did not match its manifest."
    elif o.failed_loads or o.corrupt_caught:
        text += " No attempt trained from bad bytes."
    return text


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _why_collateral(mine: Night, par: Night, floor: Night, clock) -> str:
    harm = mine.harm
    ref = par.harm.gpu_hours + held_gpu_hours(par.outcome)
    against = f" The reference caused {ref:.1f}."
    expected = _why_expected_collateral(mine)
    if expected:
        ref = collateral_figure(par)
        against = f" The reference caused {ref:.1f} on average." + expected
    against += _why_stopped_others(mine.outcome, par.outcome)
    against += _why_left_behind(mine.outcome, par.outcome)
    held = held_gpu_hours(mine.outcome)
    lines = list(harm.lines)
    if held > 0:
        lines.insert(
            0,
            f"your job held {held:.1f} GPU hours beyond the {mine.outcome.target_gpus or 'needed'}"
            " GPUs it needs while other teams' jobs queued for them",
        )
    if not lines:
        return (
            "No other team lost more than on the night with nobody acting, and no healthy node or"
            " needed checkpoint was taken." + against
        )
    shown = "; ".join(lines[:4]) + (f"; and {len(lines) - 4} more" if len(lines) > 4 else "")
    tonight = " tonight" if expected else ""
    return f"{harm.gpu_hours + held:.1f} GPU hours of harm{tonight}: {shown}." + against


def _why_left_behind(mine: Outcome, par: Outcome) -> str:
    if len(mine.left_schedulable) <= len(par.left_schedulable):
        return ""
    return (
        f" At the end of the night {', '.join(mine.left_schedulable)} was still broken and"
        " open to other teams' jobs after you could see its fault: the total stays below"
        f" {LEFT_BEHIND_CEILING + 0.1:.0f}."
    )


def _why_stopped_others(mine: Outcome, par: Outcome) -> str:
    if len(mine.stopped_others) <= len(par.stopped_others):
        return ""
    return (
        f" You stopped another team's running job ({', '.join(mine.stopped_others)}) by acting"
        f" on it: whatever the figures say, the total stays below {STOPPED_OTHERS_CEILING + 0.1:.0f}."
    )


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
            f"{o.changes_after_look} of {plural(o.changes, 'change')} came after a look that informs"
            " them, made after the first sign of trouble"
        )
    if o.uninformed_lines:
        # Each line says which change, when, and the look that would have counted
        # (drill/engine/scoring/discipline.py); three are enough to act on.
        shown = "; ".join(o.uninformed_lines[:3])
        more = len(o.uninformed_lines) - 3
        bits.append(shown + (f"; and {more} more like them" if more > 0 else ""))
    elif not o.changes and o.pages_due and not o.looks_after_signal:
        bits.append("no look and no change after the pages came: no response earns no looks part")
    if o.pages_due:
        bits.append(
            f"{o.pages_acked_in_time} of {plural(o.pages_due, 'page')} acknowledged within the paging target"
        )
    bits.append(plural(o.notes, "note written", "notes written") if o.notes else "no notes written")
    if o.hints_used:
        bits.append(plural(o.hints_used, "hint used", "hints used"))
    text = "; ".join(bits)
    text = text[:1].upper() + text[1:] + "."
    if o.uninformed_changes > par.outcome.uninformed_changes:
        text += (
            f" {plural(o.uninformed_changes, 'change')} had no look that informed them: a guess that came"
            f" off is not a diagnosis, so the total stays below {UNINFORMED_CEILING + 0.1:.0f}."
        )
    return text
