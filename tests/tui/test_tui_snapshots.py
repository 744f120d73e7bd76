"""SVG snapshots of each screen at a fixed seed and sim time, backend sim (no torch), no cursor
blink. Regenerate after a deliberate change with `pytest tests/tui --snapshot-update` and look at
the SVGs under tests/tui/__snapshots__ before committing them."""

from __future__ import annotations

from drill.saves import SaveWriter
from tests.tui.tuikit import make_app, screen_name, settle, to_night, type_line, until

NIGHT = ["wait 31m", "ack all", "status llm-pretrain", "health gpu-a-2"]
REFERENCE = [
    "wait 31m",
    "ack all",
    "status llm-pretrain",
    "health gpu-a-2",
    "drain gpu-a-2",
    "restart llm-pretrain --from latest --exclude gpu-a-2",
    "swap gpu-a-2",
    "note GPU 2 on gpu-a-2 fell off the bus (Xid 79); drained, restarted without it, spare in",
]


def _finished_save(folder, incident: str, total: float) -> None:
    writer = SaveWriter.start(
        folder / f"{incident}-old.jsonl",
        incident_id=incident,
        incident_sha256="0" * 64,
        incident_path=f"incidents/{incident}.yaml",
        seed=1,
        backend="sim",
    )
    writer.score({"total": total, "grade": "B", "components": []}, 3600.0)
    writer.close()


def test_picker(snap_compare, tmp_path):
    _finished_save(tmp_path, "dead-rank", 87.5)
    app = make_app(tmp_path=tmp_path)

    async def ready(pilot):
        await until(pilot, lambda: screen_name(app) == "PickerScreen")

    assert snap_compare(app, terminal_size=(100, 24), run_before=ready)


def test_picker_80x24(snap_compare, tmp_path):
    """The smallest terminal the game supports: titles cut, Level, Time and Your best shown."""
    _finished_save(tmp_path, "dead-rank", 87.5)
    app = make_app(tmp_path=tmp_path)

    async def ready(pilot):
        await until(pilot, lambda: screen_name(app) == "PickerScreen")

    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)


def test_briefing_80x24(snap_compare, tmp_path):
    """The briefing at 80x24: the start of the text, the Start button and the PageDown key."""
    app = make_app("dead-rank", tmp_path=tmp_path)

    async def ready(pilot):
        await until(pilot, lambda: app.driver is not None and app.driver.warm)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)


def test_pre_shift_plan(snap_compare, tmp_path):
    app = make_app("full-disk", tmp_path=tmp_path)

    async def to_plan(pilot):
        await until(pilot, lambda: app.driver.warm)
        await pilot.press("enter")
        await until(pilot, lambda: screen_name(app) == "PlanScreen")

    assert snap_compare(app, terminal_size=(100, 36), run_before=to_plan)


async def _night(pilot, lines=NIGHT):
    await to_night(pilot)
    for line in lines:
        await type_line(pilot, line)


def test_night_big_terminal(snap_compare, tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    assert snap_compare(app, terminal_size=(200, 60), run_before=_night)


def test_night_small_terminal_map_tab(snap_compare, tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)

    async def on_map(pilot):
        await _night(pilot)
        await pilot.click("#tab-map")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=on_map)


def test_help(snap_compare, tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)

    async def help_open(pilot):
        await to_night(pilot)
        await pilot.press("f1")
        await until(pilot, lambda: screen_name(app) == "HelpScreen")

    assert snap_compare(app, terminal_size=(100, 30), run_before=help_open)


def test_debrief(snap_compare, tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)

    async def debrief(pilot):
        await _night(pilot, REFERENCE)
        await type_line(pilot, "debrief")
        await pilot.press("y")
        await until(
            pilot, lambda: screen_name(app) == "DebriefScreen" and app.screen.result is not None
        )
        await settle(pilot)

    assert snap_compare(app, terminal_size=(120, 50), run_before=debrief)


def test_fleet_map_rollup(snap_compare):
    """4,096 nodes do not fit as cells: a line per island, your job's nodes, the sick ones."""
    from textual.app import App

    from drill.tui.widgets.cluster_map import ClusterMap
    from tests.tui.fleet import fleet_snapshot

    class MapOnly(App):
        def compose(self):
            yield ClusterMap(id="map")

        def on_mount(self):
            self.query_one(ClusterMap).show(fleet_snapshot())

    assert snap_compare(MapOnly(), terminal_size=(160, 40))
