"""What loads before the first frame: only what that screen draws.

The picker lists the incidents from their headers and the briefing draws from its incident's
header too; the session, the engine, SimPy and the palette's action catalog import afterwards
(the warm-up worker, the palette when it opens), and the full incident load runs just after
the frame (the picker's check, the briefing's warm-up). Each of those cost a tenth of a second or more
before the first frame once (issue 24); this keeps them from creeping back in.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# The benchmark's first frame (benchmarks/bench_tui.py): the command line's own path to the app.
FIRST_FRAME = textwrap.dedent(
    """
    import sys
    from drill.cli import build_parser
    from drill.commands.play import app_options
    from drill.tui.app import DrillApp

    WATCHED = sys.argv[1].split(",")

    class Timed(DrillApp):
        def drawn(self, screen):
            loaded = [m for m in WATCHED if m in sys.modules]
            print(type(screen).__name__, ",".join(loaded) or "-", flush=True)
            self.exit(0)

    args = build_parser().parse_args(["play", *sys.argv[2:]])
    Timed(**app_options(args, defer_load=True)).run(headless=True, size=(120, 40))
    """
)

# Neither screen draws anything of these.
NEVER = [
    "torch",
    "simpy",
    "drill.session",
    "drill.engine.drill",
    "drill.engine.actions.catalog",
    "drill.tui.palette",
    "drill.tui.screens.night",
    "drill.fingerprint",  # hashes drill's source: wanted when a save is written, not before
    # The course's gradebook and Dask: only `drill course` needs them.
    "sqlalchemy",
    "alembic",
    "distributed",
]
# Both draw from headers: the full load (pydantic models, every fault kind) comes after.
FULL_LOAD = ["pydantic", "drill.faults", "drill.incident.loader", "drill.incident.models"]


def first_frame(tmp_path: Path, watched: list[str], *args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME, ",".join(watched), *args],
        cwd=REPO,
        env={
            **os.environ,
            "DRILL_SAVES_DIR": str(tmp_path),
            "DRILL_CONFIG_DIR": str(tmp_path / "config"),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.parametrize(
    ("args", "screen", "watched"),
    [
        ((), "PickerScreen", NEVER + FULL_LOAD),
        (("dead-rank",), "BriefingScreen", NEVER + FULL_LOAD),
        (("dead-rank", "--backend", "sim"), "BriefingScreen", NEVER + FULL_LOAD),
    ],
    ids=["picker", "briefing", "briefing-sim"],
)
def test_the_first_frame_loads_only_what_it_draws(tmp_path, args, screen, watched):
    shown, loaded = first_frame(tmp_path, watched, *args)
    assert shown == screen
    assert loaded == "-", f"{screen}'s first frame imported {loaded}"


def test_a_courses_first_frame_loads_no_gradebook(tmp_path):
    """`drill play --course PACK` asks the learner's name first; nothing of the gradebook, the
    engine or torch is loaded for that frame."""
    from tests.clikit import run_drill

    assert run_drill("course", "new", str(tmp_path / "c"), "--night", "tutorial").returncode == 0
    pack = tmp_path / "pack"
    assert (
        run_drill("course", "release", "--course", str(tmp_path / "c"), "-o", str(pack)).returncode
        == 0
    )
    shown, loaded = first_frame(tmp_path, NEVER, "--course", str(pack))
    assert shown == "LearnerScreen"
    assert loaded == "-", f"the course's first frame imported {loaded}"
