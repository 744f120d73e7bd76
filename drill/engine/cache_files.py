"""The caches under saves/cache are best-effort: a night never fails because of one.

Par, floor and the replica's baseline are cached so they are paid for once, but a cache folder
that is a dangling link, a plain file, on a full disk or read-only only costs the time to
compute them again. Each such problem is one warning line on stderr, once per folder and kind
of problem, and the night's score is computed and saved anyway.
"""

from __future__ import annotations

import sys
from pathlib import Path

_warned: set[tuple[str, str]] = set()


def cache_warning(path: Path, doing: str, exc: OSError) -> None:
    """One line saying the cache could not be used, and that nothing else is affected."""
    reason = exc.strerror or type(exc).__name__
    key = (str(path), doing)
    if key in _warned:
        return
    _warned.add(key)
    print(
        f"drill: warning: cannot {doing} the cache {path}: {reason}; the night goes on without"
        " it (it is computed again next time; fix or remove that path to keep it)",
        file=sys.stderr,
    )
