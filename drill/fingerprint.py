"""A fingerprint of the code that decides what happens in a night.

Par and floor are real runs of the engine, cached on disk so they are paid for once. A cache
keyed by a hand-bumped version goes stale the first time someone forgets to bump it, so the key
is instead a sha256 over the source of everything that can change a night's outcome: the engine,
the simulation, the fault kinds, the incident loader and the value types it parses (drill/values),
the node and job states and the replica. Change one byte of any of them and every cached par and
floor is recomputed; change the TUI or the docs and nothing is.

The files are read through importlib.resources, so the fingerprint is the same from a checkout,
an editable install or an installed wheel holding the same source.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

# (package, folder or file inside it) whose .py files make up the fingerprint.
FINGERPRINTED = (
    ("drill", "engine"),
    ("drill", "sim"),
    ("drill", "faults"),
    ("drill", "incident"),
    ("drill", "values"),
    ("drill", "states.py"),
    ("replica", ""),
)


def source_files() -> list[tuple[str, bytes]]:
    """(name like "drill/engine/scoring/par.py", bytes) for every fingerprinted file, sorted by name."""
    found: list[tuple[str, bytes]] = []
    for package, part in FINGERPRINTED:
        root = resources.files(package)
        top = root / part if part else root
        name = f"{package}/{part}".rstrip("/")
        if top.is_file():
            found.append((name, top.read_bytes()))
        else:
            found += _python_files(top, name)
    return sorted(found)


def _python_files(folder: Traversable, prefix: str) -> list[tuple[str, bytes]]:
    files: list[tuple[str, bytes]] = []
    for entry in folder.iterdir():
        name = f"{prefix}/{entry.name}"
        if entry.is_dir():
            if entry.name != "__pycache__":
                files += _python_files(entry, name)
        elif entry.name.endswith(".py"):
            files.append((name, entry.read_bytes()))
    return files


def fingerprint_of(files: list[tuple[str, bytes]]) -> str:
    """sha256 over names and contents, each length-prefixed so no two file sets collide."""
    digest = hashlib.sha256()
    for name, data in sorted(files):
        encoded = name.encode("utf-8")
        digest.update(len(encoded).to_bytes(8, "big") + encoded)
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


@cache
def source_fingerprint() -> str:
    """The sha256 (64 hex digits) of the source that decides a night (see FINGERPRINTED).

    Computed once per process: the code running cannot change under it.
    """
    return fingerprint_of(source_files())
