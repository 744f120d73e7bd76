"""Checkpoint cadence advice that quotes the simulator's own check against theory.

Young's interval for the learner's job comes from the incident's numbers; the measured lines come
from drill/season/measured.py, the sweep tests/theory/test_checkpoint_theory.py checks.
"""

from __future__ import annotations

import math

from drill.incident.models import Incident
from drill.season import measured
from drill.values.units import format_duration, plural


def measured_lines() -> list[str]:
    """What the simulator measured, in a sentence or two a learner can check against."""
    rows = {factor: row for factor, *row in measured.ROWS}
    quarter, young, four = rows[0.25], rows[1.0], rows[4.0]
    return [
        f"- Checked in this simulator: one job on nodes failing at random (checkpoint"
        f" {format_duration(measured.CHECKPOINT)}, restart {format_duration(measured.RESTART)}, one failure"
        f" every {format_duration(measured.MTBF)}), {measured.NIGHTS} seeded 12-hour nights at"
        f" each of {len(measured.ROWS)} cadences. Wasted time per hour of training kept:"
        f" {quarter[2]:.1%} at a quarter of Young's interval, {young[2]:.1%} at Young's,"
        f" {four[2]:.1%} at four times it; theory says {quarter[4]:.1%}, {young[4]:.1%} and"
        f" {four[4]:.1%}.",
        f"- The least waste measured was at {measured.LEAST_AT:.2f} times Young's interval. Near"
        f" it the curve is flat: at half and at twice the interval the waste measured"
        f" {rows[0.5][2]:.1%} and {rows[2.0][2]:.1%}.",
    ]


ASYNC_COPY = (
    5.0  # seconds: an asynchronous checkpoint stops training only for a copy to host memory
)


def node_mtbf(incident: Incident) -> tuple[float, str] | None:
    """The per-node MTBF the advice uses, and what it is based on, in the words the advice
    says: the season's rate where the incident has one (what `drill season` plays), else the
    cluster's stated one. Never tonight's fault: the drill placed it when the lesson needed it."""
    season = incident.season
    if season is not None and season.mtbf:
        rate = season.mtbf / season.scale
        if season.scale > 1:
            return rate, (
                f"the season's failure rate (one failure per node every"
                f" {format_duration(season.mtbf)}, each node here standing for {season.scale})"
            )
        return (
            rate,
            f"the season's failure rate (one failure per node every {format_duration(rate)})",
        )
    if incident.cluster.mtbf:
        return incident.cluster.mtbf, (
            f"the cluster's stated failure rate (one failure per node every"
            f" {format_duration(incident.cluster.mtbf)})"
        )
    return None


def job_young(incident: Incident) -> tuple[float, float, float] | None:
    """(checkpoint write seconds, the job's MTBF, Young's interval) for the learner's job, or
    None when the incident states no MTBF."""
    spec = incident.learner_job
    nodes = max(1, math.ceil(spec.gpus / incident.cluster.gpus_per_node))
    found = node_mtbf(incident)
    if found is None:
        return None
    size = spec.model_params * spec.bytes_per_param
    volume = next((v for v in incident.storage if v.name == spec.checkpoint.volume), None)
    write = size / volume.write_bandwidth if volume else spec.checkpoint.write_time
    mtbf = found[0] / nodes
    return write, mtbf, math.sqrt(2 * write * mtbf)


def async_line(mtbf: float, step_time: float) -> str:
    """Young's interval when the write no longer stops training, only the copy to host does."""
    young = math.sqrt(2 * ASYNC_COPY * mtbf)
    steps = max(1, round(young / step_time))
    return (
        "- With asynchronous checkpointing (the state copied to host memory in a few seconds,"
        " then written to storage in the background while training goes on), C in the formula"
        " is the copy, not the write: at a copy of"
        f" {format_duration(ASYNC_COPY)} the interval is {format_duration(young)}, every"
        f" {plural(steps, 'step')}, and training pauses only for the copy."
    )


def cadence_lines(incident: Incident, every: int) -> list[str]:
    """The debrief's cadence advice: this job's Young's interval beside the chosen cadence, and
    the measurements that back the formula. It says what its failure rate is based on: a night's
    scripted fault came when the lesson needed it, and one failure is not a rate."""
    spec = incident.learner_job
    chosen = every * spec.step_time
    found = job_young(incident)
    basis = node_mtbf(incident)
    out = []
    if found is None or basis is None:
        out.append("- This incident states no MTBF, so Young's formula has nothing to work with.")
    else:
        write, mtbf, young = found
        steps = max(1, round(young / spec.step_time))
        drawn = any(fault.kind == "random_failures" for fault in incident.faults)
        source = (
            ", the rate tonight's failures were drawn at"
            if drawn
            else ", not on tonight's fault, which the drill placed when the lesson needed it"
        )
        out.append(
            f"- Based on {basis[1]}{source}: your job writes a checkpoint in {format_duration(write)} and"
            f" sees a failure about every {format_duration(mtbf)}. Young's interval sqrt(2 x"
            f" {format_duration(write)} x {format_duration(mtbf)}) is {format_duration(young)},"
            f" every {plural(steps, 'step')}. You checkpointed every {every} steps"
            f" ({format_duration(chosen)}), {chosen / young:.2f} times it."
        )
        out.append(async_line(mtbf, spec.step_time))
    out += measured_lines()
    if incident.season is not None:
        out.append(
            f"- `drill season {incident.id} --set checkpoint_every=N` plays weeks of this fleet"
            " at any cadence and shows the storage it takes."
        )
    return out
