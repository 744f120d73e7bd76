"""The pager: alerts by severity, each acknowledged or not, noise included."""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("info", "warning", "critical")


@dataclass
class Alert:
    id: str
    time: float
    severity: str
    source: str
    text: str
    acked_at: float | None = None
    noise: bool = False  # only the debrief ever reads this flag

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "time": round(self.time, 3),
            "severity": self.severity,
            "source": self.source,
            "text": self.text,
            "acked_at": None if self.acked_at is None else round(self.acked_at, 3),
        }


class Pager:
    def __init__(self) -> None:
        self.alerts: list[Alert] = []

    def fire(
        self, time: float, severity: str, source: str, text: str, noise: bool = False
    ) -> Alert:
        alert = Alert(f"P{len(self.alerts) + 1}", time, severity, source, text, noise=noise)
        self.alerts.append(alert)
        return alert

    def get(self, alert_id: str) -> Alert | None:
        wanted = alert_id.upper()
        return next((a for a in self.alerts if a.id == wanted), None)

    def unacked(self) -> list[Alert]:
        return [a for a in self.alerts if a.acked_at is None]
