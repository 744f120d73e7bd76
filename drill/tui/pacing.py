"""How fast the night passes on screen, and when it holds. Not part of the game: pause and speed
are never saved, and a headless replay of the same actions gets the same night.

By default the clock holds while the command line has text, and after a new page that matters
until the learner acts: every critical page, and a warning about the learner's own job (its
nodes, its checkpoint volume), such as "no training progress for 5m". Reading is not the test,
typing speed is not the test. Hard mode keeps the night running regardless.

The default speed is 10x: a person takes ten to fifteen seconds to read a 15-line output, which
costs two or three minutes of night at 10x (at 60x it cost ten to fifteen).
"""

from __future__ import annotations

from dataclasses import dataclass

SPEEDS = (1, 2, 5, 10, 30, 60, 120, 300, 600)
MIN_SPEED, MAX_SPEED = SPEEDS[0], SPEEDS[-1]
DEFAULT_SPEED = 10
HOLDING = ("critical", "warning")


@dataclass
class Pacing:
    speed: int = DEFAULT_SPEED
    hard: bool = False
    paused: bool = False  # the learner paused it
    typing: bool = False  # the command line has text
    page_hold: bool = False  # a page that matters fired and the learner has not acted since

    @property
    def running(self) -> bool:
        if self.paused:
            return False
        return self.hard or not (self.typing or self.page_hold)

    def sim_seconds(self, wall_seconds: float) -> float:
        """At speed S, dt wall seconds advance S * dt seconds of the night."""
        return self.speed * wall_seconds if self.running else 0.0

    def set_speed(self, speed: int) -> None:
        if not MIN_SPEED <= speed <= MAX_SPEED:
            raise ValueError(f"speed goes from {MIN_SPEED} to {MAX_SPEED}, like `speed 60`")
        self.speed = speed

    def faster(self) -> None:
        self.speed = next((s for s in SPEEDS if s > self.speed), MAX_SPEED)

    def slower(self) -> None:
        self.speed = next((s for s in reversed(SPEEDS) if s < self.speed), MIN_SPEED)

    def critical_page(self) -> None:
        if not self.hard:
            self.page_hold = True

    def page(self, severity: str, about_yours: bool) -> bool:
        """A new page arrived: hold the clock for every critical one and for a warning about
        the learner's job. Says whether it held."""
        holds = severity == "critical" or (severity in HOLDING and about_yours)
        if holds:
            self.critical_page()
        return holds and not self.hard

    def acted(self) -> None:
        self.page_hold = False

    def label(self) -> str:
        """What the header says about the clock."""
        if self.paused:
            return "PAUSED"
        if not self.hard and self.page_hold:
            return "HELD: new page, act to resume"
        if not self.hard and self.typing:
            return f"{self.speed}x, held while you type"
        return f"{self.speed}x" + (" hard" if self.hard else "")


def parse_speed(arg: str) -> int:
    text = arg.strip().lower().rstrip("x")
    try:
        value = int(text)
    except ValueError:
        raise ValueError(
            f"speed takes a number from {MIN_SPEED} to {MAX_SPEED}, like `speed 60`"
        ) from None
    if not MIN_SPEED <= value <= MAX_SPEED:
        raise ValueError(f"speed goes from {MIN_SPEED} to {MAX_SPEED}, like `speed 60`")
    return value
