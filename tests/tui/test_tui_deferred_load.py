"""`drill play INCIDENT` draws the briefing from the file's header and loads it fully in the
warm-up (issue 24: the full load's imports alone pushed the briefing past a second on a busy
machine). What must still hold: bad input is the loader's own line and exit 2, a file whose
header does not read plainly is loaded before any screen, and Enter pressed before the load is
done starts the night once it is."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import time
from pathlib import Path

import pytest

from drill.cli import build_parser
from drill.commands.play import app_options
from drill.incident.errors import IncidentError
from drill.incident.header import read_header
from drill.incident.library import shipped_path
from drill.incident.loader import LoadedIncident, load_incident
from drill.replica_choice import ReplicaChoiceError
from drill.tui.app import DrillApp
from drill.tui.deferred_incident import DeferredIncident
from tests.tui.test_tui_terminal import REPO, Tmux
from tests.tui.tuikit import SIZE, sync


def options(tmp_path: Path, *args: str) -> dict:
    parsed = build_parser().parse_args(["play", *args, "--backend", "sim", "--paused"])
    found = app_options(parsed, defer_load=True)
    return found | {"saves_dir": tmp_path, "config_dir": tmp_path / "config", "cursor_blink": False}


def broken_body(tmp_path: Path) -> Path:
    """dead-rank with a plain header and a fault kind no drill knows, far below it."""
    text = shipped_path("dead-rank").read_text()
    assert "kind: gpu_xid" in text
    path = tmp_path / "broken-body.yaml"
    path.write_text(text.replace("kind: gpu_xid", "kind: gpu_xid_typo", 1))
    assert read_header(path) is not None  # the header alone reads plainly
    return path


async def wait_until(pilot, done, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.02)


def test_a_named_incident_with_a_plain_header_is_handed_over_unloaded(tmp_path):
    found = options(tmp_path, "dead-rank")["loaded"]
    assert isinstance(found, DeferredIncident)
    assert found.incident.title == load_incident(shipped_path("dead-rank")).incident.title


def test_serve_and_every_other_caller_still_load_before_the_screen(tmp_path):
    parsed = build_parser().parse_args(["play", "dead-rank", "--backend", "sim"])
    assert isinstance(app_options(parsed)["loaded"], LoadedIncident)


def test_a_file_whose_header_does_not_read_plainly_is_refused_before_any_screen(tmp_path):
    path = tmp_path / "no-header.yaml"
    path.write_text("schema: 2\nid: [not, a, name]\n")
    with pytest.raises(IncidentError):
        options(tmp_path, str(path))


def test_a_mistyped_replica_is_one_line_before_any_screen(tmp_path):
    with pytest.raises(ReplicaChoiceError, match="--replica"):
        options(tmp_path, "dead-rank", "--replica", "no-such-replica")


@sync
async def test_the_warm_up_loads_the_file_and_the_briefing_keeps_its_text(tmp_path):
    app = DrillApp(**options(tmp_path, "dead-rank"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.driver is not None and app.driver.warm)
        spec = app.driver.spec
        assert isinstance(spec.loaded, LoadedIncident)
        assert spec.incident.id == "dead-rank" and spec.seed == spec.incident.seeds[0]
        assert app.screen.spec is spec  # the briefing now holds the loaded night
        assert "Tonight: A GPU falls off the bus" in str(
            app.screen.query_one("#situation").render()
        )


@sync
async def test_enter_before_the_load_starts_the_night_once_it_is_loaded(tmp_path):
    app = DrillApp(**options(tmp_path, "dead-rank"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")  # the first frame: the load has not run yet
        await wait_until(pilot, lambda: type(app.screen).__name__ == "NightScreen")
        await wait_until(pilot, lambda: app.driver.ready)
        assert app.driver.spec.incident.id == "dead-rank"


@sync
async def test_enter_before_the_load_on_a_night_with_a_plan_opens_the_plan(tmp_path):
    app = DrillApp(**options(tmp_path, "full-disk"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "PlanScreen")


@sync
async def test_a_body_the_full_load_refuses_ends_the_app_with_the_loaders_exception(tmp_path):
    path = broken_body(tmp_path)
    with pytest.raises(IncidentError) as expected:
        load_incident(path)
    app = DrillApp(**options(tmp_path, str(path)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.refused is not None)
        await pilot.pause(0.1)
    assert str(app.refused) == str(expected.value)
    assert app.return_code == 2
    assert not list(tmp_path.glob("*.jsonl"))  # no night started, so nothing was saved


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_drill_play_of_a_broken_body_prints_the_loaders_line_and_exits_2(tmp_path):
    """The real command in a real terminal: the screen goes, the line stays, exit 2. (Textual
    draws on stderr, so the line is read off the terminal once the app has left it.)"""
    path = broken_body(tmp_path)
    command = (
        f"cd {shlex.quote(str(REPO))} && DRILL_SAVES_DIR={shlex.quote(str(tmp_path))}"
        f" {shlex.quote(sys.executable)} -m drill play {shlex.quote(str(path))} --backend sim;"
        " echo EXIT=$?; sleep 60"
    )
    tmux = Tmux(f"drill-deferred-{os.getpid()}")
    try:
        tmux("new-session", "-d", "-s", "drill", "-x", "200", "-y", "30", command)
        tmux.wait_for("EXIT=", timeout=60)
        shown = tmux("capture-pane", "-p", "-J", "-t", "drill")  # -J: wrapped lines joined
    finally:
        tmux("kill-server")
    with pytest.raises(IncidentError) as expected:
        load_incident(path)
    lines = [line.rstrip() for line in shown.splitlines() if line.strip()]
    assert lines[-2:] == [f"drill: {expected.value}", "EXIT=2"], shown
