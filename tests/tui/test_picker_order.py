"""The picker shows the shipped library as a learning path: from the tutorial through easy and
medium nights to the hard ones, never a harder night before an easier one."""

from __future__ import annotations

from pathlib import Path

from drill.tui.screens.picker import load_entries

LEVELS = ["tutorial", "easy", "medium", "hard"]


def test_the_picker_orders_the_library_from_easy_to_hard(tmp_path):
    entries, problems = load_entries(tmp_path)
    assert not problems
    shown = [(e.loaded.incident.id, e.loaded.incident.difficulty) for e in entries]
    levels = [LEVELS.index(difficulty) for _, difficulty in shown]
    assert levels == sorted(levels), (
        f"the picker shows a harder night before an easier one: {shown}"
    )
    assert shown[0] == ("tutorial", "tutorial")
    assert {d for _, d in shown} == set(LEVELS), f"the library should span every level: {shown}"


def test_the_readme_lists_every_shipped_night_in_the_pickers_order(tmp_path):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Shipped incidents", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][2:]
    listed = [row.split("|")[1].strip() for row in rows]
    entries, _ = load_entries(tmp_path)
    assert listed == [e.loaded.incident.id for e in entries]
