"""Shared helpers for the replica tests: real torch, real files, real subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from replica.config import ReplicaConfig

REPO_ROOT = Path(__file__).resolve().parents[2]


def _run_python(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter with the repository on sys.path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=REPO_ROOT,
    )
    assert proc.returncode == 0, f"subprocess failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture
def run_python() -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run code in a fresh interpreter (a real new process: new torch, new hash seed)."""
    return _run_python


@pytest.fixture
def config() -> ReplicaConfig:
    """The default config: the tests exercise what the game ships."""
    return ReplicaConfig()


@pytest.fixture
def small_config() -> ReplicaConfig:
    """A smaller model for tests that only need some real weights on disk."""
    return ReplicaConfig(layers=1, width=16, heads=2, context=16, global_batch=8, ranks=4)
