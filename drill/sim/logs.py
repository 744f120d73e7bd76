"""Job logs, kept per rank. Step lines are produced on demand from the step record, so a night
with thousands of steps stores a few numbers, not thousands of strings."""

from __future__ import annotations

from dataclasses import dataclass, field

STEP_LOG_EVERY = 10  # how often a training script prints its step line


@dataclass
class LogLine:
    time: float
    rank: int | None  # None: printed by the launcher, not a rank
    text: str


@dataclass
class JobLog:
    lines: list[LogLine] = field(default_factory=list)
    # Per rank, the (time, step, loss) of every STEP_LOG_EVERY-th step it finished.
    step_marks: list[tuple[float, int, float | None]] = field(default_factory=list)
    # Per rank, the step after which that rank stopped logging (dead or hung), by attempt.
    silent_from: dict[int, float] = field(default_factory=dict)

    def add(self, time: float, rank: int | None, text: str) -> None:
        self.lines.append(LogLine(time, rank, text))
