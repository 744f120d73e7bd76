"""Collateral: what the night cost everyone but the learner's own job, in GPU hours.

Other teams' work is measured against the same night with nobody acting (the floor), so only
what the learner's actions changed counts: work killed beyond what the incident itself killed,
and time spent waiting for GPUs beyond what they waited anyway. To that the learner's own costs
to the cluster are added: healthy nodes taken out of service (their GPU hours out) and
checkpoints deleted that were the newest good one (the work they held). Every figure is
proportional; nothing is capped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from drill.sim.jobs import COMPLETED, RUNNING

if TYPE_CHECKING:
    from drill.engine.drill import Drill

HOUR = 3600.0


def other_jobs(drill: Drill, end_time: float) -> dict[str, dict]:
    """Per job that is not the learner's: GPU seconds of work killed, and of waiting for GPUs
    between its submission and its completion (or the end of the night)."""
    world = drill.world
    killed: dict[str, float] = {}
    for kill in world.ledger.kills:
        killed[kill.job] = killed.get(kill.job, 0.0) + kill.gpu_seconds
    out = {}
    for name in sorted(world.jobs):
        job = world.jobs[name]
        if job.yours or not job.submitted:
            continue
        done = end_time
        if job.state == COMPLETED and job.attempts and job.attempts[-1].end is not None:
            done = min(end_time, job.attempts[-1].end)
        ran = 0.0
        for attempt in job.attempts:
            if attempt.start is None or attempt.start >= done:
                continue
            stop = attempt.end if attempt.end is not None else done
            ran += max(0.0, min(stop, done) - attempt.start)
        wanted = max(0.0, done - max(0.0, job.submit_time))
        out[name] = {
            "team": job.team,
            "gpus": job.gpus,
            "killed": round(killed.get(name, 0.0), 3),
            "waited": round(max(0.0, wanted - ran) * job.gpus, 3),
            "running": job.state == RUNNING,
        }
    return out


@dataclass(frozen=True)
class Collateral:
    killed_gpu_hours: float  # other teams' work killed beyond the floor's
    waited_gpu_hours: float  # other teams' waiting added beyond the floor's
    own_gpu_hours: float  # healthy capacity taken out, needed checkpoints deleted
    lines: tuple[str, ...]  # who was harmed and how, biggest first

    @property
    def gpu_hours(self) -> float:
        return round(self.killed_gpu_hours + self.waited_gpu_hours + self.own_gpu_hours, 3)


def against_floor(mine: dict, floor: dict, own_harms: list, healthy: float) -> Collateral:
    """Compare one night's other-job figures with the floor's. `own_harms` are the learner's
    ledger harms ([time, kind, gpu_seconds, text]); `healthy` is GPU seconds of healthy nodes
    taken out of service."""
    lines: list[tuple[float, str]] = []
    killed = 0.0
    for name, figures in sorted(mine.items()):
        base = floor.get(name, {}).get("killed", 0.0)
        extra = max(0.0, figures["killed"] - base)
        if extra > 0:
            killed += extra
            lines.append(
                (
                    extra,
                    f"{name} of team {figures['team']} lost {extra / HOUR:.1f} GPU hours of work",
                )
            )
    waited_mine = sum(f["waited"] for f in mine.values())
    waited_floor = sum(f["waited"] for f in floor.values())
    waited = max(0.0, waited_mine - waited_floor)
    if waited > 0:
        lines.append((waited, f"other teams waited {waited / HOUR:.1f} more GPU hours for GPUs"))
    own = healthy + sum(harm[2] for harm in own_harms)
    if healthy > 0:
        lines.append((healthy, f"healthy nodes out of service for {healthy / HOUR:.1f} GPU hours"))
    for harm in own_harms:
        lines.append((harm[2], f"{harm[3]} ({harm[2] / HOUR:.1f} GPU hours of work)"))
    lines.sort(key=lambda pair: -pair[0])
    return Collateral(
        round(killed / HOUR, 3),
        round(waited / HOUR, 3),
        round(own / HOUR, 3),
        tuple(text for _, text in lines),
    )
