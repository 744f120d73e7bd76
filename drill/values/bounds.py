"""What the engine can run in one night on one machine: the bounds on an incident's numbers.

Each bound says why, in the message an instructor reads. Zero is refused where it would stop
simulated time (a scheduler that runs every 0 seconds never lets the clock move), and upper
bounds keep a night's work to seconds of a laptop's time. incidents/README.md lists them all.

The measured costs behind the night-wide budgets (sim backend, one core of the development
machine): a counted training step of a named job costs about 55 microseconds of engine time. A
scheduling pass reads a free-GPU index (drill/sim/free_index.py), so it costs the jobs it
looks at, not jobs times nodes; a background job costs its own events (submit, start, end)
plus its share of the passes it waits through. docs/benchmarks.md has the measurements behind
MAX_NODES, MAX_NIGHT and MAX_QUEUED_JOBS: a 4,096-node fleet with 20,000 jobs in a day plays in
seconds, and each bound sits where the engine still runs a night in about a minute.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from drill.values import units

if TYPE_CHECKING:  # pydantic loads with the incident models; a save's reader needs only numbers
    from pydantic import AfterValidator

MINUTE, HOUR, DAY = 60.0, 3600.0, 86400.0

# Night-wide budgets.
MAX_COUNTED_STEPS = 200_000  # steps of every named job together, in one night
MAX_REPLICA_STEPS = 3_000  # steps the learner's job can train for real in one night
MAX_QUEUED_JOBS = 100_000  # jobs that pass through the queue in one night, named and background
MAX_NIGHT = 60 * DAY  # a night, or a season of nights played as one, lasts at most this long
MAX_NODES = 8192  # nodes in a cluster, spares included
MAX_ARRIVALS_PER_HOUR = 5_000  # background jobs submitted per hour, on average


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

    from pydantic import AfterValidator

    return AfterValidator(check)


def seconds(low: float, high: float, why: str) -> AfterValidator:
    return within(low, high, why, units.format_duration)


def sizes(low: float, high: float, why: str) -> AfterValidator:
    return within(low, high, why, units.format_size)


def rates(low: float, high: float, why: str) -> AfterValidator:
    return within(low, high, why, units.format_rate)


def counts(low: float, high: float, why: str) -> AfterValidator:
    return within(low, high, why, _number)
