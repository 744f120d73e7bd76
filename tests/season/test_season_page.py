"""The season as HTML: the curve and bars as inline SVG, and its section in the night report."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from drill.cli import main
from drill.incident.loader import load_incident
from drill.season.figures import play_season
from drill.season.html import bars_svg, curve_svg, season_page

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SMALL = HERE / "small-fleet.yaml"


@pytest.fixture(scope="module")
def figures():
    return play_season(load_incident(SMALL).incident, 1)


def test_the_curve_is_svg_with_a_tick_per_interruption(figures):
    svg = ET.fromstring(curve_svg(figures))
    ns = "{http://www.w3.org/2000/svg}"
    (line,) = svg.iter(f"{ns}polyline")
    assert len(line.get("points").split()) == len(figures.curve)
    ticks = [el for el in svg.iter(f"{ns}line") if el.find(f"{ns}title") is not None]
    ticks = [t for t in ticks if "lost" in t.find(f"{ns}title").text]
    assert len(ticks) == len(figures.interruptions) > 0


def test_the_bars_name_every_cause_and_the_checkpoint_writes(figures):
    svg = bars_svg(figures)
    ET.fromstring(svg)
    for row in figures.causes:
        assert row.text in svg
    assert "checkpoint writes" in svg


def test_the_page_stands_alone(figures, tmp_path):
    page = season_page(load_incident(SMALL).incident, figures)
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert not re.search(r"(src|href)=\"https?:", page), "no external assets"
    assert "\u2014" not in page
    out = tmp_path / "season.html"
    assert main(["season", str(SMALL), "--report", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == page


@pytest.mark.slow
def test_the_night_report_of_a_fleet_night_carries_its_season(tmp_path):
    out = tmp_path / "night.html"
    save = REPO / "tests" / "golden" / "fleet-season--reference.jsonl"
    assert main(["report", str(save), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert 'id="season"' in page and "Effective training time" in page
    assert "checkpoint every 20 steps, keep 3" in page  # the night's own cadence
