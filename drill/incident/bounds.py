"""What the engine can run in one night on one machine: the bounds on an incident's numbers.

Each bound says why, in the message an instructor reads. Zero is refused where it would stop
simulated time (a scheduler that runs every 0 seconds never lets the clock move), and upper
bounds keep a night's work to seconds of a laptop's time. incidents/README.md lists them all.

The measured costs behind the night-wide budgets (sim backend, one core of the development
machine): a counted training step of a named job costs about 55 microseconds of engine time, and
a scheduling pass about 30 microseconds per job in the queue. The budgets keep a sim night's
engine work to about ten seconds, so par, floor and the learner's night stay quick.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import AfterValidator

from drill.incident import units

MINUTE, HOUR, DAY = 60.0, 3600.0, 86400.0

# Night-wide budgets.
MAX_COUNTED_STEPS = 200_000  # steps of every named job together, in one night
MAX_REPLICA_STEPS = 3_000  # steps the learner's job can train for real in one night
MAX_QUEUE_SCANS = 500_000  # jobs in the queue times scheduling passes, in one night


def _number(value: float) -> str:
    return f"{value:g}"


def within(
    low: float, high: float, why: str, show: Callable[[float], str] = units.format_duration
) -> AfterValidator:
    """A validator: the value must be from `low` to `high`; the message says why."""

    def check(value: Any) -> Any:
        if value is None:
            return value
        if not low <= value <= high:
            raise ValueError(
                f"{show(value)} is out of range; use {show(low)} to {show(high)}: {why}"
            )
        return value

    return AfterValidator(check)


def seconds(low: float, high: float, why: str) -> AfterValidator:
    return within(low, high, why, units.format_duration)


def sizes(low: float, high: float, why: str) -> AfterValidator:
    return within(low, high, why, units.format_size)


def rates(low: float, high: float, why: str) -> AfterValidator:
    return within(low, high, why, units.format_rate)


def counts(low: float, high: float, why: str) -> AfterValidator:
    return within(low, high, why, _number)
