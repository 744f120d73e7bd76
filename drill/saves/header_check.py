"""What `drill replay --verify` checks in the header before it replays a single action.

A save made by another engine version (ENGINE_VERSION is a fingerprint of the engine's source,
drill/fingerprint.py) or another drill version was played by other code: replaying it here can
show that this drill plays the night the same way, but not that the save is what that drill
wrote, so verify stops at line 1 and says so. `--across-versions` asks for the replay anyway
(the golden saves use it: does today's engine still play each one the same).

The seed and backend decide the whole night. A header edited after the night was scored would
otherwise be caught late, as some action's result differing; the score line repeats them (saves
from before it did are checked by the replay alone), so the field is named at line 1 with both
values.
"""

from __future__ import annotations

import json
from typing import Any

from drill.saves.model import Save


def edited_header(save: Save) -> str | None:
    """`path:1: ...` when the header's seed or backend is not the one the night was scored
    with, or None."""
    for key in ("seed", "backend"):
        if key in save.scored_as and save.scored_as[key] != save.header.get(key):
            return (
                f"{save.path}:1: the header's `{key}` is {_shown(save.header.get(key))}, but the"
                f" night was played and scored with {key} {_shown(save.scored_as[key])} (the"
                f" score line, line {save.score_line}); the header was edited after the night"
            )
    return None


def other_version(save: Save, *, engine_version: str, drill_version: str) -> str | None:
    """`path:1: ...` when another engine or drill version made the save, or None."""
    for key, here, what in (
        ("engine_version", engine_version, "engine"),
        ("drill_version", drill_version, "drill"),
    ):
        made = save.header.get(key)
        if made is not None and made != here:
            made_shown, here_shown = _pair(str(made), here)
            return (
                f"{save.path}:1: the header's `{key}` is {made_shown}, this drill's is"
                f" {here_shown}: the save was made by another {what} version and cannot be"
                " verified exactly; verify it with the drill that made it, or add"
                " --across-versions to check that this one plays the night the same"
            )
    return None


def _pair(made: str, here: str) -> tuple[str, str]:
    """Both versions, shortened only while the short forms still differ."""
    if made[:12] != here[:12]:
        return _shown(made[:12]), _shown(here[:12])
    return _shown(made), _shown(here)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 70 else text[:67] + "..."
