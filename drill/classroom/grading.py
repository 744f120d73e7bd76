"""Grading one collected save: the work a grading worker does, far from the gradebook.

A task carries everything the worker needs as bytes (the save, the night's incident file and
any file beside it the incident reads), so a worker on another machine of a Dask cluster needs
no shared folder. The worker writes them into a temporary folder, reads the save, checks it
against the course (the incident version, the backend, the night's seeds), then replays it
through drill/replay_check.py, the same code `drill replay --verify` runs. A save that does not
verify is refused with the line and field where it first differs, and never scored. A verified
one comes back with its score's components, the first act the score held against it, its
timeline and its part of the learner's feedback page.

The worker writes nothing the parent reads: it hands back a SaveResult, and the parent writes
it into the gradebook in one transaction.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from drill.classroom.results import ComponentPoints, Refusal, TimelineLine


@dataclass(frozen=True)
class GradeTask:
    submission_id: int
    save_name: str  # how the instructor knows it: shown in every message about it
    save_bytes: bytes
    night: str  # the incident id
    incident_name: str  # the incident file's name, relative inside `incident_files`
    incident_files: tuple[tuple[str, bytes], ...]  # (relative path, bytes)
    backend: str
    first_seed: int
    last_seed: int
    # Where the par and floor caches are, when the worker can see that folder (a local worker
    # can); a worker elsewhere uses its own.
    saves_dir: str | None = None


@dataclass(frozen=True)
class SaveResult:
    submission_id: int
    verified: bool
    seed: int | None = None
    total: float | None = None
    grade: str | None = None
    components: tuple[ComponentPoints, ...] = ()
    first_wrong_act: str | None = None
    timeline: tuple[TimelineLine, ...] = field(default=())
    refusal: Refusal | None = None
    feedback_html: str | None = None
    engine_version: str = ""
    drill_version: str = ""


class Refused(Exception):
    def __init__(self, line: int, field: str, reason: str):
        super().__init__(reason)
        self.refusal = Refusal(line, field, reason)
        self.seed: int | None = None  # the header's, once the save has been read


def grade_task(task: GradeTask) -> SaveResult:
    """The task's save, verified and scored, or refused. Runs in a worker process."""
    from drill import ENGINE_VERSION, __version__

    versions = {"engine_version": ENGINE_VERSION, "drill_version": __version__}
    _use_caches(task.saves_dir)
    with tempfile.TemporaryDirectory(prefix="drill-grade-") as scratch:
        folder = Path(scratch)
        try:
            return _graded(task, folder, versions)
        except Refused as exc:
            refusal = exc.refusal
            reason = _named(refusal.reason, folder, task)
            return SaveResult(
                task.submission_id,
                False,
                seed=exc.seed,
                refusal=Refusal(refusal.line, refusal.field, reason),
                engine_version=versions["engine_version"],
                drill_version=versions["drill_version"],
            )


def _graded(task: GradeTask, folder: Path, versions: dict[str, str]) -> SaveResult:
    from drill.saves import SaveError, read_save

    save_path = folder / "save" / PurePosixPath(task.save_name).name
    save_path.parent.mkdir()
    save_path.write_bytes(task.save_bytes)
    loaded = _incident(task, folder)
    try:
        save = read_save(save_path)
    except SaveError as exc:
        raise Refused(exc.line, _field_of(exc.message), exc.message) from None
    try:
        return _checked(task, save, save_path, loaded, versions)
    except Refused as exc:
        exc.seed = save.seed
        raise


def _checked(task: GradeTask, save, save_path: Path, loaded, versions: dict[str, str]):
    from drill.replay_check import NotVerified, check_header, replay_and_score
    from drill.replica_choice import ReplicaChoiceError, header_replica
    from drill.saves import SaveError

    header = save.header
    if header["incident_id"] != task.night:
        raise Refused(
            1,
            "incident_id",
            f"the save is of incident {header['incident_id']!r}, not {task.night!r}",
        )
    if header["incident_sha256"] != loaded.sha256:
        raise Refused(
            1,
            "incident_sha256",
            f"played on another version of {task.night} (its incident sha256 is"
            f" {header['incident_sha256'][:12]}..., this course's is {loaded.sha256[:12]}...);"
            " only nights of the released version are graded",
        )
    try:
        check_header(save)
    except NotVerified as exc:
        raise Refused(exc.line, exc.field, _without_place(str(exc), save_path)) from None
    if save.backend != task.backend:
        raise Refused(
            1,
            "backend",
            f"played on the {save.backend} backend; this course is played and graded on"
            f" {task.backend}",
        )
    if not task.first_seed <= save.seed <= task.last_seed:
        seeds = (
            f"seed {task.first_seed}"
            if task.first_seed == task.last_seed
            else f"seeds {task.first_seed} to {task.last_seed}"
        )
        raise Refused(1, "seed", f"played on seed {save.seed}; this night is played on {seeds}")
    course_replica = header_replica(loaded)[0]
    if save.replica != course_replica:
        raise Refused(
            1,
            "replica",
            f"played with replica {save.replica or 'addition-gpt'}; this night trains"
            f" {course_replica or 'addition-gpt'}",
        )
    try:
        replayed = replay_and_score(save, loaded, verify=True)
    except NotVerified as exc:
        raise Refused(exc.line, exc.field, _without_place(str(exc), save_path)) from None
    except (SaveError, ReplicaChoiceError, ValueError) as exc:
        raise Refused(1, "header", _without_place(str(exc), save_path)) from None
    try:
        return _result(task, save, loaded, replayed, versions)
    finally:
        replayed.session.close()


def _result(task: GradeTask, save, loaded, replayed, versions: dict[str, str]) -> SaveResult:
    from drill.classroom.feedback_night import night_feedback
    from drill.classroom.wrong_act import first_wrong_act

    drill = replayed.session.drill
    score = replayed.score.to_json()
    components = tuple(
        ComponentPoints(c["name"], float(c["points"]), float(c["weight"]))
        for c in score["components"]
    )
    return SaveResult(
        task.submission_id,
        True,
        seed=save.seed,
        total=float(score["total"]),
        grade=str(score["grade"]),
        components=components,
        first_wrong_act=first_wrong_act(drill),
        timeline=timeline(drill, save),
        feedback_html=night_feedback(save, loaded, drill),
        engine_version=versions["engine_version"],
        drill_version=versions["drill_version"],
    )


def timeline(drill, save) -> tuple[TimelineLine, ...]:
    """The learner's actions and the pages of the night, in order of time: the drill-down."""
    lines = [
        (a.time, 1, "action", a.text if a.accepted else f"{a.text} (refused: {a.result[:80]})")
        for a in save.actions
    ]
    lines += [
        (alert.time, 0, "page", f"{alert.severity}: {alert.text}")
        for alert in drill.world.pager.alerts  # noise included: the learner saw it too
    ]
    lines.sort(key=lambda item: (item[0], item[1]))
    return tuple(
        TimelineLine(round(float(t), 3), drill.clock(t), kind, text) for t, _, kind, text in lines
    )


def _incident(task: GradeTask, folder: Path):
    """The course's incident for the night, from the task's bytes; each file kept inside the
    night's own folder."""
    from drill.incident.loader import load_incident

    night_folder = folder / "night"
    for name, data in task.incident_files:
        relative = PurePosixPath(name)
        if relative.is_absolute() or ".." in relative.parts or not relative.parts:
            raise ValueError(f"a night's file name leaves its folder: {name!r}")
        target = night_folder.joinpath(*relative.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return load_incident(night_folder.joinpath(*PurePosixPath(task.incident_name).parts))


def _use_caches(saves_dir: str | None) -> None:
    from drill.saves_dir import set_saves_dir

    if saves_dir and Path(saves_dir).is_dir():
        set_saves_dir(saves_dir)


def _without_place(message: str, save_path: Path) -> str:
    """A verify message without its leading `path:line: ` (the refusal keeps the line)."""
    prefix = f"{save_path}:"
    if message.startswith(prefix):
        rest = message[len(prefix) :]
        number, _, text = rest.partition(": ")
        if number.isdigit():
            return text
    return message


def _named(reason: str, folder: Path, task: GradeTask) -> str:
    """The reason with the worker's scratch paths replaced by the save's own name."""
    save_path = folder / "save" / PurePosixPath(task.save_name).name
    return reason.replace(str(save_path), task.save_name).replace(str(folder), "")


def _field_of(message: str) -> str:
    """The field a reader's message names (its first `field`), or the line itself."""
    start = message.find("`")
    end = message.find("`", start + 1)
    if start >= 0 and end > start + 1 and end - start < 40:
        return message[start + 1 : end]
    return "line"
