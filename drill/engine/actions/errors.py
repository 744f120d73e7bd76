"""A rejected action: one line that says what was wrong and the closest valid choice."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class Reject(Exception):
    """Raised by parsing and by handlers; nothing in the world has changed when it is raised."""


def closest(word: str, choices: Iterable[str]) -> str | None:
    options = list(choices)
    found = difflib.get_close_matches(word, options, n=1, cutoff=0.5)
    return found[0] if found else None


def unknown(kind: str, word: str, choices: Iterable[str]) -> Reject:
    options = sorted(choices)
    guess = closest(word, options)
    if guess:
        return Reject(f"no {kind} named {word!r}; did you mean {guess!r}?")
    listing = ", ".join(options[:6]) + (" ..." if len(options) > 6 else "")
    return Reject(
        f"no {kind} named {word!r}; try one of: {listing}"
        if options
        else f"no {kind} named {word!r}"
    )


class ActionsFileError(Exception):
    """A line of an actions file (or a reference line) that cannot be played: path:line:col."""

    def __init__(self, path: str, line: int, col: int, message: str):
        super().__init__(f"{path}:{line}:{col}: {message}")
        self.path, self.line, self.col, self.message = path, line, col, message
