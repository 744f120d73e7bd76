"""Real saves for the save tests: a sim night of dead-rank played by the real CLI, and the
edits a crash, a full disk or a person with an editor make to one."""

from __future__ import annotations

import json
from pathlib import Path

from tests.clikit import run_drill

# Relative lines on purpose: a resume must count each from the previous action's end.
ACTIONS = """\
03:26 status llm-pretrain
+30s logs llm-pretrain
+30s health gpu-a-2
+0s health gpu-a-1
+30s drain gpu-a-2
+30s restart llm-pretrain --from latest --exclude gpu-a-2
+30s note Xid on gpu-a-2, drained and restarted
"""


def play_night(folder: Path, name: str = "night", actions: str = ACTIONS, *more: str):
    """Play ACTIONS to the end with the sim backend; (save path, the --json account)."""
    folder.mkdir(parents=True, exist_ok=True)
    actions_file = folder / f"{name}.actions"
    actions_file.write_text(actions)
    save = folder / f"{name}.jsonl"
    done = run_drill(
        "run",
        "dead-rank",
        "--actions",
        str(actions_file),
        "--backend",
        "sim",
        "--save",
        str(save),
        "--json",
        *more,
    )
    assert done.returncode == 0, done.stderr
    return save, json.loads(done.stdout)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_records(path: Path, rows: list[dict], *, newline: bool = True) -> Path:
    text = "\n".join(json.dumps(row, sort_keys=True, ensure_ascii=False) for row in rows)
    path.write_text(text + ("\n" if newline else ""), encoding="utf-8")
    return path


def cut_after(source: Path, target: Path, actions: int) -> Path:
    """The save as a kill after `actions` saved actions leaves it: no score line."""
    rows = records(source)
    kept = [rows[0]] + [r for r in rows[1:] if r["type"] == "action"][:actions]
    return write_records(target, kept)
