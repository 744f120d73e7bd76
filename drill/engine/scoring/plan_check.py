"""The pre-shift plan, judged over many nights: checkpoints are for the bad night.

A plan (checkpoint cadence, retention, a checkpoint on SIGTERM) is measured by its fallback: the
step the job could go back to if its newest checkpoint turned out bad, which is the second-newest
good checkpoint (or nothing). It is read on this night, and on an ensemble of seeded sim-only
nights of the same incident where the incident's faults strike at other moments and nodes fail
at random at the cluster's MTBF, with nobody acting but the plan. A plan that is lucky tonight
but leaves nothing to fall back on in general is not rewarded.
"""

from __future__ import annotations

from drill.engine.actions.catalog import VERBS
from drill.engine.drill import Drill
from drill.faults.random_failures import RandomFailures
from drill.incident.models import Incident

ENSEMBLE_NIGHTS = 6


def fallback_step(drill: Drill) -> int:
    """The step of the second-newest good checkpoint of the learner's job, or 0."""
    good = [r.step for r in drill.learner_job.checkpoints.live() if r.condition == "ok"]
    return sorted(good)[-2] if len(good) >= 2 else 0


def plan_lines(drill: Drill) -> list[str]:
    """The pre-shift plan as the learner made it: the accepted `set` actions at the start."""
    return [
        a.text
        for a in drill.actions
        if a.accepted and a.verb and VERBS[a.verb].plan and a.time == 0.0 and a.end == a.time
    ]


def ensemble_seeds(seed: int) -> list[int]:
    return [seed * 1000 + 100 + i for i in range(ENSEMBLE_NIGHTS)]


def with_random_failures(incident: Incident) -> Incident:
    """The incident, plus nodes failing at random at the cluster's MTBF if it states one."""
    if not incident.cluster.mtbf:
        return incident
    extra = RandomFailures(id="ensemble-mtbf", kind="random_failures", at=0.0)
    return incident.model_copy(update={"faults": [*incident.faults, extra]})


def ensemble_fallbacks(incident: Incident, seed: int, lines: list[str]) -> list[int]:
    """The fallback step of each ensemble night played with this plan and nothing else."""
    variant = with_random_failures(incident)
    out = []
    for night_seed in ensemble_seeds(seed):
        drill = Drill(variant, night_seed)
        for line in lines:
            drill.act(line)
        drill.play_out()
        out.append(fallback_step(drill))
    return out


def plan_figure(tonight: int, ensemble: list[int]) -> float:
    nights = [tonight, *ensemble]
    return round(sum(nights) / len(nights), 2)
