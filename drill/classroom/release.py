"""`drill course release`: the learners' pack, one folder to hand out (zip it, put it in git, or
serve it with `drill serve --course PACK`).

    PACK/course.toml        the course's nights, seeds and deadlines, pointing at the files below
    PACK/incidents/ID.yaml  each night's incident, byte for byte the course's (grading checks it)
    PACK/saves/             where `drill play --course PACK` saves every night played from it
    PACK/README.txt         how to play it and hand it in

The incident files keep their bytes, so a save from the pack names the incident version the
course grades; an incident edited after the release is a new version, and saves of the old one
are refused until the pack is released again.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from drill.atomic_file import write_bytes_atomic, write_text_atomic
from drill.classroom.course_file import COURSE_FILE, Course, CourseError, Night, load_course
from drill.classroom.pack_play import SAVES

RELEASE = "release"


def release(course: Course, out: Path | None = None) -> Path:
    from drill.classroom.grade import night_files

    pack = out or course.folder / RELEASE
    if pack.exists() and any(pack.iterdir()):
        raise CourseError(
            pack / COURSE_FILE,
            1,
            f"{pack} already holds files; remove it to release again, or pass -o NEW_FOLDER",
        )
    written = []
    for night in course.nights:
        _, files = night_files(night)
        for relative, data in files:
            name = f"{night.id}.yaml" if relative == night.incident.name else relative
            target = pack / "incidents" / name
            if target.exists():
                raise CourseError(
                    course.path,
                    night.line,
                    f"two nights bring a file named {name}; rename one of them",
                )
            write_bytes_atomic(target, data)
        written.append((night, f"incidents/{night.id}.yaml"))
    (pack / SAVES).mkdir(parents=True, exist_ok=True)
    write_text_atomic(pack / COURSE_FILE, pack_text(course, written))
    write_text_atomic(pack / "README.txt", readme(course))
    load_course(pack)  # the pack loads as the learners' drill will load it
    return pack


def pack_text(course: Course, nights: list[tuple[Night, str]]) -> str:
    lines = [
        f"# The learners' pack of {course.title}, written by `drill course release`.",
        "# Play it with `drill play --course .` from this folder. Edits here change nothing the",
        "# course grades: a save of another incident version or seed is refused.",
        f"title = {_string(course.title)}",
        f"backend = {_string(course.backend)}",
        f"attempt = {_string(course.attempt)}",
    ]
    for night, path in nights:
        lines += ["", "[[nights]]", f"incident = {_string(path)}"]
        if night.first_seed == night.last_seed:
            lines.append(f"seed = {night.first_seed}")
        else:
            lines.append(f"seeds = [{night.first_seed}, {night.last_seed}]")
        if night.deadline is not None:
            lines.append(f"deadline = {_when(night.deadline)}")
    return "\n".join(lines) + "\n"


def readme(course: Course) -> str:
    nights = "\n".join(
        f"  {n}. {night.id}" + (f" (due {_when(night.deadline)})" if night.deadline else "")
        for n, night in enumerate(course.nights, start=1)
    )
    return f"""{course.title}

The nights of this course, in order:
{nights}

Play them from this folder:

    drill play --course .              the list of the course's nights
    drill play --course . {course.nights[0].id}     one night straight away

The first time, the game asks your name: it goes into every save, so your instructor knows
which nights are yours. Every night you play is saved in saves/. Hand in that folder (or this
whole folder, or a zip of it) as your instructor asks. A save is graded by replaying it, so
hand it in as the game wrote it: an edited save is refused.
"""


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _when(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
