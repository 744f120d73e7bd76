"""How fast the night passes on screen, and when it holds. Not part of the game: pause and speed
are never saved, and a headless replay of the same actions gets the same night.

By default the clock holds while the command line has text and after a new critical page until
the learner acts, so typing speed is not the test. Hard mode keeps the night running regardless.
"""

from __future__ import annotations

from dataclasses import dataclass

SPEEDS = (1, 2, 5, 10, 30, 60, 120, 300, 600)
MIN_SPEED, MAX_SPEED = SPEEDS[0], SPEEDS[-1]
DEFAULT_SPEED = 60


@dataclass
class Pacing:
    speed: int = DEFAULT_SPEED
    hard: bool = False
    paused: bool = False  # the learner paused it
    typing: bool = False  # the command line has text
    page_hold: bool = False  # a critical page fired and the learner has not acted since

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
