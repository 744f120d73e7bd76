"""Process helpers for the gloo backend tests: /proc checks, no psutil."""

from __future__ import annotations

import os
import time
from pathlib import Path


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) from /proc, or None when the process does not exist."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def gone(pid: int) -> bool:
    """True when the process no longer runs. A zombie (dead, not yet reaped by whoever
    inherited it) counts as gone: it holds no memory, sockets or CPU."""
    st = _stat(pid)
    return st is None or st[0] in ("Z", "X")


def wait_gone(pids: list[int], timeout: float) -> list[int]:
    """Wait until every pid is gone; return those still running after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        left = [p for p in pids if not gone(p)]
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.05)


def spawned_children() -> list[int]:
    """Running multiprocessing-spawn children of this process, not counting the resource
    tracker that multiprocessing keeps for itself."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        st = _stat(int(entry))
        if st is None or st[1] != me or st[0] in ("Z", "X"):
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if b"spawn_main" in cmd and b"resource_tracker" not in cmd:
            found.append(int(entry))
    return found


def wait_stopped(pids: list[int], timeout: float) -> bool:
    """Wait until every pid is stopped by a signal (state T)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        states = [_stat(p) for p in pids]
        if all(st is not None and st[0] == "T" for st in states):
            return True
        time.sleep(0.05)
    return False
