"""Fixtures for the simulation tests. The builders live in tests/drillkit.py so the engine
tests share them; these fixtures are the shapes most sim tests start from."""

from __future__ import annotations

import pytest

from drill.sim.cluster import Cluster
from tests.drillkit import build, job_spec, small_cluster


@pytest.fixture
def two_islands() -> Cluster:
    """Islands a and b, two 8-GPU nodes each: gpu-a-1, gpu-a-2, gpu-b-1, gpu-b-2."""
    return small_cluster(("a", 2), ("b", 2))


@pytest.fixture
def retrying_incident():
    """A quiet night whose learner job retries twice."""
    return build(jobs=[job_spec("train", yours=True, retry={"max_restarts": 2, "backoff": "30s"})])
