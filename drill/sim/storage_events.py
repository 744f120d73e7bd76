"""Things that happen to volumes over the night: tenants writing, fill alerts, quota answers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drill.sim.storage import Volume
from drill.values.units import format_size

if TYPE_CHECKING:
    from drill.sim.world_view import SimWorld as World

MONITOR_INTERVAL = 300.0  # how often the storage monitor samples usage, as exporters do
FILL_ALERTS = ((0.98, "critical"), (0.90, "warning"))


def start(world: World) -> None:
    for volume in world.volumes.values():
        for tenant in volume.spec.tenants:
            world.env.process(_tenant(world, volume, tenant))
        world.env.process(_monitor(world, volume))


def _tenant(world: World, volume: Volume, tenant):
    start = world.moment(tenant.start)
    yield world.env.timeout(max(0.0, start - world.now))
    volume.set_rate(world.now, tenant.team, tenant.rate)
    if tenant.stop is not None:
        stop = world.moment(tenant.stop)
        yield world.env.timeout(max(0.0, stop - world.now))
        volume.set_rate(world.now, tenant.team, 0.0)


def _monitor(world: World, volume: Volume):
    fired: set[float] = set()
    while True:
        yield world.env.timeout(MONITOR_INTERVAL)
        volume.settle(world.now)
        # The exporter calls statfs as `df` does, at each sample: the page and a `df` run at
        # the same moment agree, and a volume emptied before a sample pages no more. Only the
        # storage dashboard (the TUI panel) shows numbers `df_lag` old.
        used = sum(volume.seen_at(world.now).values())
        share = used / volume.capacity if volume.capacity else 0.0
        free = max(0.0, volume.capacity - used)
        for threshold, severity in FILL_ALERTS:
            if share >= threshold and threshold not in fired:
                # A critical page covers the warning below it: the volume does not page again,
                # downgraded, at the next sample while it stays full.
                fired.update(t for t, _ in FILL_ALERTS if t <= threshold)
                world.alert(
                    severity,
                    volume.name,
                    f"volume {volume.name} is {share:.0%} full ({format_size(free)} free)",
                )
                break
        for threshold in list(fired):
            if share < threshold - 0.05:
                fired.discard(threshold)


def request_quota(world: World, volume: Volume, team: str, extra: int) -> None:
    world.env.process(_quota_answer(world, volume, team, extra))


def _quota_answer(world: World, volume: Volume, team: str, extra: int):
    yield world.env.timeout(volume.spec.quota_response)
    if volume.spec.quota_requests == "refuse":
        world.alert(
            "info",
            "storage-team",
            f"storage team: quota request for {team} on {volume.name} refused; free space or move data",
        )
        return
    granted = extra
    if volume.spec.quota_max_increase is not None:
        granted = min(extra, volume.spec.quota_max_increase)
    volume.quotas[team] = volume.quotas.get(team, 0) + granted
    world.alert(
        "info",
        "storage-team",
        f"storage team: {team} quota on {volume.name} raised by {format_size(granted)}"
        f" to {format_size(volume.quotas[team])}",
    )
