"""Alembic's environment for the gradebook: run from drill.classroom.gradebook.database with the
course's engine in the config's attributes, never from a command line reading alembic.ini."""

from __future__ import annotations

from alembic import context

from drill.classroom.gradebook.models import Base

engine = context.config.attributes.get("engine")
if engine is None:
    raise RuntimeError("run the gradebook's migrations through drill.classroom.gradebook.database")

with engine.connect() as connection:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite alters a table by copying it; PostgreSQL does not need to.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()
