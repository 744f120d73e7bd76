"""Finding incidents by name: a path on disk, or the id of one drill ships.

This sits in the incident layer so that everything above it (the commands, the TUI's picker,
the runbook and report) resolves names the same way without importing the command line.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from drill.paths import incidents_dir

if TYPE_CHECKING:
    from drill.incident.loader import LoadedIncident

YAML_SUFFIXES = (".yaml", ".yml")


def shipped_incident_files() -> list[Path]:
    """The incident files drill ships, sorted by file name (the picker sorts by `order`)."""
    return sorted(incidents_dir().glob("*.yaml"))


def shipped_path(name: str) -> Path | None:
    """The shipped file for an incident id like `dead-rank`, or None when there is none.

    Only a bare id is looked up: anything with a slash or a YAML suffix is a path, so a name
    can never reach outside the shipped folder.
    """
    if "/" in name or "\\" in name or name.endswith(YAML_SUFFIXES) or name in ("", ".", ".."):
        return None
    candidate = incidents_dir() / f"{name}.yaml"
    return candidate if candidate.is_file() else None


def resolve_incident(name: str) -> LoadedIncident:
    """Load `name` as a path if one exists, else as the id of a shipped incident.

    A name that is neither is loaded as a path anyway, so the error names it: "file not found".
    """
    # Here, not at the top: the loader brings pydantic and every fault kind, and the picker
    # lists the shipped files before its first frame without them.
    from drill.incident.loader import load_incident

    path = Path(name)
    if not path.exists():
        path = shipped_path(name) or path
    return load_incident(path if path.exists() else name)


def incident_files(paths: Iterable[str]) -> list[Path]:
    """Files and folders as given on a command line, folders expanded to their YAML files;
    nothing given means the shipped incidents."""
    given = list(paths)
    if not given:
        return shipped_incident_files()
    files: list[Path] = []
    for item in given:
        path = Path(item)
        if path.is_dir():
            files += sorted(path.glob("*.yaml")) + sorted(path.glob("*.yml"))
        else:
            files.append(path)
    return files
