"""quota_cut: the storage team lowers a team's quota on a volume (a cleanup, a reallocation).

Signals: none at the moment it happens unless `notice` is set (an info page from the storage
team, as a ticket or a mail would say it); `lfs quota` shows the team's use against the new
quota; the next checkpoint write that passes it fails (torch's writer error, the same words as a
full volume) and the job fails with it; `lfs quota` shows the team at its quota. The volume itself still has room. `quota VOLUME +SIZE` asks for more, answered as
the volume's `quota_requests` says.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Names, Pick
from drill.faults.volumes import check_team, check_volume
from drill.faults.world import FaultWorld
from drill.values.bounds import sizes
from drill.values.fields import Name, Size
from drill.values.units import format_size


class QuotaCut(FaultBase):
    kind: Literal["quota_cut"] = Field(description="a team's quota on a volume is lowered")
    volume: Name = Field(description="the volume, one of `storage:`")
    team: Name = Field(description="whose quota, like ml (a job's `team`)")
    quota: Annotated[Size, sizes(0, 1e18, "no volume is larger than an exabyte")] = Field(
        description="the new quota, like 2TB"
    )
    notice: bool = Field(False, description="the storage team pages an info notice when it does")


def fire(world: FaultWorld, fault: QuotaCut, picks: list[Pick]) -> None:
    volume = world.volumes[fault.volume]
    volume.quotas[fault.team] = fault.quota
    if fault.notice:
        world.alert(
            "info",
            "storage-team",
            f"storage team: {fault.team} quota on {volume.name} set to {format_size(fault.quota)}",
        )


def check(fault: QuotaCut, names: Names):
    problems = check_volume(fault.volume, names) + check_team(fault.team, names)
    capacity = names.volumes.get(fault.volume)
    if capacity is not None and fault.quota > capacity:
        problems.append(
            (("quota",), "the new quota is more than the volume holds; a cut makes it smaller")
        )
    return problems


KIND = Kind(
    name="quota_cut",
    spec=QuotaCut,
    unit="cluster",
    fire=fire,
    check=check,
    summary="a team's quota is lowered; its next write past it fails while the volume has room",
)
