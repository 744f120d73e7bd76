"""Which database holds a course's gradebook, and bringing its tables up to date.

SQLite in the course folder (gradebook.sqlite) unless DRILL_COURSE_DB names another:
`postgresql+psycopg://USER@HOST/DB` (psycopg 3), or `sqlite:///PATH`. The tables are made and
kept current by the Alembic migrations shipped in migrations/, run from here (no alembic.ini,
no working folder assumed) each time a course command opens the gradebook.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError

ENV_VAR = "DRILL_COURSE_DB"
SQLITE_NAME = "gradebook.sqlite"
MIGRATIONS = Path(__file__).with_name("migrations")


class GradebookError(Exception):
    """A gradebook that cannot be opened: one line saying which and what to do."""


def database_url(course_folder: Path) -> str:
    return os.environ.get(ENV_VAR) or f"sqlite:///{(course_folder / SQLITE_NAME).resolve()}"


def shown_url(url: str) -> str:
    """The URL with any password hidden, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "the URL in DRILL_COURSE_DB"


def open_gradebook(course_folder: Path, url: str | None = None) -> Engine:
    """The gradebook's engine, its tables migrated to the newest revision."""
    url = url or database_url(course_folder)
    engine = make_engine(url)
    try:
        upgrade(engine)
    except OperationalError as exc:
        engine.dispose()
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
        raise GradebookError(
            f"cannot open the gradebook at {shown_url(url)}: {reason}; check {ENV_VAR} (or"
            " unset it for SQLite in the course folder)"
        ) from None
    return engine


def make_engine(url: str) -> Engine:
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise GradebookError(
            f"{ENV_VAR} is not a database URL; use postgresql+psycopg://USER@HOST/DB or"
            " sqlite:///PATH"
        ) from None
    backend, driver = parsed.get_backend_name(), parsed.get_driver_name()
    if backend == "postgresql" and driver != "psycopg":
        raise GradebookError(
            f"{shown_url(url)}: the gradebook talks to PostgreSQL through psycopg 3; write the"
            " URL as postgresql+psycopg://..."
        )
    if backend not in ("sqlite", "postgresql"):
        raise GradebookError(
            f"{shown_url(url)}: the gradebook keeps to SQLite or PostgreSQL; use"
            " postgresql+psycopg://USER@HOST/DB, or unset DRILL_COURSE_DB"
        )
    try:
        engine = create_engine(parsed)
    except (ArgumentError, SQLAlchemyError, ImportError) as exc:
        raise GradebookError(f"{shown_url(url)}: {exc}") from None
    if backend == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(connection, record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")  # ON DELETE CASCADE, as PostgreSQL does it
    cursor.close()


def alembic_config(engine: Engine | None = None):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine) -> None:
    from alembic import command

    command.upgrade(alembic_config(engine), "head")
