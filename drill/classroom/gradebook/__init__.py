"""The gradebook: SQLAlchemy 2 models of a course's learners, collected saves and their grades,
Alembic migrations shipped beside them (run from code, no alembic.ini), SQLite in the course
folder by default and PostgreSQL by URL (DRILL_COURSE_DB=postgresql+psycopg://...).

Imported only by `drill course`: nothing on the game's start-up path loads SQLAlchemy.
"""
