"""Helpers for driving the TUI headless with Pilot: wait for the engine worker, type lines."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

from drill.incident.library import resolve_incident
from drill.tui.app import DrillApp

SIZE = (120, 40)


def sync(test):
    """Run an async test body with asyncio.run (no pytest async plugin needed)."""

    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))

    return wrapper


def make_app(incident: str | None = None, *, tmp_path: Path | None = None, **kwargs) -> DrillApp:
    """The app as tests want it: no torch, a paused clock, no blinking cursor, saves in tmp."""
    loaded = resolve_incident(incident) if incident else None
    kwargs.setdefault("backend", "sim")
    kwargs.setdefault("paused", True)
    kwargs.setdefault("cursor_blink", False)
    if tmp_path is not None:
        kwargs.setdefault("saves_dir", tmp_path)
        kwargs.setdefault("config_dir", tmp_path / "config")
        if incident:
            kwargs.setdefault("save_path", tmp_path / f"{incident}.jsonl")
    return DrillApp(loaded=loaded, **kwargs)


class DriverError(AssertionError):
    """The engine worker reported an error: a test that waits on the app fails with it."""


def check_driver(app) -> None:
    """Fail loudly, with the engine's own words, when the night's worker broke. A test that
    means to see an error reads `driver.error` or `driver.failure` itself, with `loud=False`."""
    driver = app.driver
    if driver is None:
        return
    if driver.error:
        raise DriverError(f"the session could not start: {driver.error}")
    if driver.failed:
        raise DriverError(f"an engine call failed:\n{driver.failure}")


async def settle(pilot, *, timeout: float = 30.0, loud: bool = True) -> None:
    """Until the engine worker has nothing queued or running, and the screen caught up."""
    app = pilot.app
    waited = 0.0
    while True:
        await pilot.pause(0.01)
        waited += 0.01
        driver = app.driver
        if loud:
            check_driver(app)
        if driver is None or driver.error or driver.failed:
            break
        if driver.ready and driver.idle:
            break
        assert waited < timeout, "timed out waiting for the engine worker"
    await pilot.pause()
    await pilot.pause()


async def until(pilot, predicate, *, timeout: float = 30.0, loud: bool = True) -> None:
    waited = 0.0
    while not predicate():
        if loud:
            check_driver(pilot.app)
        assert waited < timeout, "timed out waiting on the app"
        await pilot.pause(0.02)
        waited += 0.02
    await pilot.pause()


async def type_line(pilot, text: str, *, keys: bool = False) -> None:
    """Put a line on the prompt, press Enter, wait for the engine. By default the text arrives
    as a terminal paste (one event; Pilot takes tens of milliseconds per key on a small
    machine); `keys=True` presses every key."""
    if keys:
        await pilot.press(*text)
    else:
        from textual import events

        from drill.tui.widgets.command_line import CommandLine

        pilot.app.screen.query_one(CommandLine).post_message(events.Paste(text))
        await pilot.pause()
    await pilot.press("enter")
    await settle(pilot)


def screen_name(app) -> str:
    return type(app.screen).__name__


def static_text(app, selector: str) -> str:
    from textual.widgets import Static

    widget = app.screen.query_one(selector, Static)
    return str(widget.render())


def log_text(app) -> str:
    from textual.widgets import RichLog

    log = app.screen.query_one("#log", RichLog)
    return "\n".join(strip.text for strip in log.lines)


async def to_night(pilot) -> None:
    """From the briefing (and the plan, if any) to the live night."""
    app = pilot.app
    await until(pilot, lambda: app.driver is not None and app.driver.warm)
    await pilot.press("enter")
    await pilot.pause()
    if screen_name(app) == "PlanScreen":
        await pilot.press("ctrl+s")
        await pilot.pause()
    await until(pilot, lambda: screen_name(app) == "NightScreen")
    await settle(pilot)
