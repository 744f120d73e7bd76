"""Typed events the world emits: what a UI shows and what the timeline records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    time: float
    kind: str  # "alert", "job_state", "node_state", "step", "checkpoint", "action", "hint"
    subject: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = {"time": round(self.time, 3), "kind": self.kind, "subject": self.subject}
        out["text"] = self.text
        if self.data:
            out["data"] = self.data
        return out
