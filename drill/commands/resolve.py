"""Find an incident by path or by the id of a shipped one."""

from __future__ import annotations

from pathlib import Path

from drill.incident.loader import LoadedIncident, load_incident


def incidents_dir() -> Path:
    from drill.cli import INCIDENTS_DIR

    return INCIDENTS_DIR


def resolve_incident(name: str) -> LoadedIncident:
    path = Path(name)
    if not path.exists() and "/" not in name and not name.endswith((".yaml", ".yml")):
        shipped = incidents_dir() / f"{name}.yaml"
        if shipped.exists():
            path = shipped
    return load_incident(path if path.exists() else name)


def shipped_incident_files() -> list[Path]:
    return sorted(p for p in incidents_dir().glob("*.yaml"))
