"""What a fault struck when it fired. A value of its own, so the world protocol a fault is handed
(drill/faults/world.py) and the kinds' descriptor (drill/faults/base.py) can both name it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Pick:
    """What a fault struck when it fired: the names `{fault.ID.FIELD}` can fill in."""

    node: str | None = None
    gpu: int | None = None
    job: str | None = None
    rank: int | None = None
    leaf: str | None = None
    step: int | None = None
    # A process the fault left behind on the GPU (zombie_memory), known only once it fired:
    # the kind fills it in then.
    pid: int | None = None

    def field(self, name: str) -> Any:
        return getattr(self, name, None)
