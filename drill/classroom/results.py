"""What grading a class produces, as plain values: the gradebook writes them, the class report
(HTML and the Textual screen) and the CSV export read them. Nothing here touches a database, a
save file or the engine, so the report can be built and tested from values alone."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ComponentPoints:
    """One part of a night's score: what it earned out of what it could."""

    name: str
    points: float
    weight: float

    @property
    def lost(self) -> float:
        return max(0.0, self.weight - self.points)


@dataclass(frozen=True)
class TimelineLine:
    """One line of a night's timeline, for the drill-down: what the learner did or saw."""

    night_seconds: float  # seconds since the night began
    clock: str  # the time of night as the game shows it, e.g. "03:12"
    kind: str  # "action", "page" or "event"
    text: str


@dataclass(frozen=True)
class Refusal:
    """Why a collected save was not graded: it did not replay to what it says."""

    line: int  # the save's line number where it first differs (1-based); 0 when unreadable
    field: str  # the field that differs there, e.g. "events[12].text" or "score.total"
    reason: str  # one sentence for the instructor


@dataclass(frozen=True)
class GradedNight:
    """One learner's kept attempt at one night of the course."""

    learner: str
    night: str  # the incident id
    seed: int
    save_name: str  # the collected save's file name, for the instructor to find it
    attempts: int  # how many saves this learner handed in for this night
    total: float | None  # None when refused
    grade: str | None  # the letter, None when refused
    components: tuple[ComponentPoints, ...] = ()
    first_wrong_act: str | None = None  # the first action the score counted against them
    timeline: tuple[TimelineLine, ...] = ()
    refusal: Refusal | None = None
    # When the save was handed in (its file's time, UTC), and whether that was after the
    # night's deadline in course.toml (False when the night has none).
    handed_in: dt.datetime | None = None
    late: bool = False

    @property
    def verified(self) -> bool:
        return self.refusal is None

    @property
    def lost_most(self) -> str | None:
        """The component where this night lost the most points, None when nothing was lost."""
        worst = max(self.components, key=lambda c: c.lost, default=None)
        return worst.name if worst is not None and worst.lost > 0 else None


@dataclass(frozen=True)
class ClassResults:
    """Everything the class report shows: the course, its nights in order, and every kept
    night of every learner (a learner who handed nothing in for a night has no entry)."""

    title: str
    nights: tuple[str, ...]
    learners: tuple[str, ...]
    graded: tuple[GradedNight, ...] = field(default=())
    # Every refused save, each with its own refusal, also when another attempt of the same
    # learner and night verified and is the one kept in `graded`: an edited save is news.
    refused: tuple[GradedNight, ...] = field(default=())
    attempt: str = "best"  # which verified attempt `graded` keeps: best, last or first
    pending: int = 0  # collected saves not graded yet
    # (learner, night) of each pair with saves handed in and none graded yet.
    waiting: tuple[tuple[str, str], ...] = field(default=())

    def for_learner(self, learner: str) -> tuple[GradedNight, ...]:
        return tuple(g for g in self.graded if g.learner == learner)

    def for_night(self, night: str) -> tuple[GradedNight, ...]:
        return tuple(g for g in self.graded if g.night == night)

    def refused_saves(self) -> tuple[GradedNight, ...]:
        """Every refused save once: those in `refused`, and any refused entry kept in `graded`
        (a class built from values alone may only have those)."""
        seen: dict[tuple[str, str, str], GradedNight] = {}
        for entry in (*self.refused, *self.graded):
            if entry.refusal is not None:
                seen.setdefault((entry.learner, entry.night, entry.save_name), entry)
        return tuple(seen.values())

    def cell(self, learner: str, night: str) -> GradedNight | None:
        return next((g for g in self.graded if g.learner == learner and g.night == night), None)
