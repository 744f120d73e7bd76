"""Storage volumes: capacity, per-team quotas, shared bandwidth, other tenants.

Usage is piecewise linear in time: a tenant writing at a rate adds rate x time until the volume
is full. Instead of ticking every second, the volume settles its numbers whenever something
changes (a write lands, a file is deleted, a tenant starts or stops) and keeps those points, so
the storage dashboard can show the numbers as they were a while ago (its `df_lag`), the way
metrics scraped into a dashboard trail the file system. `df` and the fill monitor read now."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field

from drill.incident.models import Volume as VolumeSpec

ENOSPC = f"[Errno {errno.ENOSPC}] {os.strerror(errno.ENOSPC)}"
EDQUOT = f"[Errno {errno.EDQUOT}] {os.strerror(errno.EDQUOT)}"
OTHERS = "(other teams)"


@dataclass
class WritePlan:
    duration: float  # how long the write takes, or runs until it fails
    fails: bool
    error: str = ""
    fraction: float = 1.0  # of the file that reached the disk


@dataclass
class Volume:
    spec: VolumeSpec
    quotas: dict[str, int]
    team_used: dict[str, float] = field(default_factory=dict)
    rates: dict[str, float] = field(default_factory=dict)  # team -> bytes/s being written now
    settled_at: float = 0.0
    history: list[tuple[float, dict[str, float]]] = field(default_factory=list)
    writers: int = 0  # checkpoint writes in flight, sharing the bandwidth
    # A slow disk shelf, by cause (a fault's id): the worst one sets the pace.
    slowdowns: dict[str, float] = field(default_factory=dict)
    # A slow shelf rebuilds while clients use it: a full checkpoint read (a restart of every
    # rank) competes with the rebuild and pushes its end out by as long as the read took.
    rebuild_delay: dict[str, float] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def capacity(self) -> int:
        return self.spec.capacity

    # -- accounting -------------------------------------------------------------------------

    def settle(self, now: float) -> None:
        """Bring usage up to `now`; tenants stop adding once the volume is full."""
        dt = now - self.settled_at
        if dt > 0 and self.rates:
            total_rate = sum(self.rates.values())
            room = max(0.0, self.capacity - self.used())
            fill = min(total_rate * dt, room)
            for team, rate in sorted(self.rates.items()):
                share = fill * rate / total_rate if total_rate else 0.0
                self.team_used[team] = self.team_used.get(team, 0.0) + share
        self.settled_at = max(self.settled_at, now)
        self.history.append((now, dict(self.team_used)))
        if len(self.history) > 2000:
            self.history = self.history[-1000:]

    def used(self) -> float:
        return sum(self.team_used.values())

    def free(self) -> float:
        return max(0.0, self.capacity - self.used())

    def quota_left(self, team: str) -> float | None:
        if team not in self.quotas:
            return None
        return self.quotas[team] - self.team_used.get(team, 0.0)

    def add(self, now: float, team: str, size: float) -> None:
        self.settle(now)
        self.team_used[team] = self.team_used.get(team, 0.0) + size
        self.history.append((now, dict(self.team_used)))

    def remove(self, now: float, team: str, size: float) -> None:
        self.settle(now)
        self.team_used[team] = max(0.0, self.team_used.get(team, 0.0) - size)
        self.history.append((now, dict(self.team_used)))

    @property
    def slowdown(self) -> float:
        return max(self.slowdowns.values(), default=1.0)

    def add_rate(self, now: float, team: str, rate: float) -> None:
        """Another writer joins (rate > 0) or leaves (rate < 0) a team's stream of writes."""
        self.settle(now)
        left = self.rates.get(team, 0.0) + rate
        if left > 1e-9:
            self.rates[team] = left
        else:
            self.rates.pop(team, None)

    def set_rate(self, now: float, team: str, rate: float) -> None:
        self.settle(now)
        if rate > 0:
            self.rates[team] = self.rates.get(team, 0.0) + rate
        else:
            self.rates.pop(team, None)

    def seen_at(self, time: float) -> dict[str, float]:
        """Per-team usage as `df` reports it for `time` (the latest settled point before it,
        carried forward at the rates then in force)."""
        before = [entry for entry in self.history if entry[0] <= time]
        if not before:
            return dict(self.team_used)
        stamp, usage = before[-1]
        usage = dict(usage)
        if self.rates and time > stamp:
            total = sum(usage.values())
            room = max(0.0, self.capacity - total)
            total_rate = sum(self.rates.values())
            fill = min(total_rate * (time - stamp), room)
            for team, rate in self.rates.items():
                usage[team] = usage.get(team, 0.0) + fill * rate / total_rate
        return usage

    # -- checkpoint writes ------------------------------------------------------------------

    def plan_write(self, now: float, team: str, size: float) -> WritePlan:
        """How a checkpoint write of `size` goes from now, with the bandwidth shared by every
        writer, and where it stops if the volume or the team's quota runs out first."""
        self.settle(now)
        sharers = self.writers + 1 + len(self.rates)
        bandwidth = self.spec.write_bandwidth / sharers / self.slowdown
        duration = size / bandwidth
        write_rate = size / duration
        tenant_rate = sum(r for t, r in self.rates.items())
        stops: list[tuple[float, str]] = []
        free = self.free()
        if free < size + tenant_rate * duration:
            stops.append((free / (write_rate + tenant_rate), ENOSPC))
        left = self.quota_left(team)
        if left is not None:
            own_tenant = self.rates.get(team, 0.0)
            if left < size + own_tenant * duration:
                stops.append((max(0.0, left) / (write_rate + own_tenant), EDQUOT))
        if not stops:
            return WritePlan(duration, False)
        at, error = min(stops)
        return WritePlan(at, True, error, fraction=min(1.0, write_rate * at / size))

    def read_time(self, size: float) -> float:
        return size * self.slowdown / self.spec.read_bandwidth

    def client_read(self, seconds: float) -> None:
        """Clients read for `seconds` (a restart loading its checkpoint): a shelf that is
        rebuilding gives up that long of its rebuild to them."""
        for cause in self.slowdowns:
            self.rebuild_delay[cause] = self.rebuild_delay.get(cause, 0.0) + seconds


def build_volumes(specs: list[VolumeSpec]) -> dict[str, Volume]:
    volumes: dict[str, Volume] = {}
    for spec in specs:
        volume = Volume(spec, dict(spec.quotas))
        volume.team_used[OTHERS] = float(spec.used)
        volume.history.append((0.0, dict(volume.team_used)))
        volumes[spec.name] = volume
    return volumes
