"""The checks on a night's command line options that need no engine: `drill play` runs them
before its first frame, which must not wait for the engine to import (drill/session.py
re-exports them for everything else)."""

from __future__ import annotations

# The most ranks a night may run; a save's header is held to the same (drill/saves/reader.py).
# Here, not in drill.saves: that package's reader and writer are not needed before a frame.
MAX_RANKS = 64


class OptionError(Exception):
    """Command line options that contradict each other or the save: one line for the user."""


def check_ranks(ranks: int | None) -> None:
    if ranks is not None and not 1 <= ranks <= MAX_RANKS:
        raise OptionError(
            f"--ranks must be from 1 to {MAX_RANKS} (leave it out for the backend's default),"
            f" not {ranks}"
        )


def check_seed(seed: int | None) -> None:
    """A seed a save can hold (its header keeps it as a 64-bit whole number)."""
    if seed is not None and not -(2**63) <= seed < 2**63:
        raise OptionError(f"--seed must fit in 64 bits, from {-(2**63)} to {2**63 - 1}")
