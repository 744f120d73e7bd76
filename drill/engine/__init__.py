"""The UI-free, deterministic game core. Never imports textual, rich or torch.

`from drill.engine import Drill` works, but the engine is only imported when a name is used: a
screen that draws a picker before any night starts does not pay for it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Drill", "ActionResult"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from drill.engine import drill

        return getattr(drill, name)
    raise AttributeError(f"module 'drill.engine' has no attribute {name!r}")
