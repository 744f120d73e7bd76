"""The course tests' fixtures: the class (built once per run, tests/course/classkit.py) and a
real PostgreSQL server (tests/course/postgres.py), started once per xdist worker that needs it."""

from __future__ import annotations

import itertools

import pytest

from tests.conftest import shared_saves_folder
from tests.course.classkit import class_kit
from tests.course.postgres import start_server, stop_server

_databases = itertools.count(1)


@pytest.fixture(scope="session")
def kit(tmp_path_factory):
    return class_kit(shared_saves_folder(tmp_path_factory))


@pytest.fixture(scope="session")
def postgres():
    server = start_server()
    yield server
    stop_server(server)


@pytest.fixture
def postgres_url(postgres, worker_id):
    """A new, empty database on the server, for one test."""
    return postgres.create_database(f"gradebook_{worker_id}_{next(_databases)}")
