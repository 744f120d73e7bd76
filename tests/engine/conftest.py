"""Fixtures for the engine tests: a quiet built-in-code night and the shipped dead-rank one."""

from __future__ import annotations

import pytest

from drill.engine.drill import Drill
from drill.incident.loader import load_incident
from tests.drillkit import DEAD_RANK, build


@pytest.fixture(scope="session")
def dead_rank():
    """The shipped incident, loaded once (the model is frozen, so sharing it is safe)."""
    return load_incident(DEAD_RANK).incident


@pytest.fixture
def quiet_drill() -> Drill:
    return Drill(build(), 1)


@pytest.fixture
def dead_rank_drill(dead_rank) -> Drill:
    return Drill(dead_rank, 1)
