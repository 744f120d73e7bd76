"""Where saves and caches live: --saves-dir, then $DRILL_SAVES_DIR, then ./saves."""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "DRILL_SAVES_DIR"
_override: Path | None = None


def set_saves_dir(path: str | Path | None) -> None:
    global _override
    _override = Path(path) if path else None


def saves_dir() -> Path:
    if _override is not None:
        return _override
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    return Path.cwd() / "saves"


def cache_dir() -> Path:
    """Where par, floor and the replica's baseline are cached: the engine is handed this."""
    return saves_dir() / "cache"
