"""The UI-free, deterministic game core. Never imports textual, rich or torch."""

from drill.engine.drill import ActionResult, Drill

__all__ = ["Drill", "ActionResult"]
