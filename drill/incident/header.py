"""An incident file's header (id, title, level, time, order, briefing, seeds) without the full
load.

The picker lists every shipped incident before its first frame. The full load validates the
whole file against the pydantic models and every fault kind, which costs more to import than
the picker takes to draw, so the picker draws from these headers and checks each file fully
just after (drill/tui/screens/picker.py). A header that does not read cleanly here is None:
the caller loads that file fully at once, so a broken file is reported by the loader's own
words, never by a second, weaker message from this module. `drill play INCIDENT` draws its
briefing from the header the same way and loads the file fully just after that first frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from drill.incident.errors import IncidentError
from drill.incident.migrations import LATEST
from drill.incident.source_file import decode_source, read_source_bytes
from drill.text_safety import first_unsafe

LEVELS = ("tutorial", "easy", "medium", "hard")
# What the models give a file that names no seeds (drill/incident/models.py, Incident.seeds).
DEFAULT_SEEDS = (1, 2)
MAX_SEED = 2**32 - 1

# The safe loader, in C when PyYAML was built with libyaml (a tenth of the time).
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Header:
    path: Path
    id: str
    title: str
    difficulty: str
    order: int
    estimated_minutes: int
    # For the briefing's first frame: its text and the seed a night takes when none is given.
    # Empty when the header was made from something that does not say (the picker's own
    # entries never need them).
    briefing: str = ""
    seeds: tuple[int, ...] = ()

    @classmethod
    def of(cls, loaded: Any) -> Header:
        """The header of a fully loaded incident (a LoadedIncident)."""
        incident = loaded.incident
        return cls(
            Path(loaded.path),
            incident.id,
            incident.title,
            incident.difficulty,
            incident.order,
            incident.estimated_minutes,
            incident.briefing,
            tuple(incident.seeds),
        )


def read_header(path: Path) -> Header | None:
    """The file's header, or None when anything about it is not plainly right (the full load
    then says what): a file of an older schema, a missing or odd field, a control character."""
    try:
        text = decode_source(read_source_bytes(path, str(path)), str(path))
        # Only ever a safe loader (libyaml's when present): no tag builds an object, and the
        # size limit already held above. The full load repeats this with every check. Only the
        # header's own values are built: the rest of the file is the full load's to read.
        loader = _SAFE_LOADER(text)
        try:
            data = _header_values(loader, loader.get_single_node())
        finally:
            loader.dispose()
    except (IncidentError, yaml.YAMLError, RecursionError):
        return None
    if data is None or data.get("schema") != LATEST:
        return None
    ident, title, level = (data.get(key) for key in ("id", "title", "difficulty"))
    order, minutes = data.get("order"), data.get("estimated_minutes")
    if not (isinstance(ident, str) and isinstance(title, str) and isinstance(level, str)):
        return None
    if not all(w and first_unsafe(w) is None for w in (ident, title, level)):
        return None
    if type(order) is not int or type(minutes) is not int or level not in LEVELS:
        return None
    briefing, seeds = data.get("briefing"), data.get("seeds", list(DEFAULT_SEEDS))
    if not isinstance(briefing, str) or not briefing or first_unsafe(briefing) is not None:
        return None
    if not isinstance(seeds, list) or not seeds or not all(_is_seed(s) for s in seeds):
        return None
    return Header(path, ident, title, level, order, minutes, briefing, tuple(seeds))


HEADER_KEYS = frozenset(
    ("schema", "id", "title", "difficulty", "order", "estimated_minutes", "briefing", "seeds")
)
_MERGE = "tag:yaml.org,2002:merge"


def _header_values(loader: Any, root: Any) -> dict[str, Any] | None:
    """The header keys of the top-level mapping, each built on its own; None for anything a
    plain header does not have (not a mapping, a key twice, a merge key)."""
    if not isinstance(root, yaml.MappingNode):
        return None
    found: dict[str, Any] = {}
    for key, value in root.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == _MERGE:
            return None
        if key.value in HEADER_KEYS:
            if key.value in found:
                return None
            found[key.value] = loader.construct_object(value, deep=True)
    return found


def _is_seed(value: object) -> bool:
    return type(value) is int and 0 <= value <= MAX_SEED
