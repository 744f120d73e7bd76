"""The simulation's record of a job's checkpoints: which steps exist and in what condition.

The replica keeps the real files; this record is what the cluster knows and shows (`ckpt list`).
Condition is physical truth: `ok`, `torn` (the write stopped part way), `corrupt` (bytes flipped
after a good write). Whether anyone has checked is a separate flag, as it is in real life.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class CheckpointRecord:
    step: int
    time: float
    size: int  # represented bytes, for storage accounting
    condition: str = "ok"  # ok, torn, corrupt
    verified: bool | None = None  # None: never checked; True or False after `ckpt verify`
    deleted: bool = False
    poisoned_from: int | None = None  # written by a model that loaded bad bytes at this step
    # The step of an undisturbed run whose data the next step reads (moves past skips): what
    # the replica's data cursor holds, counted for the `sim` backend. None: one per step.
    data_next: int | None = None
    shards: int = 1  # files it was written as: one a rank for a sharded job
    planned: int = 0  # bytes the manifest lists (size is what reached the disk); 0: size

    def to_json(self) -> dict:
        return {
            "step": self.step,
            "time": round(self.time, 3),
            "size": self.size,
            "verified": self.verified,
        }


@dataclass
class CheckpointCatalog:
    records: list[CheckpointRecord] = field(default_factory=list)
    latest_step: int | None = None  # what the `latest` pointer says

    def live(self) -> list[CheckpointRecord]:
        return [r for r in self.records if not r.deleted]

    def get(self, step: int) -> CheckpointRecord | None:
        return next((r for r in self.live() if r.step == step), None)

    def latest(self) -> CheckpointRecord | None:
        if self.latest_step is None:
            return None
        return self.get(self.latest_step)

    def add(self, record: CheckpointRecord, move_latest: bool = True) -> None:
        self.records = [r for r in self.records if r.deleted or r.step != record.step]
        self.records.append(record)
        self.records.sort(key=lambda r: (r.step, r.time))
        if move_latest:
            self.latest_step = record.step

    def remove(self, step: int) -> None:
        for record in self.records:
            if record.step == step and not record.deleted:
                record.deleted = True
        if self.latest_step == step:
            remaining = [r.step for r in self.live()]
            self.latest_step = max(remaining) if remaining else None


@dataclass
class CheckpointPolicy:
    """A job's live checkpoint settings: the incident's, then whatever `set` changed."""

    every: int
    keep: int
    atomic: bool
    on_sigterm: bool
    verify_on_resume: bool
    write_time: float
    volume: str | None = None
    enabled: bool = True  # false: the script has no checkpointing at all

    @classmethod
    def from_settings(cls, c) -> CheckpointPolicy:
        """The policy an incident's `checkpoint:` block starts the night with."""
        return cls(
            c.every,
            c.keep,
            c.atomic,
            c.on_sigterm,
            c.verify_on_resume,
            c.write_time,
            c.volume,
            getattr(c, "enabled", True),
        )
