"""The incident a save was made from, found without letting the save send drill elsewhere.

A save is data from who knows where, and its header names a file. That file is read only when
it is a shipped incident or sits in the save's own folder (a relative path counts from that
folder, not from wherever drill was started), after following links. Its bytes are hashed
before anything parses them, and only a file whose sha256 is the header's is parsed: a file that
is not the incident (a private key next to the save, say) is refused naming both hashes, never
parsed, so nothing of it can end up in a message. When the header names no allowed file, the
shipped incident with the header's id is used, and `check_incident` refuses it if it changed.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from drill.incident.errors import IncidentError
from drill.paths import incidents_dir
from drill.saves.model import Save, SaveError

if TYPE_CHECKING:  # the loader (pydantic, the fault kinds) loads when a save's incident does
    from drill.incident.loader import LoadedIncident

MAX_INCIDENT_BYTES = 2_000_000


def shipped_incidents_dir() -> Path:
    """The shipped incidents' folder, found with importlib.resources (drill/paths.py)."""
    return incidents_dir()


def resolve_saved_incident(save: Save) -> LoadedIncident:
    """The incident file the header names, when it is allowed and unchanged; else the shipped
    incident with the header's id."""
    from drill.incident.loader import load_incident

    named = _allowed_file(save)
    if named is not None:
        sha = _sha256_of(named)
        if sha != save.header["incident_sha256"]:
            now = f"now has sha256 {sha[:16]}..." if sha else "cannot be read as an incident"
            raise SaveError(
                save.path,
                1,
                f"the incident changed since this save was made: the save has sha256"
                f" {save.header['incident_sha256'][:16]}..., {named} {now}; replay needs the"
                " incident file as it was (or pass --incident FILE)",
            )
        try:
            return load_incident(named)
        except IncidentError as exc:
            first = exc.problems[0] if exc.problems else None
            where = f"{first.path}:{first.line}:{first.col}" if first else str(named)
            raise SaveError(
                save.path,
                1,
                f"the incident this save was made from no longer loads in this drill ({where});"
                " `drill validate` it, or pass --incident FILE",
            ) from None
    incident_id = save.header["incident_id"]  # the reader checked it is a plain name
    shipped = shipped_incidents_dir() / f"{incident_id}.yaml"
    if not shipped.is_file():
        raise SaveError(
            save.path,
            1,
            f"this save is of incident {incident_id!r}, which is not shipped with drill, and the"
            " incident file its header names is not in the save's folder; pass"
            " --incident FILE",
        )
    return load_incident(shipped)


def check_incident(save: Save, loaded: LoadedIncident) -> None:
    if save.header["incident_sha256"] != loaded.sha256:
        raise SaveError(
            save.path,
            1,
            f"the incident changed since this save was made: the save has sha256"
            f" {save.header['incident_sha256'][:16]}..., {loaded.path} now has {loaded.sha256[:16]}...;"
            " replay needs the incident file as it was",
        )
    if save.header["incident_id"] != loaded.incident.id:
        raise SaveError(
            save.path,
            1,
            f"the header's incident id is {save.header['incident_id']!r}, but {loaded.path} is"
            f" incident {loaded.incident.id!r}",
        )


def saved_incident_path(incident_path: str | Path, save_path: str | Path) -> str:
    """What a new save's header records: the incident's path relative to the save's folder
    when it sits there, its file name when it is shipped (found by id on any machine), else
    its absolute path."""
    target = Path(incident_path).resolve()
    folder = Path(save_path).resolve().parent
    if target.is_relative_to(shipped_incidents_dir().resolve()):
        return target.name
    if target.is_relative_to(folder):
        return str(target.relative_to(folder))
    return str(target)


def _allowed_file(save: Save) -> Path | None:
    named = save.header.get("incident_path")
    if not named:
        return None
    folder = Path(save.path).parent
    candidate = Path(named) if os.path.isabs(named) else folder / named
    try:
        target = candidate.resolve(strict=True)
        roots = (folder.resolve(), shipped_incidents_dir().resolve())
    except (OSError, RuntimeError):
        return None
    if not any(target.is_relative_to(root) for root in roots) or not target.is_file():
        return None
    return target


def _sha256_of(path: Path) -> str | None:
    """The file's sha256, reading at most the size an incident can have; None when unreadable
    or larger (no incident is; a device or pipe would never end)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_INCIDENT_BYTES:
            return None
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)
