"""The class report's page in headless Chromium: every section is in the rendered DOM, and a
screenshot shows the heat table in its colours, row by row as the class's cells say.

Chromium comes from Debian's package (.ci/run installs it). Missing in CI, the test fails;
missing elsewhere, it is skipped (tests/chromiumkit.py)."""

from __future__ import annotations

import subprocess
from collections import Counter

import pytest

from drill.classroom.class_page import write_class_page
from drill.classroom.heat import GRADE_HEAT, HEATS, MISSING, REFUSED, heat_of
from tests.chromiumkit import CHROMIUM_FLAGS, chromium
from tests.classroom.class_sample import SAMPLE

WIDTH, HEIGHT = 1200, 1400


def _rgb(colour: str) -> tuple[int, int, int]:
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))


def _pixels(image) -> Counter:
    """How many pixels of each colour."""
    rgb = image.convert("RGB")
    return Counter({colour: count for count, colour in rgb.getcolors(rgb.width * rgb.height)})


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The page, its DOM as Chromium built it, and a screenshot of its top."""
    browser = chromium()
    folder = tmp_path_factory.mktemp("class-page")
    page = folder / "class.html"
    write_class_page(SAMPLE, page)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [browser, *CHROMIUM_FLAGS, f"--user-data-dir={folder / 'profile'}", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    dom = run("--dump-dom", page.as_uri()).stdout
    shot = folder / "class.png"
    run(
        f"--window-size={WIDTH},{HEIGHT}",
        "--hide-scrollbars",
        f"--screenshot={shot}",
        page.as_uri(),
    )
    assert shot.exists(), "Chromium wrote no screenshot"
    return dom, shot


def test_chromium_builds_every_section(rendered):
    dom, _ = rendered
    for section in ("heat", "distribution", "components", "wrong-acts", "refused", "learners"):
        assert f'id="{section}"' in dom, section
    assert dom.count('class="heat h-') == len(SAMPLE.learners) * len(SAMPLE.nights)
    assert dom.count('<rect class="bar"') == 10 * len(SAMPLE.nights)
    assert dom.count("<details ") == len(SAMPLE.learners)


def test_the_screenshot_is_the_page_not_a_blank(rendered):
    from PIL import Image

    _, shot = rendered
    assert shot.stat().st_size > 20_000
    with Image.open(shot) as image:
        assert image.size == (WIDTH, HEIGHT)
        pixels = _pixels(image)
    assert len(pixels) > 200  # text, charts and cells, not one flat colour
    white = pixels[(255, 255, 255)] / (WIDTH * HEIGHT)
    assert 0.2 < white < 0.95, white


def test_every_heat_colour_is_painted(rendered):
    from PIL import Image

    _, shot = rendered
    with Image.open(shot) as image:
        pixels = _pixels(image)
    for heat in HEATS:
        if heat is MISSING:
            continue  # white, like the page
        assert pixels[_rgb(heat.background)] > 300, heat.key


def test_the_first_rows_of_the_heat_table_are_coloured_as_their_cells_say(rendered):
    """Down the screenshot, each table row's runs of heat colour, left to right, are the bands
    of that learner's nights: the right cell in the right place, not only the right colours."""
    from PIL import Image

    _, shot = rendered
    colours = {_rgb(h.background): h.key for h in GRADE_HEAT.values()}
    grey = _rgb(REFUSED.background)

    def refused(pixel: tuple[int, int, int]) -> bool:
        """The refused cell's grey, or its hatch: the grey lightened by up to the stripes'
        18% white, antialiased edges included."""
        share = (pixel[0] - grey[0]) / (255 - grey[0])
        return -0.01 <= share <= 0.2 and all(
            abs(p - (g + share * (255 - g))) <= 3 for p, g in zip(pixel, grey, strict=True)
        )

    with Image.open(shot) as image:
        rgb = image.convert("RGB")
        rows = []
        in_row = False  # rows are apart by a white border line with no heat colour on it
        for y in range(HEIGHT):
            runs: list[list] = []
            for x in range(WIDTH):
                pixel = rgb.getpixel((x, y))
                key = colours.get(pixel) or ("refused" if refused(pixel) else None)
                if key is None:
                    continue
                if runs and runs[-1][0] == key and runs[-1][2] == x - 1:
                    runs[-1][2] = x
                else:
                    runs.append([key, x, x])
            if not runs:
                in_row = False
                continue
            # A line above the cells' words: one unbroken run per cell, each a cell wide
            # (the legend's chips are more, and narrower).
            whole = all(end - start > 40 for _, start, end in runs)
            if whole and not in_row and len(runs) <= len(SAMPLE.nights):
                rows.append(tuple(key for key, _, _ in runs))
                in_row = True
    expected = []
    for learner in SAMPLE.learners:
        keys = tuple(heat_of(SAMPLE.cell(learner, n)).key for n in SAMPLE.nights)
        expected.append(tuple(k for k in keys if k != "missing"))
    assert len(rows) >= 20, rows  # most of the class is on the first screen
    assert rows[:20] == expected[:20]
