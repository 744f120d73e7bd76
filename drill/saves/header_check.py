"""What `drill replay --verify` checks in the header before it replays a single action.

A save made by another engine version (ENGINE_VERSION is a fingerprint of the engine's source,
drill/fingerprint.py) or another drill version was played by other code: replaying it here can
show that this drill plays the night the same way, but not that the save is what that drill
wrote, so verify stops at line 1 and says so. `--across-versions` asks for the replay anyway
(the golden saves use it: does today's engine still play each one the same).

The seed and backend decide the whole night. A header edited after the night was scored would
otherwise be caught late, as some action's result differing; the score line repeats them (saves
from before it did are checked by the replay alone), so the field is named at line 1 with both
values. The learner's name (a save played for a course, `drill play --course`) changes nothing
in the night, so no replay would catch an edit to it; the score line repeats it for the same
check.
"""

from __future__ import annotations

import json
from typing import Any

from drill.saves.model import Save

# The header's fields the score line repeats, in the order they are checked.
REPEATED = ("seed", "backend", "learner")


def edited_header_field(save: Save) -> str | None:
    """The header field that is not what the night was scored with, or None."""
    for key in REPEATED:
        scored = _scored_with(save, key)
        if scored is not _UNKNOWN and scored != save.header.get(key):
            return key
    return None


def edited_header(save: Save) -> str | None:
    """`path:1: ...` when the header's seed, backend or learner is not the one the night was
    scored with, or None."""
    key = edited_header_field(save)
    if key is None:
        return None
    scored = _scored_with(save, key)
    where = f"(the score line, line {save.score_line}); the header was edited after the night"
    if key == "learner":
        by = "nobody's name" if scored is None else _shown(scored)
        return (
            f"{save.path}:1: the header's `learner` is {_shown(save.header.get(key))}, but the"
            f" night was played and scored with {by} {where}"
        )
    return (
        f"{save.path}:1: the header's `{key}` is {_shown(save.header.get(key))}, but the"
        f" night was played and scored with {key} {_shown(scored)} {where}"
    )


_UNKNOWN = object()


def _scored_with(save: Save, key: str):
    """What the score line says the night had for `key`; _UNKNOWN when it does not say (a save
    from before the score line repeated it). The learner is on the score line only when the
    night had one, so a score line that repeats the seed and no learner says there was none."""
    if key in save.scored_as:
        return save.scored_as[key]
    if key == "learner" and "seed" in save.scored_as:
        return None
    return _UNKNOWN


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
