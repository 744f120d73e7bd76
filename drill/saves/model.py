"""What a save holds once read, and the one error a damaged or unwritable save gives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class SaveError(Exception):
    """A save that cannot be read or written: the message names the file and line."""

    def __init__(self, path: str, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.path, self.line, self.message = str(path), line, message


@dataclass
class SavedAction:
    n: int
    time: float
    end: float
    text: str
    accepted: bool
    result: str
    line: int  # where it sits in the file, for messages


@dataclass
class Save:
    path: str
    header: dict[str, Any]
    actions: list[SavedAction] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    score: dict[str, Any] | None = None
    end_time: float | None = None  # from the score line
    score_line: int | None = None
    scored_as: dict[str, Any] = field(default_factory=dict)  # seed, backend on the score line
    lines: int = 0  # complete lines read, the header included
    truncated: bool = False  # the last line was cut short (a crash mid-write)
    needs_newline: bool = False  # the last line is whole but has no newline after it
    size: int = 0  # bytes read: a writer that finds the file grown since knows another wrote

    @property
    def seed(self) -> int:
        return int(self.header["seed"])

    @property
    def backend(self) -> str:
        return str(self.header["backend"])

    @property
    def ranks(self) -> int | None:
        return self.header.get("ranks")

    @property
    def replica(self) -> str | None:
        """The replica the night ran (an installed replica's name, or the module:factory the
        command line gave); None: the default."""
        replica = self.header.get("replica")
        return replica if isinstance(replica, str) and replica else None

    @property
    def finished(self) -> bool:
        return self.score is not None

    @property
    def last_end(self) -> float:
        """When the operator was free after the last saved action: where a resumed night's
        relative (`+30s`) lines count from."""
        return self.actions[-1].end if self.actions else 0.0
