"""volume_fill: someone starts writing to a shared volume, fast, and it fills.

Signals: `df` shows the volume's use climbing (as late as its `df_lag`); the storage monitor
pages at 90 and 98 percent full; a checkpoint write that meets the full volume fails (torch
prints `PytorchStreamWriter failed writing file data/0: file write failed`, no errno) and the job
fails with it; `df` says why. With `duration` the writer
stops; what it wrote stays. The space counts against `team` (by default nobody's quota: other
teams, as on a shared scratch volume), so a quota request does not help.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Names, Pick
from drill.faults.volumes import check_team, check_volume
from drill.faults.world import FaultWorld
from drill.values.bounds import rates
from drill.values.fields import Duration, Name, Rate


class VolumeFill(FaultBase):
    kind: Literal["volume_fill"] = Field(description="a writer fills a shared volume")
    volume: Name = Field(description="the volume it fills, one of `storage:`")
    rate: Annotated[Rate, rates(1e6, 1e14, "from a slow copy to faster than any storage")] = Field(
        description="how fast it writes, like 20TB/h (1MB/s to 100TB/s)"
    )
    duration: Duration | None = Field(None, description="it stops writing after this")
    team: Name | None = Field(
        None, description="whose quota the space counts against (default: other teams)"
    )


OTHERS = "(other teams)"  # as drill/sim/storage.py counts space nobody's quota holds


def fire(world: FaultWorld, fault: VolumeFill, picks: list[Pick]) -> None:
    volume = world.volumes[fault.volume]
    team = fault.team or OTHERS
    volume.add_rate(world.now, team, fault.rate)
    if fault.duration is not None:
        world.env.process(_stop(world, volume, team, fault.rate, fault.duration))


def _stop(world: FaultWorld, volume, team: str, rate: float, delay: float):
    yield world.env.timeout(delay)
    volume.add_rate(world.now, team, -rate)


def check(fault: VolumeFill, names: Names):
    return check_volume(fault.volume, names) + check_team(fault.team, names)


KIND = Kind(
    name="volume_fill",
    spec=VolumeFill,
    unit="cluster",
    fire=fire,
    check=check,
    summary="a volume fills at a rate; fill pages, then checkpoint writes fail",
)
