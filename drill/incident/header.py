"""An incident file's header (id, title, level, time, order) without the full load.

The picker lists every shipped incident before its first frame. The full load validates the
whole file against the pydantic models and every fault kind, which costs more to import than
the picker takes to draw, so the picker draws from these headers and checks each file fully
just after (drill/tui/screens/picker.py). A header that does not read cleanly here is None:
the caller loads that file fully at once, so a broken file is reported by the loader's own
words, never by a second, weaker message from this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from drill.incident.errors import IncidentError
from drill.incident.migrations import LATEST
from drill.incident.yaml_source import decode_source, read_source_bytes
from drill.text_safety import first_unsafe

LEVELS = ("tutorial", "easy", "medium", "hard")

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
        )


def read_header(path: Path) -> Header | None:
    """The file's header, or None when anything about it is not plainly right (the full load
    then says what): a file of an older schema, a missing or odd field, a control character."""
    try:
        text = decode_source(read_source_bytes(path, str(path)), str(path))
        # Only ever a safe loader (libyaml's when present): no tag builds an object, and the
        # size limit already held above. The full load repeats this with every check.
        loader = _SAFE_LOADER(text)
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except (IncidentError, yaml.YAMLError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("schema") != LATEST:
        return None
    ident, title, level = (data.get(key) for key in ("id", "title", "difficulty"))
    order, minutes = data.get("order"), data.get("estimated_minutes")
    if not (isinstance(ident, str) and isinstance(title, str) and isinstance(level, str)):
        return None
    if not all(w and first_unsafe(w) is None for w in (ident, title, level)):
        return None
    if type(order) is not int or type(minutes) is not int or level not in LEVELS:
        return None
    return Header(path, ident, title, level, order, minutes)
