"""The gradebook's Alembic migrations build the schema its SQLAlchemy models declare, on SQLite
and on PostgreSQL, from code alone (no alembic.ini, from any folder); a database URL the
gradebook cannot use is one line and exit 2."""

from __future__ import annotations

import os

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from drill.classroom.gradebook.database import alembic_config, make_engine, upgrade
from drill.classroom.gradebook.models import Base
from tests.clikit import run_drill

TABLES = {"learners", "submissions", "results", "result_components", "timeline_lines"}


def differences(url: str) -> list:
    engine = make_engine(url)
    try:
        upgrade(engine)
        with engine.connect() as connection:
            assert set(inspect(connection).get_table_names()) >= TABLES
            return compare_metadata(MigrationContext.configure(connection), Base.metadata)
    finally:
        engine.dispose()


def test_the_migrations_build_the_models_schema_on_sqlite(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no alembic.ini, no migrations folder here
    assert differences(f"sqlite:///{tmp_path / 'g.sqlite'}") == []


def test_the_migrations_build_the_models_schema_on_postgresql(postgres_url):
    assert differences(postgres_url) == []


def test_the_migrations_go_down_and_up_again(tmp_path):
    from alembic import command

    engine = make_engine(f"sqlite:///{tmp_path / 'g.sqlite'}")
    try:
        upgrade(engine)
        command.downgrade(alembic_config(engine), "base")
        with engine.connect() as connection:
            assert not TABLES & set(inspect(connection).get_table_names())
        upgrade(engine)
        with engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("postgresql+psycopg2://drill@/x", "write the URL as postgresql+psycopg://"),
        ("mysql+pymysql://drill@localhost/x", "keeps to SQLite or PostgreSQL"),
        ("not a url", "is not a database URL"),
        (
            "postgresql+psycopg://drill:secret@/x?host=/nonexistent-folder",
            "cannot open the gradebook",
        ),
    ],
)
def test_a_database_url_it_cannot_use_is_one_line(tmp_path, url, words):
    done = run_drill("course", "new", str(tmp_path / "c"), "--night", "tutorial")
    assert done.returncode == 0
    env = {**os.environ, "DRILL_COURSE_DB": url}
    done = run_drill("course", "report", "--course", str(tmp_path / "c"), env=env)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr, done.stderr
    assert "secret" not in done.stderr  # a password in the URL is never shown
