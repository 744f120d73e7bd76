"""`drill course grade`: every collected save not graded yet, replayed and written down.

The parent builds one task per save (drill/classroom/grading.py), hands them to the workers
(drill/classroom/fan_out.py), and writes each result into the gradebook in its own transaction
as it comes back, in whatever order the workers finish. A grade killed midway keeps every
result already written; the next grade does the rest. Grading again with nothing new writes
nothing, and `--again` grades every save afresh into the same rows. The learners' feedback
pages are written at the end, from the gradebook.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from drill.classroom.collect import SUBMISSIONS
from drill.classroom.course_file import Course, Night
from drill.classroom.fan_out import executor_for
from drill.classroom.gradebook.store import Waiting, waiting, write_result
from drill.classroom.grading import GradeTask, SaveResult, grade_task
from drill.classroom.results import Refusal
from drill.values.units import plural


@dataclass
class GradeRun:
    graded: int = 0
    refused: int = 0
    failed: list[str] = field(default_factory=list)  # saves drill itself could not grade
    feedback: list[Path] = field(default_factory=list)


def grade_course(
    course: Course,
    engine,
    *,
    again: bool = False,
    processes: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    say: Callable[[str], None] = print,
) -> GradeRun:
    from drill.saves_dir import saves_dir

    run = GradeRun()
    todo = waiting(engine, again=again)
    nights = {night.id: night_files(night) for night in course.nights}
    tasks: list[tuple[GradeTask, Waiting]] = []
    for item in todo:
        night = course.night(item.night)
        if night is None:
            continue  # the night left the course since it was collected
        data, changed = _submitted(course, item)
        if changed:
            write_result(engine, _changed(item))
            run.refused += 1
            say(f"refused {item.learner}, {item.night}: {item.found_as} changed since collect")
            continue
        name, files = nights[night.id]
        tasks.append(
            (
                GradeTask(
                    submission_id=item.id,
                    save_name=PurePosixPath(item.found_as.replace(":", "/")).name,
                    save_bytes=data,
                    night=night.id,
                    incident_name=name,
                    incident_files=files,
                    backend=course.backend,
                    first_seed=night.first_seed,
                    last_seed=night.last_seed,
                    saves_dir=str(saves_dir().resolve()),
                ),
                item,
            )
        )
    if tasks:
        with executor_for(processes=processes, workers=workers, scheduler=scheduler) as (
            executor,
            what,
        ):
            say(f"grading {plural(len(tasks), 'save')} on {what}")
            futures = {executor.submit(grade_task, task): item for task, item in tasks}
            for future in as_completed(futures):
                item = futures[future]
                try:
                    result = future.result()
                except Exception as exc:  # a bug in drill, not the learner's save
                    run.failed.append(item.found_as)
                    say(
                        f"drill: could not grade {item.found_as} (a bug in drill, not in the"
                        f" save; it stays ungraded): {type(exc).__name__}: {exc}"
                    )
                    continue
                write_result(engine, result)
                if result.verified:
                    run.graded += 1
                else:
                    run.refused += 1
                say(_line(item, result))
    from drill.classroom.feedback import write_feedback

    run.feedback = write_feedback(course, engine)
    return run


def night_files(night: Night) -> tuple[str, tuple[tuple[str, bytes], ...]]:
    """The night's incident file and the files beside it that it reads (a background trace),
    as (name, ((relative path, bytes), ...)) for a worker that may not see the course folder."""
    from drill.incident.loader import load_incident

    folder = night.incident.parent
    files = [(night.incident.name, night.incident.read_bytes())]
    trace = load_incident(night.incident).incident.background.trace
    if trace is not None:
        path = (folder / str(trace)).resolve()
        if path.is_relative_to(folder.resolve()) and path.is_file():
            files.append((path.relative_to(folder.resolve()).as_posix(), path.read_bytes()))
    return night.incident.name, tuple(files)


def _submitted(course: Course, item: Waiting) -> tuple[bytes, bool]:
    """The collected bytes, and whether they are no longer the ones collected."""
    path = course.folder / SUBMISSIONS / PurePosixPath(item.file).name
    try:
        data = path.read_bytes()
    except OSError:
        return b"", True
    return data, hashlib.sha256(data).hexdigest() != item.sha256


def _changed(item: Waiting) -> SaveResult:
    from drill import ENGINE_VERSION, __version__

    return SaveResult(
        item.id,
        False,
        refusal=Refusal(
            0,
            "file",
            f"the collected copy in {SUBMISSIONS}/ is missing or changed since it was collected;"
            " collect the save again",
        ),
        engine_version=ENGINE_VERSION,
        drill_version=__version__,
    )


def _line(item: Waiting, result: SaveResult) -> str:
    if result.verified:
        return (
            f"graded {item.learner}, {item.night} seed {result.seed}: {result.total:.0f}"
            f" ({result.grade}), {item.found_as}"
        )
    refusal = result.refusal
    assert refusal is not None
    return (
        f"refused {item.learner}, {item.night}: {item.found_as}:{refusal.line}: {refusal.field}:"
        f" {refusal.reason}"
    )
