"""`drill course new DIR`: a course folder that works as it is and reads as its own manual.

It holds course.toml with every key commented, the nights' incident files copied from the
shipped ones (so the course is whole in git, and editing a night never touches the game's own
files), and a .gitignore for what grading writes (the learners' saves, the gradebook, feedback).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from drill.atomic_file import write_text_atomic
from drill.classroom.course_file import COURSE_FILE, CourseError, load_course
from drill.incident.library import shipped_path

DEFAULT_NIGHTS = ("tutorial", "dead-rank", "full-disk")
INCIDENTS = "incidents"
GITIGNORE = """# What `drill course` writes: the learners' saves and grades stay out of git.
submissions/
feedback/
release/
saves/
gradebook.sqlite
"""


def course_text(title: str, nights: list[str]) -> str:
    lines = [
        "# A course of 3am Drill nights. `drill course release` makes the learners' pack from it;",
        "# docs/course.md walks through the rest.",
        f'title = "{title}"',
        "",
        "# What learners play on and what grading replays on: inprocess (the real torch replica)",
        "# or sim (the simulation alone, no torch; fast). A save of another backend is refused.",
        'backend = "inprocess"',
        "",
        "# Which verified attempt counts when a learner hands in several: best, last or first.",
        'attempt = "best"',
    ]
    for number, name in enumerate(nights, start=1):
        lines += ["", "[[nights]]", f'incident = "{INCIDENTS}/{name}.yaml"']
        if number == 1:
            lines += [
                "# seed = N: everyone plays seed N. seeds = [FIRST, LAST]: each learner gets their",
                "# own seed of the range, so neighbours rarely share a night to copy (each seed's",
                "# par and floor is measured once when grading, then cached).",
                "seed = 1",
                "# deadline = 2026-12-14T23:59:00Z   # optional, with its time zone; saves handed in",
                "#                                   # after it are marked late, not refused",
            ]
        else:
            lines.append("seeds = [1, 8]")
    return "\n".join(lines) + "\n"


def new_course(folder: Path, nights: list[str] | None = None, title: str | None = None) -> Path:
    nights = list(nights or DEFAULT_NIGHTS)
    target = folder / COURSE_FILE
    if target.exists():
        raise CourseError(target, 1, "a course is already here; edit it, or pick a new folder")
    sources = []
    for name in nights:
        path = shipped_path(name)
        if path is None:
            raise CourseError(
                target, 1, f"no shipped incident {name!r}; `drill list` shows them all"
            )
        sources.append(path)
    if len(set(nights)) != len(nights):
        raise CourseError(target, 1, "each night is a different incident; a name is given twice")
    (folder / INCIDENTS).mkdir(parents=True, exist_ok=True)
    for name, path in zip(nights, sources, strict=True):
        copy = folder / INCIDENTS / f"{name}.yaml"
        if not copy.exists():
            shutil.copyfile(path, copy)
    name = title or f"{folder.resolve().name}: {len(nights)} nights"
    write_text_atomic(target, course_text(name.replace('"', "'"), nights))
    if not (folder / ".gitignore").exists():
        write_text_atomic(folder / ".gitignore", GITIGNORE)
    load_course(folder)  # what it wrote loads, or this is a bug worth hearing about
    return target
