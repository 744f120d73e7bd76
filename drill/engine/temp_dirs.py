"""Scratch folders for a night's replica checkpoints (`drill-*` under the system temp folder).

A folder is removed when its night closes, and again at exit (atexit runs on a normal exit,
an uncaught exception, Ctrl+C and SIGTERM, which drill turns into an exception). A SIGKILL or a
power cut runs nothing, so each folder's name carries its owner: the process id and that
process's start time (`drill-tutorial-4242.81234-k3j2h1`). The next drill to make a folder sweeps
every `drill-*` folder whose owner is gone (no such process, or a process of that id started
later: the id was reused). The owner is in the name rather than in a file inside, because a
name is there from the folder's first instant to its last: a kill between mkdtemp and writing a
file, or halfway through removing the folder, would leave a file-owned folder with no owner.
Folders from older versions with only an owner file inside are still swept by that file. Only
folders of this user, with an owner, that are real folders and not links, are swept.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

PREFIX = "drill-"
OWNER_FILE = ".drill-owner"
# mkdtemp's random part is letters, digits and underscores, so the last `-` ends the stamp.
_NAMED_OWNER = re.compile(r"-(\d+)\.(\d+|x)-[A-Za-z0-9_]+$")

_lock = threading.Lock()
_mine: set[Path] = set()
_swept = False


def make_temp_dir(prefix: str = PREFIX) -> Path:
    """tempfile.mkdtemp, plus an owner file, cleanup at exit and a sweep of dead owners'."""
    global _swept
    if not prefix.startswith(PREFIX):
        raise ValueError(f"scratch folders are named {PREFIX}*, so the sweep can find them")
    with _lock:
        if not _swept:
            _swept = True
            sweep()
            atexit.register(remove_mine)
        pid, started = os.getpid(), _start_time(os.getpid())
        path = Path(tempfile.mkdtemp(prefix=f"{prefix}{pid}.{started.replace('?', 'x')}-"))
        _mine.add(path)
    return path


def remove_mine() -> None:
    """Remove the folders this process made (a forked child inherits the list, not the owner)."""
    with _lock:
        for path in list(_mine):
            if _owner(path) == _owner_stamp(os.getpid()):
                shutil.rmtree(path, ignore_errors=True)
            _mine.discard(path)


def sweep(folder: Path | None = None) -> list[Path]:
    """Remove `drill-*` folders whose owner process is gone; returns what it removed."""
    folder = Path(folder or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(PREFIX):
            continue
        try:
            if (
                not entry.is_dir(follow_symlinks=False)
                or entry.stat(follow_symlinks=False).st_uid != os.getuid()
            ):
                continue
        except OSError:
            continue
        path = Path(entry.path)
        stamp = _owner(path)
        if stamp is None or _alive(stamp):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _owner(path: Path) -> str | None:
    named = _NAMED_OWNER.search(path.name)
    if named:
        return f"{named[1]} {named[2].replace('x', '?')}"
    try:
        return (path / OWNER_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _owner_stamp(pid: int) -> str:
    return f"{pid} {_start_time(pid)}"


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat), so a
    reused process id is not taken for the owner. "?" where /proc is not there."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return "?"
    # The command name (field 2) is in parentheses and may hold spaces: count after it.
    return stat.rpartition(")")[2].split()[19]


def _alive(stamp: str) -> bool:
    pid_text, _, started = stamp.partition(" ")
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process by that id: not ours to judge
    return started == "?" or _start_time(pid) == started
