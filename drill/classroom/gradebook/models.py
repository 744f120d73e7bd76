"""The gradebook's tables. One result per collected save, written in one transaction with its
components and timeline, so a grade killed midway leaves every finished save's result whole and
no half of one. Which attempt counts (best, last, first) is decided when the gradebook is read,
from these rows, so changing course.toml's `attempt` needs no re-grade.

Times are stored as UTC without a zone (SQLite keeps no zone, and both databases must give the
same rows back).
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Constraint names the same on every database, so a migration can name them.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Learner(Base):
    __tablename__ = "learners"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Who the learner is, whatever the case or spacing of the name (course_file.learner_key).
    key: Mapped[str] = mapped_column(String(200), unique=True)
    name: Mapped[str] = mapped_column(String(60))  # as first handed in

    submissions: Mapped[list[Submission]] = relationship(back_populates="learner")


class Submission(Base):
    """One collected save: its bytes sit in the course's submissions/ folder under their sha256,
    so the same save handed in twice (or from two layouts) is one submission."""

    __tablename__ = "submissions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    learner_id: Mapped[int] = mapped_column(ForeignKey("learners.id"), index=True)
    night: Mapped[str] = mapped_column(String(40))  # the incident id its header names
    file: Mapped[str] = mapped_column(String(200))  # its name in submissions/
    found_as: Mapped[str] = mapped_column(Text)  # where collect found it, for the instructor
    handed_in: Mapped[dt.datetime] = mapped_column(DateTime)  # the file's time as handed in, UTC
    size: Mapped[int] = mapped_column(Integer)

    learner: Mapped[Learner] = relationship(back_populates="submissions")
    result: Mapped[Result | None] = relationship(
        back_populates="submission", cascade="all, delete-orphan", passive_deletes=True
    )


class Result(Base):
    """What grading made of one submission: verified and scored, or refused with the line and
    field where it stops being what it says."""

    __tablename__ = "results"

    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), primary_key=True
    )
    verified: Mapped[bool] = mapped_column(Boolean)
    seed: Mapped[int | None] = mapped_column(BigInteger)
    total: Mapped[float | None] = mapped_column(Float)
    grade: Mapped[str | None] = mapped_column(String(4))
    refusal_line: Mapped[int | None] = mapped_column(Integer)
    refusal_field: Mapped[str | None] = mapped_column(String(200))
    refusal_reason: Mapped[str | None] = mapped_column(Text)
    first_wrong_act: Mapped[str | None] = mapped_column(Text)
    # The night's part of the learner's feedback page (their debrief and runbook), as HTML.
    feedback_html: Mapped[str | None] = mapped_column(Text, deferred=True)  # read when asked
    engine_version: Mapped[str] = mapped_column(String(64))
    drill_version: Mapped[str] = mapped_column(String(40))

    submission: Mapped[Submission] = relationship(back_populates="result")
    components: Mapped[list[ResultComponent]] = relationship(
        order_by="ResultComponent.position", cascade="all, delete-orphan", passive_deletes=True
    )
    timeline: Mapped[list[TimelineEntry]] = relationship(
        order_by="TimelineEntry.position", cascade="all, delete-orphan", passive_deletes=True
    )


class ResultComponent(Base):
    __tablename__ = "result_components"

    submission_id: Mapped[int] = mapped_column(
        ForeignKey("results.submission_id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    points: Mapped[float] = mapped_column(Float)
    weight: Mapped[float] = mapped_column(Float)


class TimelineEntry(Base):
    __tablename__ = "timeline_lines"

    submission_id: Mapped[int] = mapped_column(
        ForeignKey("results.submission_id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    night_seconds: Mapped[float] = mapped_column(Float)
    clock: Mapped[str] = mapped_column(String(20))
    kind: Mapped[str] = mapped_column(String(10))
    text: Mapped[str] = mapped_column(Text)
