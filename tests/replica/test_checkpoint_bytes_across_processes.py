"""The same training gives the same checkpoint bytes in any process: a replayed `ckpt verify`
prints the sha256 of the manifest, so a save made in one process must replay in another.

torch seeds its global generator at random per process, and a checkpoint holds its state;
configure_determinism fixes the seed. Two real processes, because within one process the
state is the same either way."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import hashlib
from replica.checkpoint import _serialize
from replica.config import ReplicaConfig
from replica.trainer import Trainer

trainer = Trainer(ReplicaConfig())
trainer.train(2)
print(hashlib.sha256(_serialize(trainer.full_state())).hexdigest())
"""


def _digest(hash_seed: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": hash_seed, "PATH": ""},
        timeout=120,
    )
    return done.stdout.strip()


def test_a_checkpoint_has_the_same_bytes_in_two_processes():
    first, second = _digest("1"), _digest("2")
    assert len(first) == 64
    assert first == second
