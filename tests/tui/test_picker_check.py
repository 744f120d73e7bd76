"""The picker draws from the incidents' headers, then loads every file fully: a file that does
not load ends up off the list and on the "Not listed" line with the loader's own first line,
exactly as if the picker had loaded everything before drawing."""

from __future__ import annotations

import shutil

from drill.incident.library import shipped_path
from drill.tui.app import DrillApp
from drill.tui.screens.picker import PickerScreen, load_entries
from tests.tui.tuikit import screen_name, static_text, sync, until


class Listing(DrillApp):
    """The app with its picker listing these files instead of the shipped ones."""

    def __init__(self, files, **kwargs) -> None:
        super().__init__(**kwargs)
        self.files = files

    def on_mount(self, event) -> None:
        event.prevent_default()  # not the app's own picker of the shipped files
        self.push_screen(PickerScreen(self.saves_dir, self.files))


def incident_files(folder):
    good = folder / "dead-rank.yaml"
    shutil.copy(shipped_path("dead-rank"), good)
    text = good.read_text(encoding="utf-8")
    # The header reads fine; only the full load finds the unknown fault kind.
    deep = folder / "deep-break.yaml"
    deep.write_text(
        text.replace("id: dead-rank", "id: deep-break").replace("kind: gpu_xid", "kind: gpu_xd"),
        encoding="utf-8",
    )
    # No title: the header read gives up and the full load says why, before the first frame.
    shallow = folder / "no-title.yaml"
    shallow.write_text(
        "\n".join(
            line.replace("id: dead-rank", "id: no-title")
            for line in text.splitlines()
            if not line.startswith("title:")
        ),
        encoding="utf-8",
    )
    return [deep, good, shallow]


@sync
async def test_a_file_that_does_not_load_is_flagged_as_the_full_load_flags_it(tmp_path):
    files = incident_files(tmp_path)
    expected, problems = load_entries(tmp_path, files)
    assert [e.header.id for e in expected] == ["dead-rank"] and len(problems) == 2
    app = Listing(files, backend="sim", saves_dir=tmp_path, config_dir=tmp_path / "config")
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: screen_name(app) == "PickerScreen")
        picker = app.screen
        await until(pilot, lambda: picker.checked)
        assert [e.header.id for e in picker.entries] == ["dead-rank"]
        assert picker.query_one("#incidents").row_count == 1
        assert sorted(picker.problems) == sorted(problems)
        shown = static_text(app, "#picker-problems")
        assert shown.startswith("Not listed: ")
        for problem in problems:
            assert problem in shown
        await pilot.press("enter")
        await until(pilot, lambda: screen_name(app) == "BriefingScreen")
        assert app.driver.spec.incident.id == "dead-rank"


@sync
async def test_a_check_that_ends_after_the_learner_left_the_picker_changes_nothing(tmp_path):
    """Enter before the full check ends: its answer reaches a picker no longer on screen."""
    files = incident_files(tmp_path)
    app = Listing(files, backend="sim", saves_dir=tmp_path, config_dir=tmp_path / "config")
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: screen_name(app) == "PickerScreen")
        picker = app.screen
        await until(pilot, lambda: picker.checked)
        await pilot.press("enter")
        await until(pilot, lambda: screen_name(app) == "BriefingScreen")
        # The worker's answer, as it would arrive late: about a file still listed.
        picker.checked = False
        picker._checked([(picker.entries[0], "late.yaml:1:1: a late problem")])
        await pilot.pause()
        assert screen_name(app) == "BriefingScreen"
        assert app.return_code is None  # the app did not stop on an error
