"""The night's clock: sim seconds from the incident's start, shown as a time of night."""

from __future__ import annotations

from drill.values import units


class NightClock:
    def __init__(self, start: str):
        self.start = units.parse_clock(start)

    def label(self, sim_seconds: float) -> str:
        """03:12:40 for a sim time; the night may run past midnight."""
        return units.format_clock(self.start + sim_seconds)

    def short(self, sim_seconds: float) -> str:
        return self.label(sim_seconds)[:5]

    def from_clock(self, text: str) -> float:
        """Sim seconds for a clock time typed during the night (wraps past midnight)."""
        return float((units.parse_clock(text) - self.start) % 86400)

    def moment(self, value: float | str) -> float:
        if isinstance(value, str):
            return self.from_clock(value)
        return float(value)
