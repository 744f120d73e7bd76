"""Problems found in an incident file, each pinned to a place an editor can jump to.

Every message reads "what is wrong; what would be right" so an instructor can fix the file
without reading our code. Positions are 1-based (line and column), the convention editors and
compilers use for `path:line:col:` prefixes, so terminals and IDEs make them clickable.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


def format_problem(path: str, line: int, col: int, message: str) -> str:
    """One problem as the `path:line:col: message` line editors understand."""
    return f"{path}:{line}:{col}: {message}"


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with a file. Field order makes sorting go by file, line, column."""

    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return format_problem(self.path, self.line, self.col, self.message)


def sorted_unique(problems: Iterable[Problem]) -> list[Problem]:
    """Problems by position, each once: an aliased value can report the same problem twice."""
    return sorted(set(problems))


class IncidentError(Exception):
    """Everything wrong with an incident file that could be found, one problem per line.

    The only exception the loading layer lets out, so callers (CLI, TUI, tests) need one
    `except` to show a clean report instead of a traceback.
    """

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: list[Problem] = list(problems)
        super().__init__(self.problems)

    def __str__(self) -> str:
        return "\n".join(str(problem) for problem in self.problems)
