"""Collateral: what the night cost everyone but the learner's own job, in GPU hours.

Other teams' jobs are measured against the same night with nobody acting (the floor), so only
what the learner's actions changed counts. For each of their jobs, every attempt that ended
before its work was done cost the work it had not saved, and the GPUs it then went without until
it ran again (or until the end of the night, if it never did). To that the learner's own costs to
the cluster are added: healthy nodes taken out of service (their GPU hours out) and checkpoints
deleted that were the newest good one (the work they held).

Risk left behind counts too, whether or not anyone's job landed on it tonight (see
drill/sim/exposure.py for what counts as evidence and exposure). A broken node the learner could
see, left schedulable for other teams (or put back in service broken), costs its expected harm:
the GPU hours it offered them, times the share of the cluster other teams keep busy
(`exposure_share`). That share is the chance a GPU offered to them is in use by them at a given
moment, so it is the expected GPU hours of their work that would sit on a broken node: work that
fails at start-up, dies with the GPU or runs slow. It is a lower bound, not a worst case: a
broken node that fails work fast is free again sooner and draws more of it than a healthy one.
Other teams' jobs that landed on a throttled GPU or behind a flapping leaf the learner knew
about cost the GPU hours they lost, the slowdown's share of their GPUs for as long as it lasted,
where that is more than the risk already charged: a slowed job is that expected harm come true,
not a second harm.

A job's harm is what it lost beyond the nobody night, but never less than what the learner's
own action caused it (a broken node put back in service fails jobs whoever else would have);
sparing one team does not pay for harming another. The total is compared with the reference's:
harm beyond what the reference caused costs, in proportion and without a floor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from drill.sim.jobs import COMPLETED
from drill.values.units import format_duration

if TYPE_CHECKING:
    from drill.engine.drill import Drill

HOUR = 3600.0
# Harms of these kinds say their own GPU hours; the learner's other harms are work lost.
PRICED = ("risk", "slowed")


def exposure_share(drill: Drill) -> float:
    """The share of the cluster's GPUs other teams keep busy: at least the night's starting
    load, and the steady state their arrivals sustain (Little's law: arrivals per second times
    the mean GPUs and mean run time of a job, over the cluster's GPUs), at most all of it."""
    spec = drill.incident.background
    total = drill.world.cluster.total_gpus() or 1
    share = spec.utilization
    if spec.trace is None and spec.arrivals_per_hour > 0:
        weights = [1.0 / (1 + i) for i in range(len(spec.sizes))]  # as background.py draws
        size = sum(s * w for s, w in zip(spec.sizes, weights, strict=True)) / sum(weights)
        duration = (spec.min_duration + spec.max_duration) / 2
        share = max(share, spec.arrivals_per_hour / HOUR * size * duration / total)
    return min(1.0, share)


def left_behind(drill: Drill) -> list[list]:
    """The learner's harms from risk left behind, as ledger harms [time, kind, gpu_seconds,
    text]: one per exposed node (priced by `exposure_share`), one per other job slowed."""
    exposure = drill.world.exposure
    share = exposure_share(drill)
    harms: list[list] = []
    for name, record in sorted(exposure.nodes.items()):
        if record.gpu_seconds <= 0 or share <= 0:
            continue  # no other team's work to land on it: nobody at risk
        expected = record.gpu_seconds * share
        text = (
            f"{name} ({record.why}) stayed schedulable for other teams for"
            f" {format_duration(record.seconds)} after {record.shown_by}: {record.gpus} GPUs offered,"
            f" {record.gpu_seconds / HOUR:.1f} GPU hours; at the {share:.0%} of the cluster"
            f" other teams keep busy, {expected / HOUR:.1f} GPU hours of their work at risk"
        )
        harms.append([round(record.since, 3), "risk", round(expected, 3), text])
    # A slowed job is the expected harm come true on a node already charged above: only what it
    # lost beyond that charge counts again, so the same harm is not counted twice.
    charged = sum(harm[2] for harm in harms)
    for job_name, lost in sorted(exposure.slowed.items()):
        if lost <= 0:
            continue
        job = drill.world.jobs[job_name]
        beyond = max(0.0, lost - charged)
        charged = max(0.0, charged - lost)
        text = (
            f"{job_name} of team {job.team} ran slow on a throttled GPU or flapping leaf you"
            f" left in place: {lost / HOUR:.1f} GPU hours lost"
        )
        text += f", {beyond / HOUR:.1f} beyond the risk counted above" if beyond < lost else ""
        harms.append([0.0, "slowed", round(beyond, 3), text])
    return harms


def other_jobs(drill: Drill, end_time: float) -> dict[str, dict]:
    """Per job that is not the learner's: GPU seconds lost to attempts that ended before their
    work was done (the work not saved, plus the GPUs gone without until it ran again), and the
    part of that a person's own action caused whatever the nobody night did."""
    world = drill.world
    kills = {(kill.job, kill.time): kill for kill in world.ledger.kills}
    out = {}
    for name in sorted(world.jobs):
        job = world.jobs[name]
        if job.yours or not job.submitted:
            continue
        lost = blamed = 0.0
        why: set[str] = set()
        attempts = job.attempts
        for index, attempt in enumerate(attempts):
            if not attempt.ended or attempt.ended_as == COMPLETED or attempt.end is None:
                continue
            later = [a.start for a in attempts[index + 1 :] if a.start is not None]
            back = min(later[0], end_time) if later else end_time
            kill = kills.get((name, attempt.end))
            cost = (kill.gpu_seconds if kill else 0.0) + max(0.0, back - attempt.end) * job.gpus
            lost += cost
            if kill is not None and kill.blame:
                blamed += cost
                why.add(kill.blame)
        out[name] = {
            "team": job.team,
            "gpus": job.gpus,
            "lost": round(lost, 3),
            "blamed": round(blamed, 3),
            "blame": sorted(why),
        }
    return out


@dataclass(frozen=True)
class Collateral:
    others_gpu_hours: float  # other teams' losses beyond the nobody night's
    own_gpu_hours: float  # healthy capacity taken out, needed checkpoints deleted
    lines: tuple[str, ...]  # who was harmed and how, biggest first

    @property
    def gpu_hours(self) -> float:
        return round(self.others_gpu_hours + self.own_gpu_hours, 3)


def against_floor(mine: dict, floor: dict, own_harms: list, healthy: float) -> Collateral:
    """Compare one night's other-job figures with the floor's. `own_harms` are the learner's
    ledger harms ([time, kind, gpu_seconds, text]); `healthy` is GPU seconds of healthy nodes
    taken out of service."""
    lines: list[tuple[float, str]] = []
    others = 0.0
    for name in sorted(set(mine) | set(floor)):
        figures = mine.get(name) or floor.get(name) or {}  # the name is in one of them
        delta = mine.get(name, {}).get("lost", 0.0) - floor.get(name, {}).get("lost", 0.0)
        blamed = mine.get(name, {}).get("blamed", 0.0)
        # Sparing one team does not pay for harming another; what your own action caused
        # counts even when the nobody night lost it too.
        harm = max(delta, blamed, 0.0)
        others += harm
        if harm > 0:
            cause = "; ".join(mine.get(name, {}).get("blame", [])) if harm == blamed else ""
            text = f"{name} of team {figures['team']} lost {harm / HOUR:.1f} GPU hours"
            text += f" ({cause})" if cause else " more than with nobody acting"
            lines.append((harm, text))
    own = healthy + sum(harm[2] for harm in own_harms)
    if healthy > 0:
        lines.append((healthy, f"healthy nodes out of service for {healthy / HOUR:.1f} GPU hours"))
    for harm in own_harms:
        if harm[1] in PRICED:
            lines.append((harm[2], harm[3]))
        else:
            lines.append((harm[2], f"{harm[3]} ({harm[2] / HOUR:.1f} GPU hours of work)"))
    lines.sort(key=lambda pair: -pair[0])
    return Collateral(round(others / HOUR, 3), round(own / HOUR, 3), tuple(t for _, t in lines))
