"""The night scored over what nobody on call could know: the same actions on seeded variants.

Tonight is one draw of things a person on call cannot see coming: which other team submits what
and when, and which node fails at random next. A reboot that leaves a broken node schedulable is
cheap on a night when no other job lands on it and costly on the next. So the figures that hang
on that luck (collateral) are read as an expectation: the learner's own accepted actions, each
at the moment it started, are played again on ENSEMBLE_NIGHTS - 1 variant nights of the same
incident and seed, and the per-night figures are averaged with tonight's.

A variant keeps everything the learner could see or act on: the incident's faults fire at the
same times, with the same jitter and on the same targets; the nodes, jobs and checkpoints are
those the incident names. It redraws only the unknowable streams (drill/sim/world.py,
UNKNOWABLE_STREAMS): the background jobs' arrivals and sizes, and random node failures at the
cluster's MTBF (added here when the incident has none of its own). Tenants' writes to volumes
have no random stream (they are the incident's own story, seen by `df`), so they stay.

A variant is not used (dropped, and counted) when it would have shown the learner a different
night: one of their accepted lines would be refused there (it names another team's job that
does not exist, say), a fault fired at another time or on another target, a node a line named
had a different kernel log up to that line, or a job a line named is another job there.

Variant nights are sim-only whatever tonight's backend: other teams' work, which collateral
measures, is simulated on every backend. They are deterministic: same incident, seed and actions
give the same nights in any process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from drill.engine.drill import ActionResult, Drill
from drill.engine.scoring.outcome import Outcome, measure
from drill.engine.scoring.plan_check import with_random_failures
from drill.engine.scoring.score import night_collateral
from drill.incident.models import Incident

if TYPE_CHECKING:
    from drill.engine.scoring.undisturbed import StepClock
    from drill.sim.world import World

# K: tonight and seven variants. Each variant is one sim night (about 0.05 to 0.3 s on this
# machine, the longest for a four-hour night with many jobs); see the README's "How a night is
# scored" for the measured time it adds.
ENSEMBLE_NIGHTS = 8
# The components read as an expectation over the ensemble (progress only for an incident with
# a pre-shift plan: see expected_figures).
EXPECTED = ("collateral", "progress")
_WORD = re.compile(r"[A-Za-z0-9_.:-]+")


@dataclass(frozen=True)
class Line:
    """One accepted action as the learner played it: when it started and its exact text."""

    time: float
    text: str


@dataclass(frozen=True)
class VariantNight:
    variant: int
    outcome: Outcome | None  # None: dropped
    dropped: str = ""  # why it was not used


def variants() -> range:
    return range(1, ENSEMBLE_NIGHTS)


def accepted_lines(actions: list[ActionResult] | list[dict]) -> list[Line]:
    """The accepted actions of a night (results or their saved dicts): a refused line changed
    nothing, so a variant does not play it."""
    out = []
    for a in actions:
        if isinstance(a, dict):
            if a.get("accepted"):
                out.append(Line(float(a["time"]), str(a["text"])))
        elif a.accepted:
            out.append(Line(a.time, a.text))
    return out


def variant_incident(incident: Incident) -> Incident:
    """The incident a variant plays: random failures at the cluster's MTBF unless the incident
    has its own (whose stream a variant redraws)."""
    if any(f.kind == "random_failures" for f in incident.faults):
        return incident
    return with_random_failures(incident)


def play_variants(
    incident: Incident,
    seed: int,
    lines: list[Line],
    clock: StepClock,
    tonight: World,
) -> list[VariantNight]:
    """The ensemble's variant nights of these lines, each measured or dropped with its reason.
    `tonight` is the night the lines were played on, run to its end."""
    return [play_variant(incident, seed, lines, clock, tonight, v) for v in variants()]


def play_variant(
    incident: Incident,
    seed: int,
    lines: list[Line],
    clock: StepClock,
    tonight: World,
    variant: int,
) -> VariantNight:
    drill = Drill(variant_incident(incident), seed, variant=variant)
    why = _replay(drill, lines)
    if not why:
        outcome = measure(drill, incident.scoring.paging_target, clock, plan=False)
        why = _sees_otherwise(incident, tonight, drill.world, lines)
        if not why:
            return VariantNight(variant, outcome)
    return VariantNight(variant, None, why)


def _replay(drill: Drill, lines: list[Line]) -> str:
    for line in lines:
        drill.advance_to(line.time)
        if drill.over:
            return f"the night was over there before `{line.text}`"
        result = drill.act(line.text)
        if not result.accepted:
            return f"`{line.text}` would be refused there: {result.output}"
    drill.play_out()
    return ""


def _sees_otherwise(incident: Incident, tonight: World, there: World, lines: list[Line]) -> str:
    """Why the variant would have shown the learner another night, or "" if it would not."""
    for fault in incident.faults:
        if fault.kind == "random_failures":
            continue  # its strikes are what a variant redraws
        here, away = tonight.faults, there.faults
        when = here.fired_at.get(fault.id) != away.fired_at.get(fault.id)
        if when or here.chosen.get(fault.id) != away.chosen.get(fault.id):
            return f"fault {fault.id} struck at another time or target there"
    nodes = tonight.cluster.nodes
    for line in lines:
        # In the line's own order (a set's order changes with PYTHONHASHSEED).
        for word in dict.fromkeys(_WORD.findall(line.text)):
            t = line.time
            if word in nodes and _kernel_log(tonight, word, t) != _kernel_log(there, word, t):
                return f"{word} showed another kernel log by `{line.text}` there"
            job = tonight.jobs.get(word)
            if job is not None and not job.yours:
                other = there.jobs.get(word)
                if other is None or (other.team, other.gpus) != (job.team, job.gpus):
                    return f"{word} named by `{line.text}` is another job there"
    return ""


def _kernel_log(world: World, node: str, until: float) -> list[str]:
    return [text for time, text in world.cluster.nodes[node].kernel_log if time <= until]


def _held_hours(o: Outcome) -> float:
    return o.extra_gpu_seconds / 3600.0


def expected_figures(
    tonight: Outcome,
    tonight_floor: Outcome,
    nights: list[VariantNight],
    floor_nights: list[Outcome | None],
    *,
    progress: bool = False,
) -> dict[str, dict]:
    """Per component in EXPECTED: tonight's figure and each used variant's, each against that
    night's own floor, with their mean. `floor_nights` are the floor's variants, in order (None:
    the floor's own variant was not used, so neither is anyone's).

    `progress` (for an incident with a pre-shift plan): the steps behind the undisturbed run are
    an expectation too, because what a checkpoint cadence costs depends on when failures
    strike, which nobody on call could know. Tonight's figure is measured (the replica's loss,
    where it trains); the variants' are counted on the sim."""
    # Harm to others, plus GPUs held beyond the job's need while others queued: both are
    # what other teams went without, and both depend on who else was there.
    values = [night_collateral(tonight, tonight_floor) + _held_hours(tonight)]
    behind = [float(tonight.steps_behind)]
    dropped = []
    for night, floor in zip(nights, floor_nights, strict=True):
        if night.outcome is None:
            dropped.append(f"night {night.variant}: {night.dropped}")
        elif floor is None:
            dropped.append(f"night {night.variant}: the night with nobody acting differs there")
        else:
            values.append(night_collateral(night.outcome, floor) + _held_hours(night.outcome))
            behind.append(float(night.outcome.steps_behind))
    figures = {
        "collateral": {
            "nights": len(values),
            "mean": round(sum(values) / len(values), 3),
            "values": values,
            "dropped": len(dropped),
            "dropped_why": dropped,
        }
    }
    if progress:
        figures["progress"] = {
            "nights": len(behind),
            "mean": round(sum(behind) / len(behind), 3),
            "values": behind,
            "dropped": len(dropped),
            "dropped_why": dropped,
        }
    return figures
