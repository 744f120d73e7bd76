"""Reading the gradebook back as the plain values the class report, the CSV and the feedback
pages are built from (drill/classroom/results.py).

For each learner and night, the kept attempt is chosen here from the verified results, by the
course's rule: the best total (ties to the earlier save), the last handed in, or the first.
A learner whose every save of a night was refused keeps the latest refusal, so the report
shows the night as refused rather than missing.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, selectinload

from drill.classroom.course_file import Course, Night, load_course
from drill.classroom.gradebook.models import Learner, Result, Submission
from drill.classroom.results import (
    ClassResults,
    ComponentPoints,
    GradedNight,
    Refusal,
    TimelineLine,
)


def class_results(course: Course | str | Path, engine: Engine | None = None) -> ClassResults:
    """The class as graded so far. `course`: the Course, or its folder; `engine`: the
    gradebook (default: the course's, opened and migrated)."""
    if not isinstance(course, Course):
        course = load_course(course)
    if engine is None:
        from drill.classroom.gradebook.database import open_gradebook

        engine = open_gradebook(course.folder)
        try:
            return _read(course, engine)
        finally:
            engine.dispose()
    return _read(course, engine)


def kept_feedback(course: Course, engine: Engine) -> dict[tuple[str, str], str]:
    """(learner, night) -> the night's feedback HTML of each kept verified attempt."""
    with Session(engine) as session:
        _, kept = read_class(course, session)
        if not kept:
            return {}
        rows = session.execute(
            select(Result.submission_id, Result.feedback_html).where(
                Result.submission_id.in_(list(kept.values()))
            )
        ).all()
        html = {row[0]: row[1] or "" for row in rows}
        return {pair: html.get(sub_id, "") for pair, sub_id in kept.items()}


def _read(course: Course, engine: Engine) -> ClassResults:
    with Session(engine) as session:
        return read_class(course, session)[0]


def read_class(course: Course, session: Session) -> tuple[ClassResults, dict[tuple[str, str], int]]:
    """The class, and the submission kept for each (learner, night) with a verified attempt."""
    learners = list(session.scalars(select(Learner)))
    submissions = list(
        session.scalars(
            select(Submission).options(
                selectinload(Submission.learner),
                selectinload(Submission.result).selectinload(Result.components),
                selectinload(Submission.result).selectinload(Result.timeline),
            )
        )
    )
    by_pair: dict[tuple[int, str], list[Submission]] = defaultdict(list)
    for sub in submissions:
        by_pair[(sub.learner_id, sub.night)].append(sub)
    graded: list[GradedNight] = []
    refused: list[GradedNight] = []
    pending = 0
    kept: dict[tuple[str, str], int] = {}
    waiting: list[tuple[str, str]] = []
    names = sorted(learners, key=lambda learner: (learner.key, learner.id))
    for learner in names:
        for night in course.nights:
            subs = sorted(by_pair.get((learner.id, night.id), []), key=_handed_order)
            done = [s for s in subs if s.result is not None]
            pending += len(subs) - len(done)
            if not done:
                if subs:
                    waiting.append((learner.name, night.id))
                continue
            verified = [s for s in done if s.result is not None and s.result.verified]
            for sub in done:
                if sub.result is not None and not sub.result.verified:
                    refused.append(_graded(sub, night, len(subs)))
            if verified:
                chosen = _kept(verified, course.attempt)
                kept[(learner.name, night.id)] = chosen.id
                graded.append(_graded(chosen, night, len(subs)))
            else:
                graded.append(_graded(done[-1], night, len(subs)))
    results = ClassResults(
        title=course.title,
        nights=course.night_ids,
        learners=tuple(learner.name for learner in names),
        graded=tuple(graded),
        refused=tuple(refused),
        attempt=course.attempt,
        pending=pending,
        waiting=tuple(waiting),
    )
    return results, kept


def _handed_order(sub: Submission):
    return (sub.handed_in, sub.id)


def _kept(verified: list[Submission], attempt: str) -> Submission:
    if attempt == "last":
        return verified[-1]
    if attempt == "first":
        return verified[0]
    best = max(s.result.total or 0.0 for s in verified if s.result is not None)
    return next(s for s in verified if s.result is not None and (s.result.total or 0.0) == best)


def _graded(sub: Submission, night: Night, attempts: int) -> GradedNight:
    result = sub.result
    assert result is not None
    refusal = (
        None
        if result.verified
        else Refusal(
            result.refusal_line or 0, result.refusal_field or "", result.refusal_reason or ""
        )
    )
    late = night.deadline is not None and sub.handed_in > night.deadline.replace(tzinfo=None)
    return GradedNight(
        learner=sub.learner.name,
        night=sub.night,
        seed=result.seed if result.seed is not None else 0,
        save_name=sub.found_as,
        attempts=attempts,
        total=result.total,
        grade=result.grade,
        components=tuple(ComponentPoints(c.name, c.points, c.weight) for c in result.components),
        first_wrong_act=result.first_wrong_act,
        timeline=tuple(
            TimelineLine(t.night_seconds, t.clock, t.kind, t.text) for t in result.timeline
        ),
        refusal=refusal,
        handed_in=sub.handed_in,
        late=late,
    )
