"""The torchrun entry point, run for real with torchrun on one machine, bound to 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from replica.checkpoint import CheckpointStore
from replica.config import ReplicaConfig
from replica.match import match
from replica.trainer import Trainer

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]


def _torchrun() -> str:
    found = Path(sys.executable).with_name("torchrun")
    if found.exists():
        return str(found)
    which = shutil.which("torchrun")
    if which is None:
        pytest.skip("torchrun is not installed next to this Python")
    return which


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_torchrun_two_ranks_on_one_machine(tmp_path) -> None:
    out = tmp_path / "run"
    port = _free_port()
    cmd = [
        _torchrun(),
        "--nnodes", "1",
        "--nproc-per-node", "2",
        "--rdzv-backend", "c10d",
        "--rdzv-endpoint", f"127.0.0.1:{port}",
        "--local-addr", "127.0.0.1",
        "-m", "replica.distributed.standalone",
        "--steps", "12",
        "--out", str(out),
        "--config-json", '{"seed": 2}',
        "--timeout", "30",
        "--log-every", "4",
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), GLOO_SOCKET_IFNAME="lo")
    done = subprocess.run(
        cmd, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "step 12 loss" in done.stdout and "world 2: 12 steps" in done.stdout

    cfg = ReplicaConfig(seed=2)
    store = CheckpointStore(out, config_hash=cfg.config_hash())
    assert store.latest() == 12 and store.verify(12).ok
    state = store.load(12, verify=True)
    assert state["world_size"] == 2
    # Same per-rank code as GlooGroup: two ranks are the in-process run bit for bit.
    ref = Trainer(cfg, 2)
    ref.train(12)
    got = Trainer(cfg, 2)
    got.load_full_state(state)
    assert match(got.parameters_copy(), ref.parameters_copy()).kind == "bitexact"
    assert all(isinstance(v, torch.Tensor) for v in state["model"].values())
