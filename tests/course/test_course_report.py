"""`drill course report` on a graded class: the text, the HTML page (--html) and the screen
(--tui) all read the gradebook through class_results, so they show the same class."""

from __future__ import annotations

import html
import subprocess

from textual.widgets import DataTable

from drill.classroom.class_page import class_page_html
from drill.classroom.gradebook.query import class_results
from drill.tui.class_report_app import ClassReportApp
from drill.tui.screens.class_report import ClassReportScreen, LearnerNightScreen
from tests.chromiumkit import CHROMIUM_FLAGS, chromium
from tests.clikit import run_drill
from tests.course.classkit import FIRST
from tests.course.test_class_grading import on_sqlite  # noqa: F401 (the graded class)
from tests.tui.tuikit import sync


def test_the_html_page_is_the_gradebooks_class(kit, on_sqlite, tmp_path):  # noqa: F811
    course = on_sqlite[0]
    done = run_drill("course", "report", "--html", "--course", str(course))
    assert done.returncode == 0, done.stderr
    page = course / "class-report.html"
    assert done.stdout.strip() == f"Wrote {page}."
    text = page.read_text(encoding="utf-8")
    assert text == class_page_html(class_results(course))
    for learner in FIRST:
        assert html.escape(learner) in text
    elsewhere = tmp_path / "mine.html"
    again = run_drill("course", "report", "--course", str(course), "--html", str(elsewhere))
    assert again.returncode == 0 and elsewhere.read_text(encoding="utf-8") == text


def test_the_text_report_and_the_page_name_the_same_refusals(kit, on_sqlite):  # noqa: F811
    course = on_sqlite[0]
    text = run_drill("course", "report", "--course", str(course)).stdout
    results = class_results(course)
    for refusal in results.refused:
        assert refusal.save_name in text


def test_the_real_class_page_renders_in_chromium(kit, on_sqlite, tmp_path):  # noqa: F811
    course = on_sqlite[0]
    assert run_drill("course", "report", "--html", "--course", str(course)).returncode == 0
    shot = tmp_path / "class.png"
    subprocess.run(
        [
            chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={shot}",
            "--window-size=1200,900",
            (course / "class-report.html").as_uri(),
        ],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert shot.exists() and shot.stat().st_size > 10_000


@sync
async def test_the_screen_opens_a_real_learners_night(kit, on_sqlite, tmp_path):  # noqa: F811
    results = class_results(on_sqlite[0])
    app = ClassReportApp(results, config_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert table.row_count == len(results.learners)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, LearnerNightScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ClassReportScreen)
