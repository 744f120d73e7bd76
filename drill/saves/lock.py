"""One writer per save: an exclusive flock on the save's own open file, held for the night.

Two drills carrying on one save (two `drill run --resume`, two browser tabs) would each append
the same later actions, and the save would get every one twice and two score lines. The writer
takes LOCK_EX | LOCK_NB on the file it appends to; the kernel drops it when the process ends in
any way, SIGKILL included, so a crash never leaves a save locked. A second writer is refused
with the process that holds the lock, found in /proc/locks (Linux lists each flock with its
owner's PID and the file's device and inode; elsewhere the message says "another process").
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from drill.saves.model import SaveError


def lock_save(fd: int, shown: str) -> None:
    """Take the save's writer lock on `fd`, or a SaveError naming who holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SaveError(shown, 1, busy_message(fd)) from None
    except OSError:
        pass  # a filesystem without flock (some network mounts): nothing to hold, write on


def check_not_locked(path: str | Path) -> None:
    """Refuse early, before a night is rebuilt, when another process writes this save. Only
    looks (in /proc/locks) and takes no lock itself, so it can never make a writer's own lock
    fail; the writer's lock is what holds, this only saves the learner the wait."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return  # the reader says what is wrong with the path
    try:
        if lock_holder(fd) is not None:
            raise SaveError(str(path), 1, busy_message(fd))
    finally:
        os.close(fd)


def busy_message(fd: int) -> str:
    holder = lock_holder(fd)
    who = f"another drill ({holder})" if holder else "another process"
    return (
        f"{who} is writing this save now; two writers would double every action, so let that"
        " one finish (or stop it), then resume"
    )


def lock_holder(fd: int) -> str | None:
    """'process 1234, `drill run --resume x`' for the process holding an exclusive flock on
    fd's file, or None when none does (or /proc/locks cannot say)."""
    info = os.fstat(fd)
    device = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as handle:
            table = handle.read(1 << 20)
    except OSError:
        return None
    for row in table.splitlines():
        fields = row.split()
        # 1: FLOCK  ADVISORY  WRITE 12345 fe:00:2147279 0 EOF  ("->" marks a waiter)
        if (
            len(fields) >= 6
            and fields[1] == "FLOCK"
            and fields[3] == "WRITE"
            and fields[5] == device
        ):
            pid = fields[4]
            if pid.isdigit():
                return f"process {pid}{_command(pid)}"
    return None


def _command(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            raw = handle.read(4096)
    except OSError:
        return ""
    words = [w.decode("utf-8", "replace") for w in raw.split(b"\0") if w]
    # `python -m drill run ...` reads better as `drill run ...`
    for at, word in enumerate(words):
        if word == "drill" or word.endswith("/drill"):
            words = ["drill", *words[at + 1 :]]
            break
    text = " ".join(words)
    text = "".join(c if c.isprintable() else "?" for c in text)
    if not text:
        return ""
    return f", `{text[:80]}`" if len(text) <= 80 else f", `{text[:77]}...`"
