"""The class report's Textual screen, driven with Pilot: arrows move over learners and nights,
Enter opens the learner's night (timeline, points, or the refusal), left and right move through
their nights, Escape comes back to the same cell; 80x24 holds ten nights; hostile words stay
words."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable, Static

from drill.classroom.heat import heat_of
from drill.classroom.results import ClassResults
from drill.tui.class_report_app import ClassReportApp
from drill.tui.screens.class_report import ClassReportScreen, LearnerNightScreen, short_cell
from tests.classroom.class_sample import (
    FIRST_NAMES,
    MISSING_CELLS,
    NIGHTS,
    REFUSED_CELLS,
    SAMPLE,
    sample_class,
)
from tests.tui.tuikit import sync


def _app(results: ClassResults = SAMPLE, tmp_path=None) -> ClassReportApp:
    return ClassReportApp(results, config_dir=tmp_path)


def _text(screen, selector: str) -> str:
    rendered = screen.query_one(selector, Static).render()
    return rendered.plain if isinstance(rendered, Text) else str(rendered)


def _page(screen) -> str:
    return "\n".join(
        _text(screen, f"#learner-{part}")
        for part in ("title", "nights", "lost-most", "score", "components", "timeline")
    )


@sync
async def test_the_table_is_learners_by_night_coloured_by_score(tmp_path):
    app = _app(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert isinstance(app.screen, ClassReportScreen)
        assert table.row_count == len(SAMPLE.learners)
        assert len(table.columns) == 1 + len(NIGHTS) + 1  # learner, nights, lost most
        assert table.cursor_coordinate == (0, 1)  # on the first learner's first night
        for row, learner in enumerate(SAMPLE.learners):
            assert table.get_cell_at((row, 0)).plain.strip() == learner
            for column, night in enumerate(NIGHTS, start=1):
                entry = SAMPLE.cell(learner, night)
                cell = table.get_cell_at((row, column))
                assert cell.plain.strip() == short_cell(entry)
                heat = heat_of(entry)
                if heat.key != "missing":
                    assert heat.background in str(cell.style)


@sync
async def test_enter_opens_the_night_under_the_cursor_and_escape_comes_back(tmp_path):
    app = _app(tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down", "right")  # Carmen Diaz, full-disk
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LearnerNightScreen)
        entry = SAMPLE.cell(FIRST_NAMES[2], "full-disk")
        assert entry is not None and entry.verified
        page = _page(screen)
        assert page.startswith(f"{FIRST_NAMES[2]}: night 2 of 3, full-disk")
        assert f"{entry.total:.1f} of 100, {entry.grade}" in page
        for line in entry.timeline:
            assert line.text in page
        assert entry.save_name in page
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ClassReportScreen)
        assert app.screen.query_one(DataTable).cursor_coordinate == (2, 2)  # where it was


@sync
async def test_a_smaller_terminal_keeps_the_cursor_and_drops_the_lost_most_column(tmp_path):
    app = _app(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=5, column=2)
        assert len(table.columns) == 1 + len(NIGHTS) + 1
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert len(table.columns) == 1 + len(NIGHTS)  # no room for lost most at 80
        assert table.cursor_coordinate == (5, 2)


@sync
async def test_left_and_right_walk_the_learners_nights(tmp_path):
    app = _app(tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        seen = []
        for _ in NIGHTS:
            seen.append(_text(screen, "#learner-title"))
            await pilot.press("right")
            await pilot.pause()
        assert seen == [
            f"{FIRST_NAMES[0]}: night {i} of 3, {night}" for i, night in enumerate(NIGHTS, 1)
        ]
        assert _text(screen, "#learner-title") == seen[0]  # round to the first again
        await pilot.press("left")
        await pilot.pause()
        assert _text(screen, "#learner-title") == seen[-1]


@sync
async def test_a_refused_night_shows_its_line_field_and_reason(tmp_path):
    learner, night = REFUSED_CELLS[0]
    app = _app(tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=learner, column=night + 1)
        await pilot.press("enter")
        await pilot.pause()
        entry = SAMPLE.cell(FIRST_NAMES[learner], NIGHTS[night])
        assert entry is not None and entry.refusal is not None
        page = _page(app.screen)
        assert f"line {entry.refusal.line}, field {entry.refusal.field}." in page
        assert entry.refusal.reason in page
        assert "Timeline" not in page and "Points per component" not in page


@sync
async def test_a_missing_night_says_so(tmp_path):
    learner, night = MISSING_CELLS[0]
    app = _app(tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.query_one(DataTable).move_cursor(row=learner, column=night + 1)
        await pilot.press("enter")
        await pilot.pause()
        assert "Nothing handed in for this night." in _page(app.screen)


@sync
async def test_the_first_wrong_act_is_marked_in_the_timeline(tmp_path):
    row = next(
        i
        for i, n in enumerate(FIRST_NAMES)
        if (e := SAMPLE.cell(n, NIGHTS[0])) and e.first_wrong_act
    )
    entry = SAMPLE.cell(FIRST_NAMES[row], NIGHTS[0])
    assert entry is not None and entry.first_wrong_act
    app = _app(tmp_path=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.screen.query_one(DataTable).move_cursor(row=row, column=1)
        await pilot.press("enter")
        await pilot.pause()
        timeline = _text(app.screen, "#learner-timeline")
        assert timeline.splitlines()[2:] == [
            f"  {t.clock}  {t.kind:<7}{t.text}"
            + ("  <- first wrong act" if t.text == entry.first_wrong_act else "")
            for t in entry.timeline
        ]  # a blank line and a heading, then one line per timeline line
        marked = [line for line in timeline.splitlines() if "<- first wrong act" in line]
        assert len(marked) == 1 and entry.first_wrong_act in marked[0]


@sync
async def test_escape_on_the_class_leaves_the_app(tmp_path):
    app = _app(tmp_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code == 0


@sync
async def test_ten_nights_fit_80_columns(tmp_path):
    """Forty learners by ten nights at 80x24: every night's column on screen, numbered."""
    nights = tuple(f"night-{i:02d}-of-the-course" for i in range(1, 11))
    base = sample_class()
    graded = tuple(
        g.__class__(**{**g.__dict__, "night": nights[NIGHTS.index(g.night) + 3 * k]})
        for k in range(3)
        for g in base.graded
    )
    results = ClassResults(base.title, nights, base.learners, graded)
    app = _app(results, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        widths = [column.get_render_width(table) for column in table.columns.values()]
        assert len(widths) == 11 and sum(widths) <= 80 - 2 - 2  # padding, scrollbar
        labels = [column.label.plain.strip() for column in list(table.columns.values())[1:]]
        assert labels == [str(i) for i in range(1, 11)]
        assert "10 night-10-of-the-course" in _text(app.screen, "#class-nights")


@sync
async def test_hostile_names_and_actions_stay_plain_words(tmp_path):
    hostile = ("[b]Ann[/b]", "Eve\x1b[2J\x07", "<script>x</script>")
    app = _app(sample_class(hostile + FIRST_NAMES[3:]), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        assert table.get_cell_at((0, 0)).plain.strip() == "[b]Ann[/b]"
        assert table.get_cell_at((1, 0)).plain.strip() == "Eve\u241b[2J\u2407"
        app.screen.query_one(DataTable).move_cursor(row=1, column=1)
        await pilot.press("enter")
        await pilot.pause()
        assert "\x1b" not in _page(app.screen) and "Eve\u241b[2J" in _page(app.screen)
