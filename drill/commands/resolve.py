"""Where incident names used to be resolved; kept as a re-export for callers not yet moved.

Resolving incident names by path or shipped id lives in drill/incident/library.py; the incident
a save was made from is found by drill.saves.resolve_saved_incident.
"""

from __future__ import annotations

from drill.incident.library import resolve_incident, shipped_incident_files
from drill.paths import incidents_dir

__all__ = ["incidents_dir", "resolve_incident", "shipped_incident_files"]
