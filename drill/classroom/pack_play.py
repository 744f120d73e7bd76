"""Playing a course's pack: `drill play --course PACK` (and `drill serve --course PACK`).

The pack is the folder `drill course release` wrote: its course.toml, the nights' incident
files, and saves/, where every night played from it is saved. Each save carries the learner's
name in its header, so it says whose it is however the saves come back to the instructor: a
folder per learner, a zip, or one saves folder that every browser tab of `drill serve` wrote
into. The name is asked once and kept in the pack (learner.toml), except under `drill serve`,
where one pack serves many learners and every tab asks.

Only the standard library and the course file's loader here: the TUI reads this before its first
frame.
"""

from __future__ import annotations

import contextlib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from drill.atomic_file import write_text_atomic
from drill.classroom.course_file import Course, Night
from drill.errors import UserError
from drill.saves.reader import MAX_LEARNER

LEARNER_FILE = "learner.toml"
SAVES = "saves"


def learner_problem(name: str) -> str | None:
    """Why a typed name cannot be a learner's name in a save, or None when it can."""
    if not name.strip():
        return (
            "Type your name: it goes into every save, so your instructor knows the night is yours."
        )
    if len(name) > MAX_LEARNER:
        return f"Keep it to {MAX_LEARNER} characters."
    if not name.isprintable():
        return "Use letters, digits, spaces and punctuation only."
    return None


def clean_name(name: str) -> str:
    return " ".join(name.split())


def learner_option(name: str) -> str:
    """`--learner NAME` as it goes into the save, or a UserError that names the option."""
    problem = learner_problem(name)
    if problem:
        raise UserError(f"--learner: {problem}")
    return clean_name(name)


@dataclass
class CoursePlay:
    """A pack being played: its course, and whose nights these are (None until asked)."""

    course: Course
    learner: str | None = None
    remember: bool = True  # keep the name in the pack once given; not under drill serve

    @property
    def folder(self) -> Path:
        return self.course.folder

    @property
    def saves_dir(self) -> Path:
        return self.folder / SAVES

    @property
    def files(self) -> list[Path]:
        """The nights' incident files, in the course's order."""
        return [night.incident for night in self.course.nights]

    def night(self, incident_id: str) -> Night | None:
        return self.course.night(incident_id)

    def seed_for(self, incident_id: str) -> int | None:
        """The learner's seed for a night of the course; None for an incident not in it, or
        before the learner has said who they are."""
        night = self.course.night(incident_id)
        if night is None or self.learner is None:
            return None
        return night.seed_for(self.learner)

    def next_night(self, incident_id: str) -> Night:
        """The night after this one in the course's order; the first after the last."""
        ids = self.course.night_ids
        at = ids.index(incident_id) if incident_id in ids else -1
        return self.course.nights[(at + 1) % len(ids)]

    def set_learner(self, name: str) -> None:
        """The learner has said who they are: kept in the pack for next time, unless this pack
        serves many (drill serve)."""
        name = clean_name(name)
        if learner_problem(name):
            raise ValueError(learner_problem(name))
        self.learner = name
        if self.remember:
            # A pack that cannot be written to still plays: the name is in every save anyway,
            # and next time it is asked again.
            with contextlib.suppress(OSError):
                write_text_atomic(
                    self.folder / LEARNER_FILE,
                    "# Who plays this pack: written by `drill play --course` the first time.\n"
                    f"name = {_toml_string(name)}\n",
                )


def remembered_learner(folder: Path) -> str | None:
    """The name kept in the pack, when there is a usable one."""
    try:
        data = tomllib.loads((folder / LEARNER_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    name = data.get("name")
    if not isinstance(name, str) or learner_problem(name):
        return None
    return clean_name(name)


def _toml_string(text: str) -> str:
    """A TOML basic string: backslash and quote escaped (the name is printable text)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
