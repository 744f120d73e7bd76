"""slow_disk: a disk shelf behind a volume degrades (a failed drive rebuilding, a controller
in write-through), and every read and write on the volume runs `slowdown` times slower.

Signals: checkpoint saves take longer in the job's log (`checkpoint step N saved in 12m`),
restarts take longer to read their checkpoint back, and a save that outlasts a preemption
grace window is torn. A sharded job's ranks whose shards sit on the slow shelf finish last and
the others wait for them in the barrier after the save: past the collective timeout, the NCCL
watchdog fails the job there (drill/sim/checkpointing.py). No error is raised by the volume: it
still works. With `duration` the shelf recovers, later by as long as clients spent reading a
whole checkpoint back meanwhile (a restart's reads compete with the rebuild). With `notice` the
storage team pages an info notice. A write already in flight keeps the pace it started with.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Names, Pick
from drill.faults.volumes import check_volume
from drill.faults.world import FaultWorld
from drill.values.fields import Duration, Name
from drill.values.units import format_duration


class SlowDisk(FaultBase):
    kind: Literal["slow_disk"] = Field(description="a volume's disk shelf slows down")
    volume: Name = Field(description="the volume, one of `storage:`")
    slowdown: float = Field(
        10.0, ge=1.0, le=1000.0, description="how many times slower reads and writes run, 1 to 1000"
    )
    duration: Duration | None = Field(
        None,
        description="the shelf recovers after this, later by the time restarts spend reading"
        " their checkpoint back from it meanwhile",
    )
    notice: bool = Field(False, description="the storage team pages an info notice when it starts")


def fire(world: FaultWorld, fault: SlowDisk, picks: list[Pick]) -> None:
    volume = world.volumes[fault.volume]
    volume.slowdowns[fault.id] = fault.slowdown
    if fault.notice:
        expected = (
            f"; the rebuild is expected to take about {format_duration(fault.duration)}"
            if fault.duration is not None
            else ""
        )
        world.alert(
            "info",
            "storage-team",
            f"storage team: {volume.name} is degraded, a disk shelf is rebuilding; reads and"
            f" writes are slow until it finishes{expected}",
        )
    if fault.duration is not None:
        world.env.process(_recover(world, volume, fault.id, fault.duration))


def _recover(world: FaultWorld, volume, cause: str, delay: float):
    yield world.env.timeout(delay)
    # Client reads during the rebuild took its bandwidth: it ends that much later.
    while (owed := volume.rebuild_delay.pop(cause, 0.0)) > 0:
        yield world.env.timeout(owed)
    volume.slowdowns.pop(cause, None)


def check(fault: SlowDisk, names: Names):
    return check_volume(fault.volume, names)


KIND = Kind(
    name="slow_disk",
    spec=SlowDisk,
    unit="cluster",
    fire=fire,
    check=check,
    summary="a volume's reads and writes slow down; saves and restarts take longer",
)
