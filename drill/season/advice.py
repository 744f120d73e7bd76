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


def job_young(incident: Incident) -> tuple[float, float, float] | None:
    """(checkpoint write seconds, the job's MTBF, Young's interval) for the learner's job, or
    None when the incident states no MTBF."""
    spec = incident.learner_job
    nodes = max(1, math.ceil(spec.gpus / incident.cluster.gpus_per_node))
    node_mtbf = (incident.season.mtbf if incident.season else None) or incident.cluster.mtbf
    if not node_mtbf:
        return None
    size = spec.model_params * spec.bytes_per_param
    volume = next((v for v in incident.storage if v.name == spec.checkpoint.volume), None)
    write = size / volume.write_bandwidth if volume else spec.checkpoint.write_time
    mtbf = node_mtbf / nodes
    return write, mtbf, math.sqrt(2 * write * mtbf)


def cadence_lines(incident: Incident, every: int) -> list[str]:
    """The debrief's cadence advice: this job's Young's interval beside the chosen cadence, and
    the measurements that back the formula."""
    spec = incident.learner_job
    chosen = every * spec.step_time
    found = job_young(incident)
    out = []
    if found is None:
        out.append("- This incident states no MTBF, so Young's formula has nothing to work with.")
    else:
        write, mtbf, young = found
        steps = max(1, round(young / spec.step_time))
        out.append(
            f"- Your job writes a checkpoint in {format_duration(write)} and sees a failure about"
            f" every {format_duration(mtbf)}: Young's interval sqrt(2 x {format_duration(write)} x"
            f" {format_duration(mtbf)}) is {format_duration(young)}, every {plural(steps, 'step')}. You checkpointed"
            f" every {every} steps ({format_duration(chosen)}), {chosen / young:.2f} times it."
        )
    out += measured_lines()
    if incident.season is not None:
        out.append(
            f"- `drill season {incident.id} --set checkpoint_every=N` plays weeks of this fleet"
            " at any cadence and shows the storage it takes."
        )
    return out
