"""What the engine worker tells the screens. Posted from a thread; handled on the event loop."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:  # the picker imports these messages; the engine loads when a night starts
    from drill.engine.drill import ActionResult
    from drill.engine.snapshot import Snapshot
    from drill.engine.storage_view import StorageView
    from drill.sim.events import Event


@dataclass(frozen=True)
class Frame:
    """One consistent read of the night, taken under the engine lock."""

    snapshot: Snapshot
    storage: StorageView
    events: tuple[Event, ...] = ()
    result: ActionResult | None = None
    source: str = "start"  # start, act, advance


@dataclass(frozen=True)
class Debrief:
    """Everything the debrief shows that the engine measured."""

    score: Any  # drill.engine.scoring.score.Score
    reference: list[dict] = field(default_factory=list)
    mine: list[dict] = field(default_factory=list)
    losses: tuple[tuple[int, float], ...] = ()
    baseline: tuple[float, ...] = ()
    steps: int = 0
    final_step: int = 0
    backend: str = "sim"
    end_clock: str = ""


class SessionReady(Message):
    def __init__(self, frame: Frame, notes: dict[str, str]) -> None:
        super().__init__()
        self.frame = frame
        self.notes = notes


class IncidentLoaded(Message):
    """The incident the briefing was drawn from its header is now fully loaded and checked."""


class IncidentRefused(Message):
    """The incident's full load, after the first frame, found bad input: the app ends with
    the loader's line and exit 2, as if it had been found before the screen."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error


class WarmedUp(Message):
    """The slow part of getting ready is done: the night can start at once."""


class Progress(Message):
    """Long work in a worker (scoring, an export) says how far it has got.

    `fraction` is None while a stage cannot tell how far along it is."""

    def __init__(
        self, task: str, stage: int, stages: int, text: str, fraction: float | None = None
    ) -> None:
        super().__init__()
        self.task = task
        self.stage = stage
        self.stages = stages
        self.text = text
        self.fraction = fraction

    @property
    def overall(self) -> float | None:
        """How much of the whole task is done, from 0 to 1 (None: this stage cannot say)."""
        if self.fraction is None:
            return None
        return (self.stage + max(0.0, min(1.0, self.fraction))) / max(1, self.stages)


class SessionFailed(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class FrameReady(Message):
    def __init__(self, frame: Frame) -> None:
        super().__init__()
        self.frame = frame


class EngineFailed(Message):
    """An engine call raised. The night cannot go on safely, but the UI stays up."""

    def __init__(self, what: str, text: str) -> None:
        super().__init__()
        self.what = what
        self.text = text


class BaselineReady(Message):
    def __init__(self, losses: tuple[float, ...]) -> None:
        super().__init__()
        self.losses = losses


class Scored(Message):
    def __init__(self, debrief: Debrief) -> None:
        super().__init__()
        self.debrief = debrief
