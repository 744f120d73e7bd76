"""The gradebook's rows as plain values, keyed by where each save was found, so two gradings
(SQLite and PostgreSQL, a process pool and Dask, before and after a kill) compare with ==."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session, selectinload, undefer

from drill.classroom.gradebook.models import Result, Submission


def url_for(course: Path, url: str | None = None) -> str:
    return url or os.environ.get("DRILL_COURSE_DB") or f"sqlite:///{course / 'gradebook.sqlite'}"


def rows(course: Path, url: str | None = None) -> dict[str, dict]:
    engine = create_engine(url_for(course, url))
    try:
        with Session(engine) as session:
            found = {}
            query = select(Submission).options(
                selectinload(Submission.learner),
                selectinload(Submission.result).options(
                    undefer(Result.feedback_html),
                    selectinload(Result.components),
                    selectinload(Result.timeline),
                ),
            )
            for sub in session.scalars(query):
                result = sub.result
                found[sub.found_as] = {
                    "learner": sub.learner.name,
                    "night": sub.night,
                    "sha256": sub.sha256,
                    "result": None
                    if result is None
                    else {
                        "verified": result.verified,
                        "seed": result.seed,
                        "total": result.total,
                        "grade": result.grade,
                        "refusal": (
                            result.refusal_line,
                            result.refusal_field,
                            result.refusal_reason,
                        ),
                        "first_wrong_act": result.first_wrong_act,
                        "feedback_html": result.feedback_html,
                        "components": [(c.name, c.points, c.weight) for c in result.components],
                        "timeline": [
                            (t.night_seconds, t.clock, t.kind, t.text) for t in result.timeline
                        ],
                    },
                }
            return found
    finally:
        engine.dispose()
