"""The game in a real terminal (tmux), and the picker's first frame without torch."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from drill.saves import read_save

REPO = Path(__file__).resolve().parents[2]

FIRST_FRAME = textwrap.dedent(
    """
    import asyncio, sys
    from drill.tui.app import DrillApp

    async def main():
        app = DrillApp(backend="inprocess")  # the default backend: torch still waits
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            print(type(app.screen).__name__, "torch" in sys.modules, "drill.engine.drill" in sys.modules)

    asyncio.run(main())
    """
)


def test_picker_first_frame_has_not_imported_torch_or_the_engine(tmp_path):
    """The picker only lists nights: torch and the engine load when one starts."""
    done = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME],
        cwd=REPO,
        env={**os.environ, "DRILL_SAVES_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["PickerScreen", "False", "False"]


class Tmux:
    """One private tmux server (its own socket), killed at the end."""

    def __init__(self, name: str) -> None:
        self.socket = name

    def __call__(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        return done.stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "drill")

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the screen shows:\n{shown}")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_drill_play_in_a_real_terminal(tmp_path):
    save = tmp_path / "night.jsonl"
    code = tmp_path / "exit-code"
    command = (
        f"cd {shlex.quote(str(REPO))} && DRILL_SAVES_DIR={shlex.quote(str(tmp_path))}"
        f" {shlex.quote(sys.executable)} -m drill play tutorial --backend sim --save {shlex.quote(str(save))};"
        f" echo $? > {shlex.quote(str(code))}"
    )
    tmux = Tmux(f"drill-test-{os.getpid()}")
    try:
        tmux("new-session", "-d", "-s", "drill", "-x", "100", "-y", "30", command)
        tmux.wait_for("Tonight: Tutorial: your first page")
        tmux.wait_for("Ready. Press Enter")
        tmux("send-keys", "-t", "drill", "Enter")
        tmux.wait_for("type an action")
        tmux("send-keys", "-t", "drill", "status", "Enter")
        tmux.wait_for("GPUs in use")
        tmux("send-keys", "-t", "drill", "C-q")
        tmux.wait_for("Quit 3am Drill?")
        tmux("send-keys", "-t", "drill", "y")
        deadline = time.monotonic() + 20
        while not (code.exists() and code.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert code.read_text().strip() == "0"
    finally:
        tmux("kill-server")
    assert "status" in [a.text for a in read_save(save).actions]
