"""A save whose text fields hold terminal escape sequences, for the tests that show or print it.

The engine refuses a typed line with control characters, but a save is a file: someone can edit
one, or send one. Its note, the note's result and the debrief answers here hold an OSC 52
clipboard write and a screen clear; nothing that shows the save may pass them to a terminal.
"""

from __future__ import annotations

import json
from pathlib import Path

from drill.engine.runbook_sections import RUNBOOK_SECTIONS
from tests.clikit import run_drill

OSC_52 = "\x1b]52;c;cm0gLXJmIH4K\x07"  # "put `rm -rf ~` on the clipboard"
CLEAR = "\x1b[2J"
EVIL = f"{OSC_52} then {CLEAR}\u202e"


def tampered_save(folder: Path, *, finished: bool = True) -> Path:
    """The tutorial's reference night on the sim backend, its note and answers made hostile.
    Unfinished: cut before the score line, for --resume."""
    path = folder / ("evil.jsonl" if finished else "evil-open.jsonl")
    done = run_drill("run", "tutorial", "--reference", "--backend", "sim", "--save", str(path))
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    notes = [r for r in records if r.get("type") == "action" and r["text"].startswith("note ")]
    assert notes, "the tutorial's reference writes a note"
    for record in notes:
        record["text"] = f"note {EVIL}"
        record["result"] = f"noted {EVIL}"
    if not finished:
        records = [r for r in records if r.get("type") not in ("score", "text")]
    else:
        records += [
            {"type": "text", "key": key, "value": EVIL}
            for key in (s.save_key for s in RUNBOOK_SECTIONS)
        ]
        records.append({"type": "text", "key": "opinion", "value": EVIL})
    path.write_text(
        "".join(
            json.dumps(r, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
            for r in records
        ),
        encoding="utf-8",
    )
    return path
