"""The account of a night: what happened to the cluster and the jobs, as JSON or as text."""

from __future__ import annotations

from typing import Any

from drill.engine.drill import Drill
from drill.engine.headless import Skipped
from drill.engine.scoring.outcome import is_recovered
from drill.sim.events import (
    AlertFired,
    CheckpointEvent,
    Event,
    FaultFired,
    HintShown,
    JobLogLine,
    JobStateChanged,
    NodeStateChanged,
)
from drill.sim.world import World
from drill.values.units import format_duration

# Step events are thousands of lines of noise in an account; the loss curve carries them.
# Actions have their own list, and harm is in the score.
TIMELINE_EVENTS = (
    AlertFired,
    JobStateChanged,
    NodeStateChanged,
    CheckpointEvent,
    HintShown,
    FaultFired,
    JobLogLine,
)


def timeline_events(world: World) -> list[Event]:
    """The events an account's timeline lists, in the order they happened."""
    return [event for event in world.timeline if isinstance(event, TIMELINE_EVENTS)]


def account(drill: Drill, skipped: list[Skipped] | None = None) -> dict[str, Any]:
    world = drill.world
    jobs = {}
    for name in sorted(world.jobs):
        job = world.jobs[name]
        jobs[name] = {
            "state": job.state,
            "reason": job.reason,
            "team": job.team,
            "yours": job.yours,
            "gpus": job.world,
            "steps": job.step if job.training else None,
            "target_steps": job.steps if job.training else None,
            "attempts": [a.to_json() for a in job.attempts if a.start is not None or a.ended],
        }
    timeline = [
        {**event.to_json(), "clock": drill.clock(event.time)} for event in timeline_events(world)
    ]
    return {
        "incident": drill.incident.id,
        "seed": drill.seed,
        "end_time": round(drill.end_time, 3),
        "end_clock": drill.clock(drill.end_time),
        "recovered": recovered(drill),
        "jobs": jobs,
        "actions": [{**a.to_json(), "clock": drill.clock(a.time)} for a in drill.actions],
        "not_played": [{"line": s.line, "text": s.text, "why": s.why} for s in skipped or []],
        "timeline": timeline,
        "alerts": [a.to_json() for a in world.pager.alerts],
        "steps_recomputed": {
            n: j.steps_recomputed for n, j in sorted(world.jobs.items()) if j.training
        },
    }


def recovered(drill: Drill) -> bool:
    """The learner's job finished, or was training again for the last part of the night: the
    same test the score makes (drill/engine/scoring/outcome.py)."""
    return is_recovered(drill)


def render_text(drill: Drill, data: dict[str, Any]) -> str:
    mine = drill.learner_job
    info = data["jobs"][mine.name]
    lines = [
        f"{drill.incident.title} (seed {drill.seed})",
        f"Night ended {data['end_clock']}. {mine.name}: {info['state']}, step {info['steps']}/{info['target_steps']},"
        f" {len(info['attempts'])} attempts, {data['steps_recomputed'].get(mine.name, 0)} steps trained twice.",
        "Recovered." if data["recovered"] else "Not recovered.",
        "",
        "Your actions:",
    ]
    for action in data["actions"]:
        mark = "ok " if action["accepted"] else "REJ"
        first = action["result"].splitlines()[0] if action["result"] else ""
        lines.append(f"  {action['clock']} {mark} {action['text']}")
        if first:
            lines.append(f"           {first[:100]}")
    if not data["actions"]:
        lines.append("  (none)")
    for item in data["not_played"]:
        lines.append(f"  not played (line {item['line']}): {item['text']} ({item['why']})")
    lines += ["", "What happened:"]
    # The typed events `data["timeline"]` was written from, with the same clock.
    for event in timeline_events(drill.world):
        if isinstance(event, FaultFired):
            continue
        mine_or_node = event.subject == mine.name or isinstance(
            event, (AlertFired, NodeStateChanged)
        )
        if mine_or_node:
            lines.append(f"  {drill.clock(event.time)} {event.text[:140]}")
    lines.append("")
    lines.append(f"Night length {format_duration(data['end_time'])} of sim time.")
    replica = data.get("replica")
    if replica:
        loss = replica["final_loss"]
        base = replica["baseline_loss"]
        lines.append(
            f"Replica: step {replica['final_step']}, loss {loss:.4f} against the undisturbed run's"
            f" {base:.4f}, weights {replica['match']}."
            if loss is not None and base is not None
            else f"Replica: step {replica['final_step']}, no loss to compare."
        )
    score = data.get("score")
    if score:
        lines += ["", f"Score {score['total']:.0f}/100, grade {score['grade']}:"]
        for part in score["components"]:
            # Which figures are tonight's and which an expectation over many nights.
            basis = part.get("basis", "tonight")
            lines.append(
                f"  {part['name']:<17} {part['points']:5.1f}/{part['weight']:<4.0f} ({basis})"
                f" {part['why']}"
            )
    if data.get("save"):
        lines += ["", f"Saved to {data['save']}"]
    return "\n".join(lines)
