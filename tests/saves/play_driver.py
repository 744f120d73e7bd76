"""Play a night in the TUI as one real process (Textual's headless run), for the kill test.

    python -m tests.saves.play_driver SAVE LINES_FILE [--resume] [--backend B]

The clock is paused, so every typed line starts when the previous one ended and the night does
not depend on how fast this machine types. Prints `typed N` after each line is in the save, then
ends the night from the prompt (the score line) and quits. With --resume it carries SAVE on the
way `drill play --resume` does, typing only the lines the save does not hold yet.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from drill.incident.library import resolve_incident
from drill.session import open_resume
from drill.tui.app import DrillApp
from tests.tui.tuikit import screen_name, to_night, type_line, until

INCIDENT = "tutorial"


async def play(save: Path, lines: list[str], *, resume: bool, backend: str) -> None:
    if resume:
        saved, loaded = open_resume(str(save))
        app = DrillApp(loaded=loaded, resume=saved, paused=True, cursor_blink=False)
    else:
        app = DrillApp(
            loaded=resolve_incident(INCIDENT),
            backend=backend,
            save_path=save,
            paused=True,
            cursor_blink=False,
            saves_dir=save.parent,
        )
    async with app.run_test(size=(120, 40)) as pilot:
        await to_night(pilot)
        done = len(app.driver.session.results)
        for number, line in enumerate(lines[done:], start=done + 1):
            await type_line(pilot, line)
            print(f"typed {number}", flush=True)
        await type_line(pilot, "debrief", keys=True)
        await pilot.press("y")
        await until(
            pilot,
            lambda: screen_name(app) == "DebriefScreen" and app.screen.result is not None,
            timeout=300,
        )
        print("scored", flush=True)
        await pilot.press("ctrl+q")
        await pilot.press("y")
        await until(pilot, lambda: app.driver.closed, timeout=60)


def main(argv: list[str]) -> int:
    save, lines_file = Path(argv[0]), Path(argv[1])
    backend = argv[argv.index("--backend") + 1] if "--backend" in argv else "sim"
    lines = [line for line in lines_file.read_text().splitlines() if line.strip()]
    asyncio.run(play(save, lines, resume="--resume" in argv, backend=backend))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
