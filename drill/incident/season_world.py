"""The world a season plays in: the incident with the season's length and policies applied,
validated again with the season's own bounds.

A season copies the night's incident and changes it: the season's length as the horizon, the
policies' spares on every island, their checkpoint cadence, retention and restarts on the
learner's job. A copy made with `model_copy` is not validated, which is how a 28-day length once
passed the night's 12-hour bound unseen; so is a policy that pushes the cluster past its node cap.
`check` validates the copy again, with the night's length held to the season's bound (1 day to
90 days) instead of the night's and the per-night budgets (incidents/README.md, "What a night can
hold") left to nights, and names the season field that broke a rule.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pydantic import ValidationError

if TYPE_CHECKING:
    from drill.incident.models import Incident
    from drill.incident.season import Policies

SEASON = "season"  # the validation context's key: the world is a season's, not a night's
CHANGED = ("night", "cluster", "jobs")  # what `season_world` changes in the incident
DEFAULT_RESTARTS = 3  # automatic restarts per interruption, when the job's retry policy has none

# Where a rule broken in the season's world comes from, in the incident file: the prefix of the
# world's loc, and the season field that set it.
_SOURCES: tuple[tuple[tuple, tuple], ...] = (
    (("night", "length"), ("season", "length")),
    (("cluster",), ("season", "policies", "spares")),
    (("checkpoint", "every"), ("season", "policies", "checkpoint_every")),
    (("checkpoint", "keep"), ("season", "policies", "keep")),
    (("retry",), ("season", "policies", "auto_restart")),
)


def season_world(incident: Incident, policies: Policies) -> Incident:
    """The incident as the season's world sees it: the season's length as its horizon, the
    night's own faults, noise and hints left out, and the policies applied to the cluster's
    spares and the learner's job. Not validated: `check` does that."""
    season = incident.season
    if season is None:
        raise ValueError(f"incident {incident.id} has no `season:` section")
    islands = incident.cluster.islands
    if policies.spares is not None:
        islands = [i.model_copy(update={"spares": policies.spares}) for i in islands]
    cluster = incident.cluster.model_copy(update={"islands": islands})
    jobs = []
    for spec in incident.jobs:
        if spec.yours:
            checkpoint = spec.checkpoint.model_copy(
                update={
                    "every": policies.checkpoint_every or spec.checkpoint.every,
                    "keep": policies.keep or spec.checkpoint.keep,
                }
            )
            restarts = (spec.retry.max_restarts or DEFAULT_RESTARTS) if policies.auto_restart else 0
            retry = spec.retry.model_copy(update={"max_restarts": restarts})
            # The season's job is the long run: it trains for the whole season.
            steps = max(spec.steps, math.ceil(season.length / spec.step_time) + 1)
            spec = spec.model_copy(
                update={"checkpoint": checkpoint, "retry": retry, "steps": steps}
            )
        jobs.append(spec)
    night = incident.night.model_copy(update={"length": season.length})
    return incident.model_copy(
        update={
            "night": night,
            "cluster": cluster,
            "jobs": jobs,
            "faults": [],
            "noise": [],
            "hints": [],
        }
    )


def check(world: Incident) -> tuple[str, tuple[str | int, ...]] | None:
    """The first rule the season's world breaks, as (message, the season field to fix), or None.

    What the season changed (the night, the cluster, the jobs) is dumped and validated again as
    a season's (the context), inside the whole incident, so its field bounds and the incident's
    cross-field rules hold for it as they would for a file; the rest goes in as the models the
    file's own validation made."""
    from drill.incident.models import Incident

    data = {
        (field.alias or name): getattr(world, name) for name, field in Incident.model_fields.items()
    }
    for name in CHANGED:
        data[name] = world.model_dump(by_alias=True, include={name})[name]
    try:
        Incident.model_validate(data, context={SEASON: True})
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        loc = tuple(error.get("loc", ()))
        message = str(error.get("msg", "")).removeprefix("Value error, ")
        return message, _source(loc)
    return None


def _source(loc: tuple) -> tuple[str | int, ...]:
    for prefix, source in _SOURCES:
        if loc[: len(prefix)] == prefix or _after_job(loc, prefix):
            return source
    return ("season",)


def _after_job(loc: tuple, prefix: tuple) -> bool:
    """A loc inside a job (`jobs`, index, ...) that continues with `prefix`."""
    return len(loc) > 2 and loc[0] == "jobs" and loc[2 : 2 + len(prefix)] == prefix


def in_season(context: object) -> bool:
    return isinstance(context, dict) and bool(context.get(SEASON))
