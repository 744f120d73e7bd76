"""`drill course collect FOLDER...`: the learners' saves into the course, from any layout.

A hand-in is a folder with one folder per learner, a zip (one learner's, or a class download
with a folder per learner), a saves folder that every browser tab of `drill serve --course`
wrote into, or a single save. Whose a save is comes from the save itself: a course's pack writes
the learner's name into every save's header. A save without a name (played outside the pack)
belongs to the learner folder it sits in: the first folder of its path that is not `saves`, or
for a save at the top of a zip, the zip's name. A save whose header names someone else than
its folder is collected as the header says, with a note.

Each save is read no further than its header here (grading reads the rest): a save of an
incident that is not one of the course's nights is left out, with a line. The bytes are kept in
the course's submissions/ folder under their sha256, so a save handed in twice, in two layouts,
is one submission.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from drill.atomic_file import write_bytes_atomic
from drill.classroom.course_file import Course
from drill.classroom.gradebook.store import Handed, add_submission
from drill.classroom.handed_files import HandedFile, Skipped, handed_files, is_zip
from drill.classroom.pack_play import clean_name
from drill.saves.json_line import parse_record
from drill.saves.model import SaveError
from drill.saves.reader import check_header
from drill.values.units import plural

SUBMISSIONS = "submissions"
HEADER_BYTES = 2_000_000  # a header line is never longer than a line may be


@dataclass
class Collected:
    source: str
    saves: int = 0
    new: int = 0
    learners: set[str] = field(default_factory=set)
    skipped: list[Skipped] = field(default_factory=list)
    # (folder, learner) where a learner folder holds saves the header says someone else played.
    notes: set[tuple[str, str]] = field(default_factory=set)

    def summary(self) -> str:
        line = (
            f"{self.source}: {plural(self.saves, 'save')} of"
            f" {plural(len(self.learners), 'learner')}, {self.new} new"
        )
        if self.skipped:
            line += f"; {len(self.skipped)} left out"
        return line


def collect(
    course: Course, engine, sources: list[Path], say: Callable[[str], None] = print
) -> list[Collected]:
    out = []
    store = course.folder / SUBMISSIONS
    for source in sources:
        found = Collected(str(source))
        zip_name = source.stem if is_zip(source) else None
        for item in handed_files(source):
            if isinstance(item, Skipped):
                found.skipped.append(item)
                say(f"left out {source}/{item.name}: {item.why}")
                continue
            _take(course, engine, store, item, found, zip_name, say)
        say(found.summary())
        out.append(found)
    return out


def _take(course, engine, store: Path, item: HandedFile, found: Collected, zip_name, say) -> None:
    shown = f"{found.source}/{item.name}" if zip_name is None else f"{found.source}:{item.name}"
    try:
        header = _header(shown, item.data)
    except SaveError as exc:
        found.skipped.append(Skipped(item.name, exc.message))
        say(f"left out {shown}: line {exc.line}: {exc.message}")
        return
    night = header["incident_id"]
    if course.night(night) is None:
        found.skipped.append(Skipped(item.name, f"incident {night} is not a night of the course"))
        say(f"left out {shown}: a save of {night}, which is not a night of this course")
        return
    folder_name = _learner_folder(item.parts, zip_name)
    named = header.get("learner")
    learner = clean_name(named) if isinstance(named, str) else folder_name
    if learner is None:
        found.skipped.append(Skipped(item.name, "no learner name"))
        say(
            f"left out {shown}: the save has no learner name (it was not played from the"
            " course's pack) and sits in no learner's folder; put it in a folder named after"
            " the learner and collect that"
        )
        return
    elsewhere = bool(named and folder_name and folder_name.casefold() != learner.casefold())
    if elsewhere and (folder_name, learner) not in found.notes:  # once a folder, not a save
        found.notes.add((str(folder_name), learner))
        say(
            f"note: the folder {folder_name} holds saves played by {learner} (the name in the"
            f" saves counts), {shown} first"
        )
    sha = hashlib.sha256(item.data).hexdigest()
    target = store / f"{sha}.jsonl"
    if not target.exists():
        store.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(target, item.data)
    found.saves += 1
    found.learners.add(learner.casefold())
    if add_submission(
        engine,
        Handed(
            learner=learner,
            night=night,
            sha256=sha,
            file=target.name,
            found_as=shown,
            handed_in=item.modified,
            size=len(item.data),
        ),
    ):
        found.new += 1


def _header(shown: str, data: bytes) -> dict:
    first = data[:HEADER_BYTES].split(b"\n", 1)[0]
    if not first.strip():
        raise SaveError(shown, 1, "the save is empty or has no header line")
    return check_header(shown, parse_record(shown, 1, first))


def _learner_folder(parts: tuple[str, ...], zip_name: str | None) -> str | None:
    """The learner folder a save sits in, by the layout alone."""
    for part in parts[:-1]:
        if part.casefold() != "saves" and clean_name(part):
            return clean_name(part)[:60]
    return clean_name(zip_name)[:60] if zip_name else None
