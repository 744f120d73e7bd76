"""The two kinds of failure the command line turns into one line on stderr.

UserError: bad input from the person at the keyboard (exit 2). InternalError: a bug in drill
itself, never dressed up as a problem in the user's file (exit 70, EX_SOFTWARE in sysexits.h).
Both live here, at the bottom of the layers, so every layer can raise them without importing
the command line.
"""

from __future__ import annotations

from pathlib import Path

EXIT_BAD_INPUT = 2
EXIT_INTERNAL_ERROR = 70


class UserError(Exception):
    """Bad input from the person at the keyboard: printed as one line, exit 2."""


class InternalError(Exception):
    """A bug in drill: one line that says so and where, instead of a misleading located error.

    `during` says what drill was doing ("reading incidents/x.yaml"); `cause` is the exception
    that should not have happened. The line names the innermost frame inside drill, so a report
    of the line alone points at the code to fix.
    """

    def __init__(self, during: str, cause: BaseException) -> None:
        self.during = during
        self.cause = cause
        self.where = _innermost_drill_frame(cause)
        super().__init__(during, cause)

    def __str__(self) -> str:
        where = f" at {self.where}" if self.where else ""
        return (
            f"internal error while {self.during}: {type(self.cause).__name__}: {self.cause}"
            f"{where}. This is a bug in drill, not in your input; please report it with this"
            " line and the file attached"
        )


def _innermost_drill_frame(exc: BaseException) -> str:
    """`drill/incident/yaml_source.py:123`: the deepest frame of the traceback inside drill."""
    import traceback  # here: every command imports this module before its first frame

    from drill.paths import package_dir

    package = package_dir().resolve()
    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        try:
            inside = Path(frame.filename).resolve().relative_to(package)
        except ValueError:
            continue
        found = f"drill/{inside.as_posix()}:{frame.lineno}"
    return found
