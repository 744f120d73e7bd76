"""Writing the gradebook: a collected save, and a save's result, each in one transaction.

Only the parent process of `drill course collect` and `drill course grade` writes here; grading
workers hand their results back. A result replaces the submission's earlier one (if any) in the
same transaction, so grading again gives the same rows, and a grade killed between two results
leaves each finished one whole.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import Engine, delete, select
from sqlalchemy.orm import Session

from drill.classroom.course_file import learner_key
from drill.classroom.gradebook.models import (
    Learner,
    Result,
    ResultComponent,
    Submission,
    TimelineEntry,
)


@dataclass(frozen=True)
class Handed:
    """A save as collect found it, before it is in the gradebook."""

    learner: str
    night: str
    sha256: str
    file: str  # its name in submissions/
    found_as: str
    handed_in: dt.datetime  # UTC
    size: int


@dataclass(frozen=True)
class Waiting:
    """A submission to grade."""

    id: int
    learner: str
    night: str
    file: str
    found_as: str
    sha256: str


def add_submission(engine: Engine, handed: Handed) -> bool:
    """The save into the gradebook, once: False when the same bytes are already there."""
    with Session(engine) as session, session.begin():
        if session.scalar(select(Submission.id).where(Submission.sha256 == handed.sha256)):
            return False
        learner = _learner(session, handed.learner)
        session.add(
            Submission(
                sha256=handed.sha256,
                learner=learner,
                night=handed.night,
                file=handed.file,
                found_as=handed.found_as,
                handed_in=_utc_naive(handed.handed_in),
                size=handed.size,
            )
        )
    return True


def waiting(engine: Engine, *, again: bool = False) -> list[Waiting]:
    """Submissions with no result yet (every one, with `again`), in the order collected."""
    with Session(engine) as session:
        query = select(Submission).join(Submission.learner).order_by(Submission.id)
        if not again:
            query = query.where(~Submission.result.has())
        return [
            Waiting(s.id, s.learner.name, s.night, s.file, s.found_as, s.sha256)
            for s in session.scalars(query)
        ]


def write_result(engine: Engine, result) -> None:
    """One save's result (drill.classroom.grading.SaveResult), in one transaction."""
    with Session(engine) as session, session.begin():
        for table in (TimelineEntry, ResultComponent, Result):
            session.execute(delete(table).where(table.submission_id == result.submission_id))
        refusal = result.refusal
        row = Result(
            submission_id=result.submission_id,
            verified=result.verified,
            seed=result.seed,
            total=result.total,
            grade=result.grade,
            refusal_line=refusal.line if refusal else None,
            refusal_field=refusal.field[:200] if refusal else None,
            refusal_reason=refusal.reason if refusal else None,
            first_wrong_act=result.first_wrong_act,
            feedback_html=result.feedback_html,
            engine_version=result.engine_version,
            drill_version=result.drill_version,
        )
        row.components = [
            ResultComponent(position=n, name=c.name, points=c.points, weight=c.weight)
            for n, c in enumerate(result.components)
        ]
        row.timeline = [
            TimelineEntry(
                position=n, night_seconds=t.night_seconds, clock=t.clock, kind=t.kind, text=t.text
            )
            for n, t in enumerate(result.timeline)
        ]
        session.add(row)


def _learner(session: Session, name: str) -> Learner:
    key = learner_key(name)
    found = session.scalar(select(Learner).where(Learner.key == key))
    if found is None:
        found = Learner(key=key, name=" ".join(name.split()))
        session.add(found)
        session.flush()
    return found


def _utc_naive(moment: dt.datetime) -> dt.datetime:
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
    return moment.replace(microsecond=0)
