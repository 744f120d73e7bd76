"""Helpers for the real multi-process replica tests: real workers, real signals, no mocks.

Every test here starts real worker processes (each imports torch, a few seconds on a small
machine), so groups are kept to two ranks unless a test needs more, and every process-group
timeout is short. After each test, no worker spawned by this process may remain.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import pytest

from replica.config import ReplicaConfig
from tests.replica_dist.prockit import spawned_children, wait_gone

if not sys.platform.startswith("linux"):  # PR_SET_PDEATHSIG and /proc are Linux
    pytest.skip("the gloo backend tests need Linux", allow_module_level=True)


@pytest.fixture(autouse=True)
def _no_worker_left_behind() -> Iterator[None]:
    yield
    left = wait_gone(spawned_children(), 5.0)
    assert not left, f"worker processes left running: {left}"


@pytest.fixture
def config() -> ReplicaConfig:
    return ReplicaConfig()


@pytest.fixture
def groups() -> Iterator[Callable[..., object]]:
    """Make GlooGroups that are stopped at the end of the test whatever happens."""
    from replica.distributed.launcher import GlooGroup

    made: list[GlooGroup] = []

    def make(*args: object, **kwargs: object) -> GlooGroup:
        g = GlooGroup(*args, **kwargs)  # type: ignore[arg-type]
        made.append(g)
        return g

    yield make
    for g in made:
        g.stop()
