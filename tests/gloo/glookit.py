"""Finding a test's own processes without psutil: each test puts a unique marker in the
environment of the drill it starts, the workers inherit it, and /proc shows who carries it."""

from __future__ import annotations

import os
import time
from pathlib import Path


def marked_processes(marker: str, *, tracker: bool = False) -> list[int]:
    """Processes whose environment carries this test's marker: the CLI and its workers, and
    with tracker=True multiprocessing's resource tracker too."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() not in (entry / "environ").read_bytes():
                continue
            # multiprocessing's resource tracker lives as long as the process that spawned
            # workers (here, pytest itself): it is not a worker.
            if not tracker and b"resource_tracker" in (entry / "cmdline").read_bytes():
                continue
            found.append(int(entry.name))
        except OSError:
            continue
    return found


def wait_gone(marker: str, seconds: float = 15.0, *, tracker: bool = False) -> list[int]:
    """The marked processes still there after waiting up to `seconds` for them to go."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = marked_processes(marker, tracker=tracker)
        if not left:
            return []
        time.sleep(0.2)
    return marked_processes(marker, tracker=tracker)


def drill_env(marker: str, **more: str) -> dict[str, str]:
    return {**os.environ, "DRILL_TEST_MARKER": marker, **more}
