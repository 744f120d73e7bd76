"""What the night cost, as the simulation measured it: outages of a job, work killed, capacity
taken out of service, checkpoints deleted that were needed. The score reads these; nothing here
judges them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Outage:
    """A stretch when a training job made no progress: from its own stop to the first step
    after its own restart (end is None while it lasts)."""

    start: float
    end: float | None = None
    why: str = ""


@dataclass
class Kill:
    """An attempt of someone's job that ended before its work was done, and what it cost."""

    time: float
    job: str
    team: str
    gpu_seconds: float  # work lost: since its last checkpoint, or since it started
    why: str
    blame: str | None = None  # set when a person's own action caused it, whatever nobody did


@dataclass
class Harm:
    """A cost of an action of the learner's own, outside what other teams' jobs show."""

    time: float
    kind: str  # "healthy_node", "needed_checkpoint"
    gpu_seconds: float
    text: str


@dataclass
class Ledger:
    kills: list[Kill] = field(default_factory=list)
    harms: list[Harm] = field(default_factory=list)
