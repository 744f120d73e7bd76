"""What a storage dashboard shows: volumes as `df` reports them, and the learner's checkpoints
as `ckpt list` reports them. Plain data, read-only: it never settles a volume or touches a file,
so looking at it cannot change the night.

Unlike `df` (statfs, now), a dashboard shows usage as of the volume's `df_lag`, the age of the
metrics it is drawn from, and says so ("as of HH:MM"); like `ckpt list`, a checkpoint shows
whether anyone has verified it, never its physical condition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from drill.engine.drill import Drill


@dataclass(frozen=True)
class VolumeView:
    name: str
    capacity: float
    used: float  # everyone's usage, as of `as_of`
    team_used: float  # the learner's team's usage, as of `as_of`
    quota: float | None  # the learner's team's quota here, if it has one
    as_of: float  # sim time the numbers describe (now minus the dashboard's `df_lag`)


@dataclass(frozen=True)
class CheckpointView:
    step: int
    time: float
    verified: bool | None  # None: never checked; True or False after `ckpt verify`


@dataclass(frozen=True)
class StorageView:
    team: str
    volume: str | None  # where the learner's job writes its checkpoints, if modelled
    volumes: tuple[VolumeView, ...]
    job: str
    checkpoints: tuple[CheckpointView, ...]
    latest: int | None  # where the `latest` pointer points


def storage_view(drill: Drill, at: float | None = None) -> StorageView:
    """The dashboard now, or with the volumes read as a `df` run at `at` (before now) read
    them, so a screen can show the same moment as that `df`'s output."""
    world = drill.world
    job = drill.learner_job
    read = world.now if at is None else min(at, world.now)
    volumes = []
    for volume in world.volumes.values():
        as_of = max(0.0, read - volume.spec.df_lag)
        usage = volume.seen_at(as_of)
        quota = volume.quotas.get(job.team)
        volumes.append(
            VolumeView(
                name=volume.name,
                capacity=float(volume.capacity),
                used=float(sum(usage.values())),
                team_used=float(usage.get(job.team, 0.0)),
                quota=float(quota) if quota is not None else None,
                as_of=as_of,
            )
        )
    catalog = job.checkpoints
    checkpoints = tuple(CheckpointView(r.step, r.time, r.verified) for r in catalog.live())
    latest = catalog.latest_step
    return StorageView(
        team=job.team,
        volume=job.policy.volume if job.policy else None,
        volumes=tuple(volumes),
        job=job.name,
        checkpoints=checkpoints,
        latest=latest,
    )
