"""Find the incident a save was made from.

Resolving incident names by path or shipped id lives in drill/incident/library.py; the names
below are re-exported so callers that have not moved yet keep working. resolve_saved_incident
stays here until it moves into the saves layer.
"""

from __future__ import annotations

import re
from pathlib import Path

from drill.incident.library import resolve_incident, shipped_incident_files
from drill.incident.loader import LoadedIncident, load_incident
from drill.paths import incidents_dir
from drill.saves import SaveError

__all__ = [
    "NAME",
    "incidents_dir",
    "resolve_incident",
    "resolve_saved_incident",
    "shipped_incident_files",
]


def resolve_saved_incident(save, override: str | None) -> LoadedIncident:
    """The incident a save was made from: the given one, the path in the header, or the shipped
    incident with the header's id, in that order.

    A save is data from who knows where: the path in its header is followed only when it stays
    inside the save's own folder, the current folder or the shipped incidents, never elsewhere.
    """
    if override:
        return resolve_incident(override)
    saved_path = Path(str(save.header.get("incident_path", "")))
    if saved_path.is_file() and _inside_allowed(saved_path, Path(save.path)):
        return load_incident(saved_path)
    incident_id = str(save.header["incident_id"])
    if not NAME.fullmatch(incident_id):
        raise SaveError(
            save.path, 1, f"the header's incident id {incident_id!r} is not an incident id"
        )
    return resolve_incident(incident_id)


NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")


def _inside_allowed(path: Path, save_path: Path) -> bool:
    target = path.resolve()
    roots = (save_path.resolve().parent, Path.cwd().resolve(), incidents_dir().resolve())
    return any(target.is_relative_to(root) for root in roots)
